#!/usr/bin/env bash
# Differential conformance for the autoscaler: `tightpack autoscale` against
# cluster-autoscaler's own loop (cluster-autoscaler-reference, StaticAutoscaler
# at the commit pinned in autoscaler-reference/go.mod) on generated DaskHub
# pool scenarios (generate/generate_autoscale.py).
#
#   tests/conformance/differential_autoscale.sh [--count N] [--seed FIXED] [--rotating-seed S]
#                                               [--chunk N] [--allow-known] [--out DIR]
#                                               [--no-volumes] [--no-spread] [--no-affinity]
#                                               [--no-pod-requests]
#
# The scenarios carry a DaskHub's storage (generate_autoscale.py --volumes),
# explicit spread constraints (--spread), inter-pod affinity (--affinity) and
# init containers, sidecars and overheads (--pod-requests) unless
# --no-volumes, --no-spread, --no-affinity or --no-pod-requests is given; each pass has
# its own random stream, so the nodes, pods and groups are the same either way.
#
# Half the scenarios come from a fixed seed, half from a rotating one (the
# UTC date unless given), both printed: scenario gen-autoscale-SEED-I is made again by
#   tests/conformance/generate/generate_autoscale.py --seed SEED --start I --count 1 --volumes --spread --affinity --pod-requests
# Both programs read the same file, one process each for all its lines.
# autoscale_judge.py compares what the corpus' compare.py compares and sorts
# each disagreement: *random* (cluster-autoscaler itself answers differently
# from run to run, and tightpack gives one of its answers), *node-order* (the
# reference gives tightpack's answer once its node list has the scenario's
# order, --compat ordered: CA's round-robin walks a Go-map order its runs did
# not happen to take), *known* (an engine difference listed in
# known-autoscale/ and docs/autoscaler.md; none today), or *unexplained*. Unexplained ones are written to DIR
# (build/conformance/disagreements-autoscale) as <id>.json, five of each
# other class under DIR/<class>/: corpus lines that both programs replay
# (`tightpack autoscale FILE`, `cluster-autoscaler-reference FILE`) and that
# ../shared/autoscaler/compare.py judges.
#
# Exit status: 0 every scenario agrees; 1 a disagreement or a failure (with
# --allow-known, only an unexplained disagreement or a failure).
# Environment: TIGHTPACK (default build/release/scheduler/tightpack),
# REFERENCE (default build/conformance/cluster-autoscaler-reference, built by
# tests/conformance/autoscaler-reference/build.sh when missing).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
count=1000 fixed=tightpack-1 rotating=$(date -u +%Y%m%d) chunk=2000 allow_known=0 volumes=1 spread=1 affinity=1 pod_requests=1
out=$root/build/conformance/disagreements-autoscale
while [[ $# -gt 0 ]]; do
  case $1 in
    --count) count=$2; shift 2 ;;
    --seed) fixed=$2; shift 2 ;;
    --rotating-seed) rotating=$2; shift 2 ;;
    --chunk) chunk=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --allow-known) allow_known=1; shift ;;
    --no-volumes) volumes=; shift ;;
    --no-spread) spread=; shift ;;
    --no-affinity) affinity=; shift ;;
    --no-pod-requests) pod_requests=; shift ;;
    -h|--help) sed -n '2,38p' "$0"; exit 0 ;;
    *) echo "differential_autoscale.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
