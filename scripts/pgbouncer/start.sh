#!/usr/bin/env bash
# Starts a PgBouncer in transaction mode in front of the PostgreSQL of
# TEST_DATABASE_URL (127.0.0.1:5432 unless it says otherwise), on a free
# port, in a directory of its own; prints the pooled URL with the same
# user and database as TEST_DATABASE_URL. `scripts/pgbouncer/stop.sh DIR`
# (or killing the pid in DIR/pgbouncer.pid) stops it.
#
# It is the pooler PaaS hand out by default: pool_mode = transaction, and no
# prepared-statement tracking (max_prepared_statements is not set, and
# Debian's 1.18 has none), so what entityapi does through it is what it does
# behind PgBouncer 1.18 and later.
#
#   eval "$(scripts/pgbouncer/start.sh)"   # sets POOLER_URL and POOLER_DIR
set -euo pipefail

command -v pgbouncer >/dev/null || {
  echo "pgbouncer is not installed (Debian: apt-get install pgbouncer)" >&2
  exit 1
}
direct="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}"
# host, port, user and database of the direct URL (postgres://USER@HOST:PORT/DB?...)
rest="${direct#*://}"
user="${rest%%@*}"
[ "$user" != "$rest" ] || user=postgres
user="${user%%:*}"
hostport="${rest#*@}"
hostport="${hostport%%/*}"
db="${rest#*/}"
db="${db%%\?*}"
host="${hostport%%:*}"
port="${hostport##*:}"
[ "$port" != "$hostport" ] || port=5432

dir=$(mktemp -d /tmp/entityapi-pgbouncer-XXXXXX)
# A free port: ask the kernel for one, then hand it to PgBouncer.
listen=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()' 2>/dev/null ||
  echo $((20000 + RANDOM % 20000)))
cat >"$dir/pgbouncer.ini" <<INI
[databases]
* = host=$host port=$port user=$user

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $listen
unix_socket_dir =
auth_type = any
pool_mode = transaction
max_client_conn = 4000
default_pool_size = 20
max_user_connections = 60
server_reset_query =
ignore_startup_parameters = extra_float_digits
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
INI
# PgBouncer refuses to run as root: it runs as the owner of the cluster.
as=""
if [ "$(id -u)" -eq 0 ]; then
  chown -R postgres "$dir"
  as="-u postgres"
fi
# shellcheck disable=SC2086
pgbouncer -d $as "$dir/pgbouncer.ini"
for _ in $(seq 1 50); do
  pg_isready -h 127.0.0.1 -p "$listen" -q 2>/dev/null && break
  sleep 0.1
done
pg_isready -h 127.0.0.1 -p "$listen" -q || {
  echo "pgbouncer did not start; its log:" >&2
  cat "$dir/pgbouncer.log" >&2 || true
  exit 1
}
echo "POOLER_URL='postgres://$user@127.0.0.1:$listen/$db?sslmode=disable'"
echo "POOLER_DIR='$dir'"
