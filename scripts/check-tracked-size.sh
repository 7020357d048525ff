#!/usr/bin/env bash
# Fails when git tracks a file over 1 MiB outside the places where large files
# are expected: generated code (gen/), the bundled OpenAPI documents
# (openapi/bundled/) and the vendored docs assets (server/docs/swagger-ui/).
# A binary or a profile committed by mistake is caught here, in `make lint`.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
limit=$((1024 * 1024))
status=0
while IFS= read -r -d '' path; do
  case "$path" in gen/* | openapi/bundled/* | server/docs/swagger-ui/*) continue ;; esac
  [ -f "$path" ] || continue
  size=$(stat -c %s -- "$path")
  if [ "$size" -gt "$limit" ]; then
    echo "tracked file over 1 MiB: $path ($size bytes); build products stay out of git (.gitignore)"
    status=1
  fi
done < <(git ls-files -z)
exit "$status"
