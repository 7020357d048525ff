#!/usr/bin/env bash
# The partners' contract test: Stoplight Prism (pinned in scripts/package.json) as a
# validating proxy (`prism proxy --errors`) in front of a real server, one Prism per
# application and format, while every documented operation of the back office and the
# storefront is replayed through it in both formats, error answers included. It fails
# on any violation Prism reports (its 500 listing a response's violations, its 422 for a
# request, a `Violation:` line in its log). The replay is server/prism_test.go
# (TestPrismReplay); PRISM_LOG=file keeps the Prisms' whole log. .ci/run calls this
# after `make test`; it takes one to two minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS="${GOFLAGS:--buildvcs=false}"
command -v node >/dev/null || { echo "prism-replay: node is not installed"; exit 1; }
test -x scripts/node_modules/.bin/prism || (cd scripts && npm ci --no-audit --no-fund)
PRISM_REPLAY=1 go test -count=1 -run '^TestPrismReplay$' -timeout 10m ./server
