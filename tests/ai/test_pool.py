"""AiPool: computer decisions in worker processes, the same moves as in this process."""

from __future__ import annotations

import asyncio
import os

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
