#!/usr/bin/env bash
# The WebAssembly build's figures in bench/RESULTS.md: size, module start-up,
# loading a snapshot and placing replicas, on the same inputs as the native
# BM_WhatIfLoad and BM_WhatIfPlace (run those with
# scripts/bench.sh --benchmark_filter=WhatIf).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
scripts/build.sh release --target tightpack_what_if_inputs >/dev/null
scripts/build.sh wasm >/dev/null
inputs=build/what-if-inputs
mkdir -p "$inputs"
build/release/bench/tightpack_what_if_inputs "$inputs"
node wasm/bench/what_if.js "$inputs" "${1:-9}"
