"""Faults as Jepsen makes them, for the tests of several processes (issue 22): a TCP proxy
in front of PostgreSQL or Redis that passes, blackholes, drops one direction or cuts a
connection right after it forwarded a COMMIT, and pauses of a process (SIGSTOP /
SIGCONT). The oracle every such test ends with is clusterkit's ``check_told_is_stored``."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import threading
from collections.abc import Iterator

from tests.support.srvkit import ServerProc

PASS, BLACKHOLE, NO_UPSTREAM = "pass", "blackhole", "no-upstream"


class Proxy:
    """A TCP proxy on a port of its own in front of ``target`` (127.0.0.1), in a thread of
    its own (the test's loop may block). ``mode``: ``pass``; ``blackhole`` (nothing is
    forwarded either way, the sockets stay open, as a dead link does); ``no-upstream``
    (what the client sends is dropped, what the server sends still arrives: a one-way
    cut). ``trap_commit()``: the next connection that sends a COMMIT has it forwarded,
    then is cut before the answer comes back."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.mode = PASS
        self.trapped = threading.Event()
        self._trap = False
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._writers: set[asyncio.StreamWriter] = set()
        self._serving: set[asyncio.Task[None]] = set()  # one per connection, until it ends
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        self._ready.wait(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(
            asyncio.start_server(self._serve, "127.0.0.1", 0)
        )
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()

    def url_for(self, url: str) -> str:
        return url.replace(f":{self.target}/", f":{self.port}/")

    def trap_commit(self) -> None:
        self.trapped.clear()
        self._trap = True

    def cut(self) -> None:
        """Closes every connection through the proxy now."""
        self._loop.call_soon_threadsafe(self._cut)

    def _cut(self) -> None:
        for writer in list(self._writers):
            writer.close()

    async def _serve(self, down_r: asyncio.StreamReader, down_w: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._serving.add(task)
        self._writers.add(down_w)
        try:
            await self._forward(down_r, down_w)
        finally:
            self._writers.discard(down_w)
            self._serving.discard(task)

    async def _forward(self, down_r: asyncio.StreamReader, down_w: asyncio.StreamWriter) -> None:
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            down_w.close()
            return
        self._writers.add(up_w)
        cut = asyncio.Event()

        async def pump(
            reader: asyncio.StreamReader, writer: asyncio.StreamWriter, up: bool
        ) -> None:
            try:
                while not cut.is_set():
                    data = await reader.read(65536)
                    if not data:
                        break
                    if self.mode == BLACKHOLE or (up and self.mode == NO_UPSTREAM):
                        continue
                    writer.write(data)
                    await writer.drain()
                    if up and self._trap and b"COMMIT" in data.upper():
                        self._trap = False
                        self.trapped.set()
                        cut.set()  # forwarded; the answer never comes back
            except (OSError, ConnectionError):
                pass
            finally:
                cut.set()
                for w in (down_w, up_w):
                    w.close()

        try:
            await asyncio.gather(pump(down_r, up_w, True), pump(up_r, down_w, False))
        finally:
            self._writers.discard(up_w)

    def close(self) -> None:
        """Closes every connection and the listening socket, lets their transports finish
        closing (a transport left half closed warns when it is collected), then stops."""

        async def shut() -> None:
            self._server.close()
            for writer in list(self._writers):
                writer.transport.abort()  # at once, unsent bytes dropped: a cut link
            if self._serving:  # every connection's task sees its sockets gone and ends
                await asyncio.wait(set(self._serving), timeout=10)
            await self._server.wait_closed()
            await asyncio.sleep(0)  # the aborted transports' connection_lost callbacks run

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(shut(), self._loop).result(15)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        with contextlib.suppress(Exception):
            self._loop.close()


def free_port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/", 1)[0])


@contextlib.contextmanager
def paused(proc: ServerProc) -> Iterator[None]:
    """The process stands still (SIGSTOP), as in a long GC pause or a frozen VM, until the
    block ends (SIGCONT)."""
    assert proc.proc is not None
    os.kill(proc.proc.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(proc.proc.pid, signal.SIGCONT)


def children_of(pid: int) -> set[int]:
    """Every process whose parent is ``pid`` (from /proc)."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(entry))
    return found


def port_free(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0
