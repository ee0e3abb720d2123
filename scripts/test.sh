#!/usr/bin/env bash
# Runs every test: the GoogleTest suites and both corpora natively (release),
# the WebAssembly build against the native one (Jest, wasm/test), and the
# native suites again under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
scripts/bootstrap.sh

status=0
build() {
  echo "== build: $1"
  scripts/build.sh "$1" 2>&1 | grep -Ev '^\[[0-9]+/[0-9]+\] ' || true
  [[ ${PIPESTATUS[0]} == 0 ]] || { echo "build of $1 failed"; exit 1; }
}

build release
echo "== test: release"
ctest --preset release --no-tests=error || status=1

build wasm
echo "== test: wasm (Jest; compares with build/release)"
(cd wasm && npm test --silent) || status=1

build asan
echo "== test: asan"
ctest --preset asan --no-tests=error || status=1

echo "== all tests took $((SECONDS - start)) s"
exit $status
