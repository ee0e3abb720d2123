#!/usr/bin/env bash
# Builds the "fuzz" preset and runs each libFuzzer target for a fixed time.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# SECONDS per target (default 60); TARGETs among quantity decode replay config
# watch_lines watch_cache daemon_inputs (default: all, one after another). Exits non-zero when any target reports a
# crash, sanitizer error, leak, timeout or out-of-memory; the input that caused
# it is saved under build/fuzz/artifacts/<target>/. Inputs that add coverage
# accumulate in build/fuzz/work/<target>/ (the checked-in seeds in
# fuzz/corpus/<target>/ are only read). Not part of the normal test run.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
seconds=${1:-60}
[[ $seconds =~ ^[0-9]+$ ]] || { echo "usage: $0 [SECONDS] [TARGET...]" >&2; exit 2; }
shift $(($# > 0 ? 1 : 0))
targets=("$@")
((${#targets[@]})) || targets=(quantity decode replay config watch_lines watch_cache daemon_inputs)

cmake --preset fuzz >/dev/null || exit 2
cmake --build --preset fuzz -j2 || exit 2

# Stack traces for UBSan reports too (ASan prints them already).
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

failed=()
for t in "${targets[@]}"; do
  bin=build/fuzz/fuzz/fuzz_$t
  [[ -x $bin ]] || { echo "no such fuzz target: $t" >&2; exit 2; }
  # Inputs up to megabytes where the target reads what an API server or a
  # file can make that large, so that size and depth limits are reached.
  case $t in
    quantity) max_len=256 dict=fuzz/dict/quantity.dict ;;
    watch_lines) max_len=1048576 dict=fuzz/dict/json.dict ;;
    watch_cache) max_len=1048576 dict=fuzz/dict/json.dict ;;
    *) max_len=65536 dict=fuzz/dict/json.dict ;;
  esac
  work=build/fuzz/work/$t artifacts=build/fuzz/artifacts/$t log=build/fuzz/logs/$t.log
  mkdir -p "$work" "$artifacts" "$(dirname "$log")"
  echo "== fuzz_$t: ${seconds}s, log in $log"
  # One process per target: the machine has two cores and the build may share them.
  "$bin" -max_total_time="$seconds" -max_len="$max_len" -rss_limit_mb=4096 -timeout=30 \
    -dict="$dict" -artifact_prefix="$artifacts/" -print_final_stats=1 \
    "$work" "fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log"
  if ((rc != 0)); then
    echo "!! fuzz_$t exited $rc; the report:"
    grep -E -A30 '^==[0-9]+==ERROR|runtime error|^SUMMARY|deadly signal|ALARM|out-of-memory' "$log" | head -60
    ls -1 "$artifacts"
    failed+=("$t")
  fi
done

if ((${#failed[@]})); then
  echo "findings in: ${failed[*]}"
  exit 1
fi
echo "no findings"
