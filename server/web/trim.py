"""Memory given back (issue 31): every ``MALLOC_TRIM_SECONDS`` glibc's ``malloc_trim(0)``
returns the free pages of its heaps to the system.

Why: a frame of 1-3 KB, a batch's rows, a view's JSON are above Python's small-object
allocator and come from malloc. A busy stretch (a slow disk, a loaded machine) queues many
of them; once they are sent and freed, glibc keeps the freed pages inside its heaps (it
trims only the top of a heap), so the RSS stays at the busy stretch's level (the soak:
`benchmarks/README.md`, "The fourth pass"). ``malloc_trim`` also gives back whole free pages
in the middle of a heap (madvise). It runs in a thread (ctypes releases the GIL), so the
event loop does not wait for it; on another C library it does nothing.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import logging
from collections.abc import Callable

log = logging.getLogger(__name__)


def glibc_function(name: str) -> Callable[..., int] | None:
    """``name`` of glibc's malloc (``mallopt``, ``malloc_trim``), or None where the C
    library is not glibc."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        function: Callable[..., int] = getattr(libc, name)
        return function
    except (OSError, AttributeError):  # not glibc
        return None


MALLOC_TRIM = glibc_function("malloc_trim")


def trim_malloc() -> bool:
    """Gives back the free pages of malloc's heaps; True when glibc released some."""
    return bool(MALLOC_TRIM(0)) if MALLOC_TRIM is not None else False


async def run_trims(seconds: float) -> None:
    """``trim_malloc`` every ``seconds``, off the event loop, until cancelled."""
    if MALLOC_TRIM is None or seconds <= 0:
        return
    while True:
        await asyncio.sleep(seconds)
        try:
            await asyncio.to_thread(trim_malloc)
        except Exception:  # never stop the process over it
            log.exception("malloc_trim failed")
