#!/usr/bin/env bash
# Lint OpenAPI documents with the pinned linters from scripts/package.json:
#   spectral lint  (ruleset openapi/.spectral.yaml, spectral:oas; warnings fail)
#   redocly lint   (config  openapi/redocly.yaml, recommended)
#
# Usage: scripts/lint-openapi.sh DOC...
# Works from any directory; relative DOC paths are taken from the caller's
# directory. Offline once scripts/node_modules exists; otherwise it runs
# `npm ci` in scripts/ (needs the npm registry once).
# Exits non-zero if any linter reports an error or a warning on any document.
set -euo pipefail

if [[ $# -eq 0 ]]; then
  echo "usage: $0 DOC..." >&2
  exit 2
fi

script_dir="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd -- "${script_dir}/.." && pwd)"
bin_dir="${script_dir}/node_modules/.bin"
spectral_ruleset="${repo_root}/openapi/.spectral.yaml"
redocly_config="${repo_root}/openapi/redocly.yaml"

if [[ ! -x "${bin_dir}/spectral" ]]; then
  echo "lint-openapi: installing pinned linters (npm ci in scripts/)" >&2
  (cd -- "${script_dir}" && npm ci --no-audit --no-fund)
fi

export REDOCLY_TELEMETRY=off
export REDOCLY_SUPPRESS_UPDATE_NOTICE=true

redocly_out="$(mktemp)"
trap 'rm -f -- "${redocly_out}"' EXIT

status=0
for doc in "$@"; do
  if [[ ! -f "${doc}" ]]; then
    echo "lint-openapi: ${doc}: no such file" >&2
    status=1
    continue
  fi
  echo "== spectral lint ${doc}"
  if ! "${bin_dir}/spectral" lint "${doc}" --ruleset "${spectral_ruleset}" --fail-severity=warn; then
    echo "lint-openapi: spectral FAILED for ${doc}" >&2
    status=1
  fi
  echo "== redocly lint ${doc}"
  # redocly exits 0 when it finds only warnings and has no flag to change that,
  # so, like spectral's --fail-severity=warn, a warning line in its stylish
  # output ("  29:7  warning  rule-name  message") also fails the document.
  if ! "${bin_dir}/redocly" lint "${doc}" --config "${redocly_config}" --format=stylish 2>&1 | tee "${redocly_out}"; then
    echo "lint-openapi: redocly FAILED for ${doc}" >&2
    status=1
  elif grep -Eq '^[[:space:]]+[0-9]+:[0-9]+[[:space:]]+warning[[:space:]]' "${redocly_out}"; then
    echo "lint-openapi: redocly reported warnings for ${doc}" >&2
    status=1
  fi
done

if [[ ${status} -ne 0 ]]; then
  echo "lint-openapi: FAILED" >&2
else
  echo "lint-openapi: ok ($# document(s))"
fi
exit "${status}"
