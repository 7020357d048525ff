#!/usr/bin/env bash
# Runs every example of README.md and of the pages of docs/ against one fresh
# `make run` (temporary data directory, free port), so the documents cannot rot.
# Examples are the fenced blocks whose info string is "sh example"; each must exit
# 0 (curl --fail-with-body fails on an HTTP error unless the example expects one).
# Each runs in a shell of its own from the repository's root, with $BASE and
# $TOKEN from the README's "sh env" block: an example needs nothing from another
# one but the demo records of `make run`, so a page can be read, and run, alone.
# The files run in order: README.md, then docs/*.md by name.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS="${GOFLAGS:--buildvcs=false}"

tmp=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
export ENTITYAPI_DATA_DIR="$tmp/data" ENTITYAPI_ADDR="127.0.0.1:$port"
# In a process group of its own (setsid): make starts go run, which starts the
# server binary, and a TERM to make and go run alone left that binary running
# after the check. The whole group is stopped, and killed if it lingers.
setsid make run >"$tmp/server.log" 2>&1 &
pid=$!
cleanup() {
  kill -TERM -- "-$pid" 2>/dev/null || true
  for _ in $(seq 1 30); do kill -0 -- "-$pid" 2>/dev/null || break; sleep 0.2; done
  kill -KILL -- "-$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -rf "$tmp"
  if curl -fsS "http://$ENTITYAPI_ADDR/readyz" >/dev/null 2>&1; then
    echo "readme-check: the server still answers after the check (a process left behind)"
    exit 1
  fi
}
trap cleanup EXIT
for _ in $(seq 1 120); do
  curl -fsS "http://$ENTITYAPI_ADDR/readyz" >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || { cat "$tmp/server.log"; echo "readme-check: make run exited"; exit 1; }
  sleep 1
done
curl -fsS "http://$ENTITYAPI_ADDR/readyz" >/dev/null || { cat "$tmp/server.log"; echo "readme-check: server not ready"; exit 1; }

export BASE="http://$ENTITYAPI_ADDR/admin/api"
files=(README.md docs/*.md)
# Blocks marked "sh env" set what the examples use ($TOKEN); they run first.
awk '/^```sh env$/{on=1; next} /^```$/{on=0; next} on{print}' "${files[@]}" >"$tmp/env.sh"
set -a
# shellcheck disable=SC1091
. "$tmp/env.sh"
set +a
[ -n "${TOKEN:-}" ] || { echo "readme-check: the env block set no TOKEN"; exit 1; }
# Each example's lines, then a line "#--end-- FILE:LINE" naming where it starts.
awk '/^```sh example$/{on=1; start=FNR; next} /^```$/{if(on){on=0; print "#--end-- " FILENAME ":" start}; next} on{print}' \
  "${files[@]}" >"$tmp/examples.sh"
# The client recipes of docs/sdk.md (a Go and a TypeScript client generated from the served
# document in a scratch directory) are what partners follow: they must stay examples, so each
# is compiled and run here against the server (a Go recipe that stops compiling fails its
# example). The Go one is a module of its own that imports its generated client by package
# path and builds request documents as composite literals of the named types (issue 31).
for recipe in 'go tool oapi-codegen' 'npx openapi-typescript' '"example.com/partner/entityapi"' \
  'entityapi.AccountCreateDocument{' 'go vet ./...'; do
  grep -qF -- "$recipe" "$tmp/examples.sh" || { echo "readme-check: no example runs '$recipe'"; exit 1; }
done
count=$(grep -c -- '^#--end-- ' "$tmp/examples.sh" || true)
[ "$count" -gt 0 ] || { echo "readme-check: no examples found"; exit 1; }
declare -A per_file=()
i=0
block=""
while IFS= read -r line; do
  if [[ "$line" == "#--end-- "* ]]; then
    i=$((i+1))
    where=${line#"#--end-- "}
    if ! out=$(bash -euo pipefail -c "$block" 2>&1); then
      echo "readme-check: example $i ($where) failed:"; echo "$block"; echo "--- output:"; echo "$out"; exit 1
    fi
    per_file[${where%:*}]=$(( ${per_file[${where%:*}]:-0} + 1 ))
    block=""
  else
    block+="$line"$'\n'
  fi
done <"$tmp/examples.sh"
for f in "${files[@]}"; do
  [ -n "${per_file[$f]:-}" ] && echo "readme-check: $f: ${per_file[$f]} passed"
done
echo "readme-check: $i passed, 0 failed (${#per_file[@]} files)"
