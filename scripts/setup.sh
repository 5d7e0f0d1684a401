#!/usr/bin/env bash
# Creates .venv in the repository root and installs the project with its test tools.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e ".[test]"
# the browser engine's type checker (typescript, a devDependency: the client has no build step)
if command -v npm >/dev/null; then
    npm ci --no-audit --no-fund --silent
else
    echo "npm not found: the browser engine's type check (tsc) and its tests need Node.js 20" >&2
fi
