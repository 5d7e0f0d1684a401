# PostgreSQL (127.0.0.1:5432) and Redis (127.0.0.1:6379) for the tests; sourced by
# scripts/test.sh and .ci/run.
pg_up() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }
redis_up() { [ "$(redis-cli -h 127.0.0.1 ping 2>/dev/null)" = PONG ]; }

wait_up() {  # polls "$1" until it succeeds, for at most 30 s
    local deadline=$((SECONDS + 30))
    until "$1"; do
        [ "$SECONDS" -lt "$deadline" ] || return 1
        sleep 0.2
    done
}

start_services() {  # with the machine's own commands, where installed and down
    if ! pg_up && command -v pg_ctlcluster >/dev/null; then
        pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start \
            && wait_up pg_up || true
    fi
    if ! redis_up && command -v redis-server >/dev/null; then
        redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" \
            --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log \
            && wait_up redis_up || true
    fi
}

trust_loopback() {  # a PostgreSQL we just installed: trust auth on 127.0.0.1, as in CI
    sed -i '1i host all all 127.0.0.1/32 trust' /etc/postgresql/*/main/pg_hba.conf
    pg_ctlcluster "$(ls /etc/postgresql)" main reload 2>/dev/null || true  # if it runs
}

skip_unless_up() {  # name address check variable: exports the variable (the reason) if down
    "$3" && return 0
    if [ "${CI:-}" = true ]; then
        echo "$1 not reachable at $2: CI needs it" >&2
        exit 1
    fi
    echo "$1 not reachable at $2: skipping the $1 tests" >&2
    export "$4=$1 not reachable at $2: skipping the $1 tests"
}
