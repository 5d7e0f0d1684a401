"""``python benchmarks/traced_server.py``: ``python -m server`` under tracemalloc (issue 31),
for the soak's ``--trace``. Each SIGUSR1 writes a snapshot to ``$TRACE_DIR/snapshot-N``
(N from 0), then ``$TRACE_DIR/snapshot-N.done``. ``TRACE_FRAMES``: frames kept per
allocation (default 12: enough to reach the room's code from the library that allocated).

What tracemalloc sees is Python's own allocations (and C extensions' through PyMem), not
SQLite's page cache, glibc's free lists or the kernel's socket buffers: the soak prints it
beside the RSS so the rest shows.
"""

from __future__ import annotations

import os
import runpy
import signal
import threading
import tracemalloc
from pathlib import Path
from types import FrameType

OUT = Path(os.environ.get("TRACE_DIR", "."))
taken = 0


def _snapshot() -> None:
    global taken
    path = OUT / f"snapshot-{taken}"
    taken += 1
    tracemalloc.take_snapshot().dump(str(path))
    path.with_suffix(".done").write_text("")


def _on_signal(signum: int, frame: FrameType | None) -> None:
    # off the handler: a snapshot walks every traced block
    threading.Thread(target=_snapshot, daemon=True).start()


if __name__ == "__main__":
    tracemalloc.start(int(os.environ.get("TRACE_FRAMES", "12")))
    signal.signal(signal.SIGUSR1, _on_signal)
    runpy.run_module("server", run_name="__main__", alter_sys=True)
