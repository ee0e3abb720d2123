#!/usr/bin/env bash
# Runs one corpus file through `tightpack SUBCOMMAND --jsonl` (replay or
# autoscale) and judges the output with the corpus's own compare.py; with a
# PATCH (corpus-v1.37/ or corpus-ca-master/*.patch.jsonl), against the corpus'
# answers as the current release gives them (corpus_current.py; where
# cluster-autoscaler's answer is random, any of its answers). With KNOWN (a
# file of `line N CLASS` rows), those lines must fail and the rest pass: the
# engine differences docs/autoscaler.md lists; a known line that passes is
# reported resolved and fails the run until the file loses it.
# Exit 77 (skipped) when the corpus is absent.
#   run_corpus.sh SUBCOMMAND BIN CORPUS COMPARE [PATCH [KNOWN]]
set -euo pipefail
subcommand=$1 bin=$2 corpus=$3 compare=$4 patch=${5:-} known=${6:-}
if [[ ! -f $corpus || ! -f $compare ]]; then
  echo "corpus $corpus not found: skipped"
  exit 77
fi
out=$(mktemp)
expected=$(mktemp)
verdict=$(mktemp)
trap 'rm -f "$out" "$expected" "$verdict"' EXIT
"$bin" "$subcommand" --jsonl "$corpus" >"$out"
if [[ -n $patch ]]; then
  python3 "$(dirname "$0")/corpus_current.py" apply "$corpus" "$patch" "$expected" "$out"
else
  cp "$corpus" "$expected"
fi
if [[ -z $known ]]; then
  exec python3 "$compare" "$expected" "$out" --show 10
fi
python3 "$compare" "$expected" "$out" --show 1000 >"$verdict" || true
python3 - "$verdict" "$known" <<'PY'
import re, sys
failed = {int(m.group(1)): l.strip() for l in open(sys.argv[1]) if (m := re.match(r"FAIL line (\d+)", l))}
known = {}
for row in open(sys.argv[2]):
    row = row.split("#")[0].split()
    if row:
        known[int(row[1])] = row[2]
bad = 0
for n, l in sorted(failed.items()):
    if n in known:
        print(f"known ({known[n]}): {l}")
    else:
        print(l)
        bad += 1
for n in sorted(set(known) - set(failed)):
    print(f"RESOLVED line {n} ({known[n]}): the engine now agrees; remove it from {sys.argv[2]}")
    bad += 1
print(f"{len(failed) - len(set(failed) & set(known))} unexplained, {len(set(failed) & set(known))} known engine differences")
sys.exit(1 if bad else 0)
PY
