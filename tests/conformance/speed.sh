#!/usr/bin/env bash
# Times kube-scheduler's framework (kube-scheduler-reference) against tightpack
# deciding the same pods on the same generated clusters.
#
#   tests/conformance/speed.sh [--replicas K] [--profile P] [NODES...]   (default: 500 5000)
#
# Per cluster size: a cluster from `generate.py --big NODES` (four pools, five
# bound pods a node), and K copies of one notebook pod (1 cpu, 2 GiB, tolerating
# the user pool's taint, preferring user nodes), scheduled one after another.
#   reference, every node   kube-scheduler-reference's per-pod decision time
#                           (PreFilter, Filter on every node, PreScore, Score,
#                           selection; --timings), median and mean
#   reference, sampling     the same with kube-scheduler's default
#                           percentageOfNodesToScore (adaptive: 50% - nodes/125, at least 5%)
#   tightpack decision      the engine's per-pod decision time on the same pods,
#                           measured the same way (bench/decision_timings.cpp:
#                           the pod's plan and the decision, every node checked,
#                           single thread), median and mean
#   ratios                  reference median / tightpack median, both ways of the reference
# Decoding and output are outside every figure. (Replicas of one template take
# the engine's incremental path, a few microseconds a copy: bench/RESULTS.md,
# "N replicas of one template".)
# Environment: REFERENCE, DECISIONS (build/release/bench/tightpack_decision_timings).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ref=${REFERENCE:-$root/build/conformance/kube-scheduler-reference}
decisions=${DECISIONS:-$root/build/release/bench/tightpack_decision_timings}
replicas=100 profile=most-allocated sizes=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --replicas) replicas=$2; shift 2 ;;
    --profile) profile=$2; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) sizes+=("$1"); shift ;;
  esac
done
[[ ${#sizes[@]} -gt 0 ]] || sizes=(500 5000)
[[ -x $ref ]] || "$here/reference/build.sh"
[[ -x $decisions ]] || { echo "speed.sh: no $decisions (cmake --build build/release --target tightpack_decision_timings)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tightpack-speed.XXXXXX")
trap 'rm -rf "$work"' EXIT

printf '%-6s %-15s %20s %20s %20s %14s %14s\n' nodes profile "reference every node" "reference sampling" "tightpack decision" "ratio (every)" "ratio (sampl.)"
for n in "${sizes[@]}"; do
  python3 "$here/generate/generate.py" --seed speed --big "$n" --empty -o "$work/cluster.jsonl"
  python3 - "$work" "$profile" "$replicas" <<'EOF'
import json, sys
work, profile, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
big = json.loads(open(f"{work}/cluster.jsonl").read())["scenario"]
pod = {"metadata": {"name": "jupyter-user", "namespace": "jhub", "labels": {"component": "singleuser-server"}},
       "spec": {"containers": [{"name": "notebook", "image": "jupyter/scipy-notebook:2024-05-01",
                                "resources": {"requests": {"cpu": "1", "memory": "2Gi"}}}],
                "tolerations": [{"key": "hub.jupyter.org/dedicated", "operator": "Equal", "value": "user", "effect": "NoSchedule"}],
                "affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 100, "preference": {"matchExpressions": [{"key": "hub.jupyter.org/node-purpose", "operator": "In", "values": ["user"]}]}}]}}}}
json.dump({"profile": profile, "nodes": big["nodes"], "pods": big["pods"], "incoming": [dict(pod, replicas=k)]},
          open(f"{work}/many.json", "w"))
EOF
  stats() { python3 -c '
import sys, statistics
v = [int(l.split("\t")[3]) / 1e6 for l in open(sys.argv[1])]
print(f"{statistics.median(v):.3f} / {statistics.mean(v):.3f} ms")' "$1"; }
  median() { python3 -c '
import sys, statistics
print(statistics.median(int(l.split("\t")[3]) for l in open(sys.argv[1])))' "$1"; }
  rm -f "$work/t.tsv" "$work/s.tsv" "$work/d.tsv"
  "$ref" --timings "$work/t.tsv" "$work/many.json" >/dev/null
  every=$(stats "$work/t.tsv")
  "$ref" --percentage-of-nodes-to-score 0 --timings "$work/s.tsv" "$work/many.json" >/dev/null
  sampled=$(stats "$work/s.tsv")
  "$decisions" "$work/many.json" >/dev/null  # warm-up
  "$decisions" "$work/many.json" "$work/d.tsv"
  decision=$(stats "$work/d.tsv")
  ratio_every=$(python3 -c "print(f'{$(median "$work/t.tsv") / $(median "$work/d.tsv"):.1f}x')")
  ratio_sampled=$(python3 -c "print(f'{$(median "$work/s.tsv") / $(median "$work/d.tsv"):.1f}x')")
  printf '%-6s %-15s %20s %20s %20s %14s %14s\n' "$n" "$profile" "$every" "$sampled" "$decision" "$ratio_every" "$ratio_sampled"
done
echo "(median / mean per pod over $replicas pods; reference: kube-scheduler's parallelism 16; tightpack: single thread; $(nproc) cores)"
