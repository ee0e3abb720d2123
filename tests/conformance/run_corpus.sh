#!/usr/bin/env bash
# Runs one corpus file through `tightpack SUBCOMMAND --jsonl` (replay or
# autoscale) and judges the output with the corpus's own compare.py.
# Exit 77 (skipped) when the corpus is absent.
set -euo pipefail
subcommand=$1 bin=$2 corpus=$3 compare=$4
if [[ ! -f $corpus || ! -f $compare ]]; then
  echo "corpus $corpus not found: skipped"
  exit 77
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$bin" "$subcommand" --jsonl "$corpus" >"$out"
python3 "$compare" "$corpus" "$out" --show 10
