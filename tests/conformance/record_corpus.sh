#!/usr/bin/env bash
# Records (or, with --check, verifies) the shared corpora's answers as the
# current releases give them, stored as patches on the 1.26 answers:
#   corpus-v1.37/{dev,edge}.patch.jsonl  kube-scheduler v1.37.2
#       (kube-scheduler-reference, with the engine's documented defect
#       corrections, known/defects)
#   corpus-ca-master/dev.patch.jsonl     cluster-autoscaler master 2026-04-23
#       (cluster-autoscaler-reference, autoscaler-reference/go.mod)
# --check fails when a fresh recording differs, or when a reference with every
# 1.26 behaviour put back (--compat all) no longer reproduces its shared corpus.
#
#   record_corpus.sh [--check] [scheduler|autoscaler]   (both by default)
#
# Environment: REFERENCE (default build/conformance/kube-scheduler-reference),
# CA_REFERENCE (default build/conformance/cluster-autoscaler-reference), each
# built when missing; SHARED (default ../shared next to the clone).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ref=${REFERENCE:-$root/build/conformance/kube-scheduler-reference}
ca_ref=${CA_REFERENCE:-$root/build/conformance/cluster-autoscaler-reference}
shared=${SHARED:-$root/../shared}
check=0 which=both
for a in "$@"; do
  case $a in
    --check) check=1 ;;
    scheduler|autoscaler) which=$a ;;
    *) echo "record_corpus.sh: unknown argument $a" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d "${TMPDIR:-/tmp}/tightpack-corpus.XXXXXX")
trap 'rm -rf "$work"' EXIT
status=0

# record_or_check CORPUS PATCH REF_OUT COMPAT_OUT
record_or_check() {
  local corpus=$1 patch=$2
  if [[ $check -eq 1 ]]; then
    python3 "$here/corpus_current.py" check "$corpus" "$patch" "$3" "$4" || status=1
  else
    # The previous patch keeps the answers of random lines met before.
    python3 "$here/corpus_current.py" record "$corpus" "$3" "$4" "$patch" >"$work/patch"
    mkdir -p "$(dirname "$patch")"
    mv "$work/patch" "$patch"
    echo "record_corpus: $patch: $(wc -l <"$patch") of $(wc -l <"$corpus") scenarios changed since 1.26"
  fi
}

if [[ $which != autoscaler ]]; then
  [[ -x $ref ]] || "$here/reference/build.sh"
  defects=$(tr -d '[:space:]' <"$here/known/defects")
  for c in dev edge; do
    corpus=$shared/corpus/$c.jsonl
    [[ -f $corpus ]] || { echo "record_corpus: $corpus not found" >&2; exit 1; }
    "$ref" --jsonl --compat "$defects" "$corpus" >"$work/$c.ref"
    "$ref" --jsonl --compat all "$corpus" >"$work/$c.all"
    record_or_check "$corpus" "$here/corpus-v1.37/$c.patch.jsonl" "$work/$c.ref" "$work/$c.all"
  done
fi

if [[ $which != scheduler ]]; then
  [[ -x $ca_ref ]] || "$here/autoscaler-reference/build.sh"
  corpus=$shared/autoscaler/dev.jsonl
  [[ -f $corpus ]] || { echo "record_corpus: $corpus not found" >&2; exit 1; }
  # Ten processes: Go's map order, which cluster-autoscaler's answer
  # sometimes depends on, is drawn per process.
  for i in 1 2 3 4 5 6 7 8 9 10; do "$ca_ref" --jsonl "$corpus" >"$work/ca.ref.$i"; done
  "$ca_ref" --jsonl --compat all "$corpus" >"$work/ca.all"
  for s in estimate-beyond-max independent-scale-down system-pods-always-block threshold-inclusive; do
    "$ca_ref" --jsonl --compat "$s" "$corpus" >"$work/ca.ref.$s"
  done
  record_or_check "$corpus" "$here/corpus-ca-master/dev.patch.jsonl" "$work/ca.ref" "$work/ca.all"
fi
exit "$status"
