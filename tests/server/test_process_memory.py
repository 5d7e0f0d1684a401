"""The server process's memory settings (server/__main__.py, server/config.py): glibc's malloc
arenas capped (MALLOC_ARENAS), SQLite's page caches kept small (SQLITE_CACHE_KIB; its
connections are checked in test_server_db.py), malloc's free pages given back
(MALLOC_TRIM_SECONDS). What they save is measured by the soak
(benchmarks/soak.py, benchmarks/README.md), not here."""

from __future__ import annotations

import platform
from pathlib import Path

import pytest

from server.__main__ import cap_malloc_arenas
from server.config import Settings
from server.web.trim import trim_malloc


def test_the_settings_default_to_two_arenas_and_half_a_mebibyte_of_cache() -> None:
    assert Settings.from_env({}).malloc_arenas == 2
    assert Settings.from_env({}).sqlite_cache_kib == 512
    assert Settings.from_env({"MALLOC_ARENAS": "0"}).malloc_arenas == 0
    with pytest.raises(ValueError):
        Settings.from_env({"MALLOC_ARENAS": "two"})


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="the cap is glibc's mallopt")
def test_glibc_takes_the_cap_and_zero_leaves_its_own() -> None:
    assert cap_malloc_arenas(2) is True
    assert cap_malloc_arenas(0) is False


def test_the_settings_trim_malloc_every_minute_unless_told() -> None:
    assert Settings.from_env({}).malloc_trim_seconds == 60
    assert Settings.from_env({"MALLOC_TRIM_SECONDS": "0"}).malloc_trim_seconds == 0


def _rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_a_trim_gives_back_what_a_busy_stretch_left_inside_mallocs_heap() -> None:
    # 2 KiB blocks come from malloc (above Python's small-object allocator), as frames do;
    # one block in a hundred stays (the rooms' live frames), the last one among them, so
    # glibc cannot give the freed pages back by trimming the heap's top
    blocks = [bytearray(2048) for _ in range(40_000)]  # about 80 MiB
    kept = blocks[::100] + [blocks[-1]]
    del blocks
    before = _rss_kib()
    assert trim_malloc() is True
    after = _rss_kib()
    assert before - after > 40 * 1024, (before, after)
    assert len(kept) == 401
