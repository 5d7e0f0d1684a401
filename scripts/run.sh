#!/usr/bin/env bash
# Sets up .venv (first time only installs) and starts the game server on http://localhost:8000.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m server "$@"
