"""AiPool: computer decisions in worker processes, the same moves as in this process."""

from __future__ import annotations

import asyncio
import os
import select
import subprocess
import sys
from pathlib import Path

from server.ai import choose_for_position
from server.ai.pool import WORKER_NICE, AiPool, cores
from server.engine import Match, legal_moves

from .helpers import game_positions


async def test_workers_answer_the_same_moves_as_this_process() -> None:
    from server.ai import LEVELS

    positions = [
        pos
        for pos, moves, _ in game_positions(3, (LEVELS["normal"], LEVELS["facil"]), limit=40)
        if len(moves) > 1
    ][:3]
    pool = AiPool(1, queue=2)
    try:
        assert pool.workers == 1
        # more requests at once than the pool holds: the rest wait their turn, in order
        moves = await asyncio.gather(
            *(
                pool.choose(level, pos, f"seed-{i}")
                for i, pos in enumerate(positions)
                for level in ("normal", "dificil")
            )
        )
        expected = [
            choose_for_position(level, pos, f"seed-{i}")
            for i, pos in enumerate(positions)
            for level in ("normal", "dificil")
        ]
        # worker processes have their own string hashes: the moves must not depend on them
        assert moves == expected
        assert len(pool.worker_pids) == 1 and os.getpid() not in pool.worker_pids
        # the worker gives way to the server's event loop
        (worker,) = pool.worker_pids
        mine = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, worker) == min(mine + WORKER_NICE, 19)
    finally:
        await pool.close()
    try:
        await pool.choose("facil", Match.new("x").position, "s")
    except RuntimeError:
        pass
    else:
        raise AssertionError("a closed pool must refuse work")


async def test_at_most_one_worker_per_core_and_a_thread_when_asked() -> None:
    big = AiPool(10_000, 0)
    assert big.workers == cores()  # no worker starts before the first request
    await big.close()
    inline = AiPool(0)
    position = Match.new("inline").position
    move = await inline.choose("dificil", position, "s")
    assert move in legal_moves(position)
    assert inline.worker_pids == {os.getpid()}


async def test_rooms_take_turns_for_the_workers() -> None:
    """Room A asks for three decisions at once, then room B for one: B's is handed out
    right after A's second, not after all of A's."""
    pool = AiPool(0)
    position = Match.new("turns").position
    finished: list[str] = []
    waiting: list[int] = []

    async def decide(name: str, seed: str) -> None:
        await pool.choose("facil", position, seed)
        finished.append(name)
        waiting.append(pool.waiting)

    try:
        await asyncio.gather(
            decide("a1", "room-a:1"),
            decide("a2", "room-a:2"),
            decide("a3", "room-a:3"),
            decide("b1", "room-b:1"),
        )
    finally:
        await pool.close()
    assert finished == ["a1", "a2", "b1", "a3"]
    assert waiting == [2, 1, 0, 0]


def test_workers_die_with_their_server(tmp_path: Path) -> None:
    """A server killed with SIGKILL (no chance to stop its pool) leaves no worker."""
    script = tmp_path / "a_server.py"
    script.write_text(
        "import asyncio, sys\n"
        "from server.ai.pool import AiPool\n"
        "from server.engine import Match\n"
        "async def main():\n"
        "    pool = AiPool(1)\n"
        "    await pool.choose('facil', Match.new('x').position, 's')\n"
        "    print(*pool.worker_pids, flush=True)\n"
        "    await asyncio.to_thread(sys.stdin.readline)\n"
        "if __name__ == '__main__':\n"
        "    asyncio.run(main())\n"
    )
    root = Path(__file__).resolve().parents[2]
    with subprocess.Popen(
        [sys.executable, str(script)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
    ) as server:
        try:
            assert server.stdout is not None
            (worker,) = (int(pid) for pid in server.stdout.readline().split())
            assert worker != server.pid
            watch = os.pidfd_open(worker)
            try:
                server.kill()
                server.wait(timeout=30)
                ended, _, _ = select.select([watch], [], [], 30)  # readable once it exited
                assert ended == [watch], "the worker outlived its server"
            finally:
                os.close(watch)
        finally:
            if server.poll() is None:
                server.kill()
                server.wait(timeout=30)
