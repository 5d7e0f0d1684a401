"""The computer's moves are chosen in worker processes of the real server, not in the
thread that runs its event loop."""

from __future__ import annotations

import os
import re
import select
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.faults import children_of
from tests.support.srvkit import Client, ServerProc, play_until

WORKER_LINE = re.compile(r"dificil move chosen in worker process (\d+)")


@pytest.fixture
def debug_server(tmp_path: Path) -> Iterator[ServerProc]:
    proc = ServerProc(tmp_path, {"LOG_LEVEL": "debug", "AI_WORKERS": "1"}).start()
    yield proc
    proc.stop()


def _parent_of(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])  # the field after the state


async def test_dificil_moves_come_from_a_worker_process(debug_server: ServerProc) -> None:
    room = debug_server.computer_room("dificil")
    client, welcome = await Client.hello(debug_server, room["token"])
    assert welcome["view"]["players"][1]["level"] == "dificil"

    def computer_moved(message: dict[str, object]) -> bool:
        event = message.get("event")
        return isinstance(event, dict) and event.get("kind") == "move" and event["seat"] == 1

    await play_until(client, computer_moved)
    assert debug_server.proc is not None
    server_pid = debug_server.proc.pid
    pids = {int(pid) for pid in WORKER_LINE.findall(debug_server.read_log())}
    assert pids and server_pid not in pids
    for pid in pids:  # a child of the server, alive while the server is
        assert _parent_of(pid) == server_pid
    await client.close()


async def test_a_server_killed_with_sigkill_leaves_no_process_behind(tmp_path: Path) -> None:
    """The real server with a computer worker and the QR process running: SIGKILL (no
    chance to stop them) and every process it started ends too (issue 22)."""
    server = ServerProc(tmp_path, {"AI_WORKERS": "1"}).start()
    try:
        room = server.computer_room("dificil")
        client, _ = await Client.hello(server, room["token"])

        def computer_moved(message: dict[str, object]) -> bool:
            event = message.get("event")
            return isinstance(event, dict) and event.get("kind") == "move" and event["seat"] == 1

        await play_until(client, computer_moved)  # the worker is up
        invite = server.post("/api/rooms", {"mode": "friend", "name": "Ana"}).json()["invite"]
        assert server.post("/api/qr", {"text": f"/j/{invite}"}).status_code == 200
        assert server.proc is not None
        started = children_of(server.proc.pid)
        assert len(started) >= 2, started  # the worker and the QR process (and their helpers)
        watches = {pid: os.pidfd_open(pid) for pid in started}
        try:
            server.kill9()
            deadline = time.monotonic() + 30
            left = set(watches)
            while left and time.monotonic() < deadline:
                ended, _, _ = select.select([watches[p] for p in left], [], [], 1)
                left -= {p for p in left if watches[p] in ended}
            assert not left, f"outlived their server: {sorted(left)}"
        finally:
            for fd in watches.values():
                os.close(fd)
        await client.close()
    finally:
        server.stop()
