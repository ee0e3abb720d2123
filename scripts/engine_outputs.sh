#!/usr/bin/env bash
# The engine's answers on a fixed set of inputs, one SHA-256 line each, so that a
# change meant to be behaviour-neutral (a reformat, a file moved, a header split)
# can be shown to be: run it before and after and compare.
#
#   scripts/engine_outputs.sh [TIGHTPACK] > before.txt   # default build/release/scheduler/tightpack
#   ... change, rebuild ...
#   scripts/engine_outputs.sh | diff before.txt -        # no output: the same answers
#
# Inputs: the shared scheduling corpora (replay) and the autoscaler corpus
# (autoscale) beside the clone; 1,000 generated scenarios of the differential's
# fixed seed, with storage and affinity (replay, v1.37 and v1.30 rules); 1,000
# generated pool scenarios (autoscale); and the DaskHub day of three seeds
# (bench/daskhub_day). The WebAssembly build is compared with the native one byte
# for byte by its own test (wasm: npm test).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tp=${1:-$root/build/release/scheduler/tightpack}
day=$(dirname "$tp")/../bench/tightpack_daskhub_day
shared=$root/../shared
[[ -x $tp ]] || { echo "engine_outputs: no tightpack at $tp" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tightpack-outputs.XXXXXX")
trap 'rm -rf "$work"' EXIT

line() { printf '%s  %s\n' "$(sha256sum <"$2" | cut -d' ' -f1)" "$1"; }

for f in "$shared"/corpus/*.jsonl; do
  "$tp" replay --jsonl "$f" >"$work/out"
  line "replay corpus/$(basename "$f")" "$work/out"
done
for f in "$shared"/autoscaler/*.jsonl; do
  "$tp" autoscale --jsonl "$f" >"$work/out"
  line "autoscale autoscaler/$(basename "$f")" "$work/out"
done
gen=$root/tests/conformance/generate
python3 "$gen/generate.py" --seed tightpack-1 --count 1000 --volumes --affinity -o "$work/scenarios.jsonl"
"$tp" replay --jsonl "$work/scenarios.jsonl" >"$work/out"
line "replay generate.py --seed tightpack-1 --count 1000 --volumes --affinity" "$work/out"
python3 "$gen/generate.py" --seed tightpack-1 --count 1000 --release v1.30 -o "$work/scenarios.jsonl"
"$tp" replay --jsonl "$work/scenarios.jsonl" >"$work/out"
line "replay generate.py --seed tightpack-1 --count 1000 --release v1.30" "$work/out"
python3 "$gen/generate_autoscale.py" --seed tightpack-1 --count 1000 --volumes --spread --affinity -o "$work/pools.jsonl"
"$tp" autoscale --jsonl "$work/pools.jsonl" >"$work/out"
line "autoscale generate_autoscale.py --seed tightpack-1 --count 1000 --volumes --spread --affinity" "$work/out"
if [[ -x $day ]]; then
  for seed in 1 2 3; do
    "$day" --seed "$seed" --output json >"$work/out" 2>&1
    line "daskhub_day --seed $seed" "$work/out"
  done
fi
