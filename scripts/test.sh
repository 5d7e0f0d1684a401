#!/usr/bin/env bash
# Sets up .venv and runs the whole test suite (lint, types, unit, server and browser tests),
# the server tests on SQLite and on PostgreSQL, and the Redis check. Missing Debian packages
# (chromium, postgresql, redis-server, haproxy) are installed as root; without root the browser,
# PostgreSQL, Redis and HAProxy tests are skipped with a line that says so, except in CI (CI=true).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/services.sh
bash scripts/setup.sh
start_services
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
pg_up || command -v pg_ctlcluster >/dev/null || need+=(postgresql)
redis_up || command -v redis-server >/dev/null || need+=(redis-server)
{ [ -x /usr/sbin/haproxy ] || command -v haproxy >/dev/null; } || need+=(haproxy)  # the load balancer's end-to-end test
[ -e /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 ] || need+=(faketime)  # skewed clocks
if [ ${#need[@]} -gt 0 ] && [ "$(id -u)" = 0 ]; then
    (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}") \
        >/dev/null
    if [[ " ${need[*]} " == *" postgresql "* ]]; then trust_loopback; fi
    start_services
fi
[ -x /usr/bin/chromium ] || echo "Browser tests need Debian's chromium: sudo apt-get install -y chromium" >&2
{ [ -x /usr/sbin/haproxy ] || command -v haproxy >/dev/null; } || echo "The HAProxy tests need Debian's haproxy: sudo apt-get install -y haproxy" >&2
skip_unless_up PostgreSQL 127.0.0.1:5432 pg_up SKIP_POSTGRES
skip_unless_up Redis 127.0.0.1:6379 redis_up SKIP_REDIS
.venv/bin/ruff check server tests benchmarks
.venv/bin/ruff format --check server tests benchmarks scripts
.venv/bin/mypy
.venv/bin/lint-imports  # the server's layers (pyproject.toml, docs/architecture.md)
npx --no-install tsc --noEmit -p .
if [ $# -gt 0 ]; then
    exec .venv/bin/python -m pytest -q "$@"
fi
# the whole suite in four pytest processes side by side, each with its own ports, databases
# and Redis prefixes: the browser tests (they mostly wait on chromium), the cluster's fault
# tests (they mostly wait on leases running out), the other server tests (on server
# processes) and the rest (the engines, the players, the architecture: this process's CPU)
cluster=(tests/server/test_ownership.py tests/server/test_cluster.py
         tests/server/test_deploy_cluster.py tests/server/test_watchers_cluster.py)
ignored=()
for path in "${cluster[@]}"; do ignored+=("--ignore=$path"); done
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
pytest=(.venv/bin/python -m pytest -q -p no:cacheprovider)
"${pytest[@]}" tests/browser >"$logs/browser" 2>&1 &
browser=$!
"${pytest[@]}" "${cluster[@]}" >"$logs/cluster" 2>&1 &
faults=$!
"${pytest[@]}" tests/server "${ignored[@]}" >"$logs/server" 2>&1 &
server=$!
status=0
"${pytest[@]}" tests --ignore=tests/browser --ignore=tests/server || status=$?
for job in "$server" "$faults" "$browser"; do wait "$job" || status=$?; done
echo "--- the other server tests: tests/server"
cat "$logs/server"
echo "--- the cluster's fault tests: ${cluster[*]}"
cat "$logs/cluster"
echo "--- tests/browser"
cat "$logs/browser"
exit "$status"
