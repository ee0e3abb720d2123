#!/usr/bin/env bash
# Builds the release preset and runs the benchmark suite as recorded in
# bench/RESULTS.md (medians of 5 repetitions). Extra arguments go to the
# benchmark binary, e.g. --benchmark_filter=BM_Simulate.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
scripts/build.sh release --target tightpack_bench >/dev/null
exec build/release/bench/tightpack_bench --benchmark_min_time=1 --benchmark_repetitions=5 \
  --benchmark_report_aggregates_only=true "$@"