tp=${TIGHTPACK:-$root/build/release/scheduler/tightpack}
ref=${REFERENCE:-$root/build/conformance/cluster-autoscaler-reference}
[[ -x $tp ]] || { echo "differential_autoscale.sh: no tightpack at $tp" >&2; exit 1; }
[[ -x $ref ]] || "$here/autoscaler-reference/build.sh"
gen=$here/generate/generate_autoscale.py
judge=$here/autoscale_judge.py
work=$(mktemp -d "${TMPDIR:-/tmp}/tightpack-differential-autoscale.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
find "$out" -mindepth 1 -delete # only what this run writes
start=$SECONDS
echo "differential-autoscale: $count scenarios, fixed seed $fixed, rotating seed $rotating, passes:${volumes:+ volumes}${spread:+ spread}${affinity:+ affinity}${pod_requests:+ pod-requests}; $("$ref" --version 2>/dev/null || echo "cluster-autoscaler-reference: version unknown"); disagreements in $out"

half=$((count / 2))
n=0
failed=0
for seed in "$fixed" "$rotating"; do
  todo=$half
  [[ $seed == "$rotating" ]] && todo=$((count - half))
  at=0
  while [[ $at -lt $todo ]]; do
    size=$((todo - at < chunk ? todo - at : chunk))
    python3 "$gen" --seed "$seed" --start "$at" --count "$size" ${volumes:+--volumes} ${spread:+--spread} \
      ${affinity:+--affinity} ${pod_requests:+--pod-requests} -o "$work/batch.jsonl"
    "$ref" --jsonl "$work/batch.jsonl" >"$work/b$n.ref" &
    p=$!
    "$tp" autoscale --jsonl "$work/batch.jsonl" >"$work/b$n.tp" || true
    wait "$p" || true
    python3 "$judge" "$work/batch.jsonl" "$work/b$n.tp" "$work/b$n.ref" --ref "$ref" --out "$out" \
      --counts "$work/b$n.counts" || failed=1
    at=$((at + size))
    n=$((n + 1))
  done
done

# The engine differences found so far (known-autoscale/*.json), judged
# against the reference: each scenario must still show its class; one that
# agrees now is reported resolved, and its file and its paragraph in
# docs/autoscaler.md can go.
for f in "$here"/known-autoscale/*.json; do
  [[ -e $f ]] || continue
  python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))))' "$f" >"$work/known.jsonl"
  "$ref" --jsonl "$work/known.jsonl" >"$work/known.ref" || true
  "$tp" autoscale --jsonl "$work/known.jsonl" >"$work/known.tp" || true
  python3 - "$work/known.jsonl" "$work/known.tp" "$work/known.ref" "$here" <<'EOF' || failed=1
import json, sys
sys.path.insert(0, sys.argv[4])
from autoscale_judge import first_difference, view
scen, tp, ref = (json.loads(open(f).read()) for f in sys.argv[1:4])
d = first_difference(view(ref), view(tp))
cls = scen["meta"]["class"]
print(f"known-autoscale {cls}: " + (f"still differs, as documented ({d[:160]})" if d else
                                    "RESOLVED: tightpack now decides as cluster-autoscaler does"))
EOF
done

python3 - "$work" "$count" $((SECONDS - start)) "$allow_known" "$failed" <<'EOF'
import glob, json, sys
work, count, secs, allow_known, failed = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4] == "1", sys.argv[5] == "1"
tot = {"scenarios": 0, "agree": 0, "failed": 0, "random": 0, "node_order": 0, "unexplained": 0, "known": {}}
for f in glob.glob(work + "/*.counts"):
    c = json.load(open(f))
    for k in ("scenarios", "agree", "failed", "random", "node_order", "unexplained"):
        tot[k] += c[k]
    for k, v in c["known"].items():
        tot["known"][k] = tot["known"].get(k, 0) + v
known = sum(tot["known"].values())
disagree = tot["scenarios"] - tot["agree"]
detail = ", ".join(f"{v} {k}" for k, v in sorted(tot["known"].items())) or "none"
print(f"differential-autoscale: of the disagreements, {tot['random']} random in cluster-autoscaler "
      f"(tightpack gave one of its answers), {tot['node_order']} node-order (cluster-autoscaler's answer "
      f"for the scenario's node order), {known} known engine differences ({detail}), "
      f"{tot['unexplained']} unexplained, {tot['failed']} failed")
print(f"differential-autoscale: {tot['scenarios']} scenarios, {tot['agree']} agree, {disagree} disagree, in {secs} s")
bad = tot["unexplained"] + tot["failed"] + (0 if allow_known else known + tot["random"] + tot["node_order"])
sys.exit(1 if bad or failed or tot["scenarios"] != count else 0)
EOF
