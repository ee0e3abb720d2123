#!/usr/bin/env bash
# Runs one corpus file through `tightpack SUBCOMMAND --jsonl` (replay or
# autoscale) and judges the output with the corpus's own compare.py; with a
# PATCH (corpus-v1.37/*.patch.jsonl), against the corpus' answers as the
# current release gives them (corpus_current.py).
# Exit 77 (skipped) when the corpus is absent.
#   run_corpus.sh SUBCOMMAND BIN CORPUS COMPARE [PATCH]
set -euo pipefail
subcommand=$1 bin=$2 corpus=$3 compare=$4 patch=${5:-}
if [[ ! -f $corpus || ! -f $compare ]]; then
  echo "corpus $corpus not found: skipped"
  exit 77
fi
out=$(mktemp)
expected=$(mktemp)
trap 'rm -f "$out" "$expected"' EXIT
if [[ -n $patch ]]; then
  python3 "$(dirname "$0")/corpus_current.py" apply "$corpus" "$patch" "$expected"
else
  cp "$corpus" "$expected"
fi
"$bin" "$subcommand" --jsonl "$corpus" >"$out"
python3 "$compare" "$expected" "$out" --show 10
