#!/usr/bin/env bash
# Records (or, with --check, verifies) tests/conformance/corpus-v1.37/: the
# shared corpus' scenarios answered by kube-scheduler v1.37.2
# (kube-scheduler-reference, with the engine's documented defect corrections,
# known/defects), stored as a patch on the 1.26 answers. --check fails when a
# fresh recording differs, or when the reference with every 1.26 behaviour put
# back (--compat all) no longer reproduces the shared corpus.
# Environment: REFERENCE (default build/conformance/kube-scheduler-reference),
# SHARED (default ../shared next to the clone).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ref=${REFERENCE:-$root/build/conformance/kube-scheduler-reference}
shared=${SHARED:-$root/../shared}
check=0
[[ ${1:-} == --check ]] && check=1
[[ -x $ref ]] || "$here/reference/build.sh"
defects=$(tr -d '[:space:]' <"$here/known/defects")
work=$(mktemp -d "${TMPDIR:-/tmp}/tightpack-corpus.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$here/corpus-v1.37"
status=0
for c in dev edge; do
  corpus=$shared/corpus/$c.jsonl
  [[ -f $corpus ]] || { echo "record_corpus: $corpus not found" >&2; exit 1; }
  "$ref" --jsonl --compat "$defects" "$corpus" >"$work/$c.ref"
  "$ref" --jsonl --compat all "$corpus" >"$work/$c.all"
  patch=$here/corpus-v1.37/$c.patch.jsonl
  if [[ $check -eq 1 ]]; then
    python3 "$here/corpus_current.py" check "$corpus" "$patch" "$work/$c.ref" "$work/$c.all" || status=1
  else
    python3 "$here/corpus_current.py" record "$corpus" "$work/$c.ref" "$work/$c.all" >"$work/$c.patch"
    mv "$work/$c.patch" "$patch"
    echo "record_corpus: $patch: $(wc -l <"$patch") of $(wc -l <"$corpus") scenarios changed since 1.26"
  fi
done
exit "$status"
