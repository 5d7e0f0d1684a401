"""The server process's memory settings (server/__main__.py, server/config.py): glibc's malloc
arenas capped (MALLOC_ARENAS) and SQLite's page caches kept small (SQLITE_CACHE_KIB; its
connections are checked in test_server_db.py). What they save is measured by the soak
(benchmarks/soak.py, benchmarks/README.md), not here."""

from __future__ import annotations

import platform

import pytest

from server.__main__ import cap_malloc_arenas
from server.config import Settings


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
