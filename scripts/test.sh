#!/usr/bin/env bash
# Runs every test: the GoogleTest suites and the kube-scheduler corpus, natively
# (release) and under AddressSanitizer + UndefinedBehaviorSanitizer (asan).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
scripts/bootstrap.sh

status=0
for preset in release asan; do
  echo "== build: $preset"
  scripts/build.sh "$preset" 2>&1 | grep -Ev '^\[[0-9]+/[0-9]+\] ' || true
  [[ ${PIPESTATUS[0]} == 0 ]] || { echo "build of $preset failed"; exit 1; }
  echo "== test: $preset"
  if ! ctest --preset "$preset" --no-tests=error; then
    status=1
  fi
done
echo "== all tests took $((SECONDS - start)) s"
exit $status
