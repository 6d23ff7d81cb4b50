#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster for the tests: Debian's binaries, a temporary directory, a free port on
# loopback, run as a non-root user (postgres refuses root; as root the cluster runs as `nobody`). Prints the
# connection URL on stdout and the directory to pass to `stop` on stderr's last line.
#   url=$(scripts/postgres-cluster.sh start 2>/tmp/pgdir)  ...  scripts/postgres-cluster.sh stop "$(tail -1 /tmp/pgdir)"
# `halt DIR` stops the server and `resume DIR` starts it again on the same port (the outage tests).
set -euo pipefail
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)

as_owner() { if [ "$(id -u)" -eq 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi; }

run_server() {
    # Tests only: no durability, many connections (two replicas and the contract suite's pools); statement counts for
    # bench/suite.py's round trips.
    as_owner "$bin/pg_ctl" -D "$1/data" -l "$1/log" -w -o "-p $(cat "$1/port") -k $1 -c listen_addresses=127.0.0.1 -c fsync=off \
        -c synchronous_commit=off -c full_page_writes=off -c max_connections=300 \
        -c shared_preload_libraries=pg_stat_statements" start >/dev/null
}

case "${1:-}" in
start)
    dir=$(mktemp -d /tmp/latchkey-pg.XXXXXX)
    [ "$(id -u)" -eq 0 ] && chown nobody "$dir"
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    echo "$port" >"$dir/port"
    as_owner "$bin/initdb" -D "$dir/data" -U latchkey --auth=trust --no-sync -E UTF8 >/dev/null
    run_server "$dir"
    as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U latchkey latchkey
    echo "postgres://latchkey@127.0.0.1:$port/latchkey"
    echo "$dir" >&2
    ;;
halt)
    # A fast stop: every client is cut off at once, but what was committed is flushed first. An immediate stop would
    # lose commits still in the WAL buffers (synchronous_commit is off here), which is not the outage under test.
    as_owner "$bin/pg_ctl" -D "$2/data" -m fast stop >/dev/null
    ;;
resume)
    run_server "$2"
    ;;
stop)
    as_owner "$bin/pg_ctl" -D "$2/data" -m immediate stop >/dev/null || true
    rm -rf "$2"
    ;;
*)
    echo "usage: $0 start | halt DIR | resume DIR | stop DIR" >&2; exit 2 ;;
esac
