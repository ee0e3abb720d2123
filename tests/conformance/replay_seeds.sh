#!/usr/bin/env bash
# Replays each seed file through `tightpack replay` and checks that the output
# is one JSON document; any crash or sanitizer report fails the test.
set -euo pipefail
bin=$1 dir=$2
n=0
for f in "$dir"/*; do
  out=$("$bin" replay "$f")
  python3 -c 'import json,sys; json.loads(sys.argv[1])' "$out" || { echo "not JSON for $f: ${out:0:200}"; exit 1; }
  n=$((n + 1))
done
echo "$n seeds replayed"
