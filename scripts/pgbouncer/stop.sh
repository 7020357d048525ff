#!/usr/bin/env bash
# Stops the PgBouncer that start.sh started in DIR and removes DIR.
set -euo pipefail
dir="${1:?usage: stop.sh DIR}"
if [ -f "$dir/pgbouncer.pid" ]; then
  kill "$(cat "$dir/pgbouncer.pid")" 2>/dev/null || true
fi
rm -rf "$dir"
