"""QR codes of this site's links (``QrMaker``), made away from the event loop.

A QR code costs tens of milliseconds of CPU (pure Python): they are drawn one at a time in
a process of their own (it dies with the server), started at the first one (a thread
would still hold the GIL, and a
busy QR thread made every other request wait), at most ``MAX_WAITING`` wait their turn
(more get ``503 busy``), and invite and watch codes (asked for again by every reload of the
page that shows them) are remembered in a small LRU cache.
Rejoin links are secrets used once: they are drawn and forgotten, never cached.

Links are built from ``PUBLIC_ORIGIN`` when it is set, else from the request's scheme and
``Host`` (which ``security.HostPolicy`` already checked), and only for the kinds of path a
player shares: ``/j/<invite>``, ``/r/<long rejoin code>`` and ``/v/<watch code>``.
"""

from __future__ import annotations

import asyncio
import io
import multiprocessing
import os
import re
from collections import OrderedDict
from concurrent.futures import ProcessPoolExecutor

import segno

from ..ai.pool import die_with_parent
from ..protocol import ApiError

SHAREABLE = re.compile(r"/[jrv]/[A-Za-z0-9_-]{1,64}")
CACHE_SIZE = 256
MAX_WAITING = 8


def shareable_path(text: object) -> str:
    if not isinstance(text, str) or not SHAREABLE.fullmatch(text):
        raise ApiError("bad_qr_text")
    return text


def render(url: str) -> bytes:
    buffer = io.BytesIO()
    segno.make(url, error="m").save(buffer, kind="svg", scale=6, border=2)
    return buffer.getvalue()


class QrMaker:
    def __init__(self) -> None:
        self.executor: ProcessPoolExecutor | None = None
        self.cache: OrderedDict[str, bytes] = OrderedDict()
        self.waiting = 0

    async def svg(self, url: str, *, cache: bool) -> bytes:
        found = self.cache.get(url)
        if found is not None:
            self.cache.move_to_end(url)
            return found
        if self.waiting >= MAX_WAITING:
            raise ApiError("busy", "error.busy", status=503)
        self.waiting += 1
        try:
            if self.executor is None:
                self.executor = ProcessPoolExecutor(
                    max_workers=1,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=die_with_parent,  # even when the server is SIGKILLed
                    initargs=(os.getpid(),),
                )
            svg = await asyncio.get_running_loop().run_in_executor(self.executor, render, url)
        finally:
            self.waiting -= 1
        if cache:
            self.cache[url] = svg
            while len(self.cache) > CACHE_SIZE:
                self.cache.popitem(last=False)
        return svg

    def close(self) -> None:
        if self.executor is not None:
            self.executor.shutdown(wait=False, cancel_futures=True)
