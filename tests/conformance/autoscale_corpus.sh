#!/usr/bin/env bash
# Runs an autoscaler corpus file through `tightpack autoscale --jsonl` and
# judges the output with the corpus's compare.py. Exit 77 (skipped) when the
# corpus is absent.
set -euo pipefail
bin=$1 corpus=$2 compare=$3
if [[ ! -f $corpus || ! -f $compare ]]; then
  echo "corpus $corpus not found: skipped"
  exit 77
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$bin" autoscale --jsonl "$corpus" >"$out"
python3 "$compare" "$corpus" "$out" --show 10
