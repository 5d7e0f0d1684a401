#!/usr/bin/env bash
# Sets up .venv and runs the whole test suite (lint, types, unit, server and browser tests).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ ! -x /usr/bin/chromium ]; then
    if [ "$(id -u)" = 0 ]; then
        (apt-get update -q && apt-get install -y -q chromium) >/dev/null
    else
        echo "Browser tests need Debian's chromium: sudo apt-get install -y chromium" >&2
    fi
fi
.venv/bin/ruff check server tests benchmarks
.venv/bin/mypy
.venv/bin/python -m pytest -q "$@"
