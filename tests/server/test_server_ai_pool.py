"""The computer's moves are chosen in worker processes of the real server, not in the
thread that runs its event loop."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

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
    assert welcome["view"]["opponent"]["level"] == "dificil"

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
