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
#   tightpack predict       (time for C copies - time for 1) / (C - 1), C = as many
#                           copies as fit (at most 20000): the
#                           engine's per-copy decision for replicas of one
#                           template (its incremental path), every node checked
#   tightpack replay        (time for K separate pods - time for 1) / (K - 1):
#                           a decision from scratch for each pod, and writing
#                           every node's verdict and scores for it
# Decoding and output are outside the reference's figure; the tightpack figures
# subtract the one-copy run, so decoding the cluster is outside them too.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tp=${TIGHTPACK:-$root/build/release/scheduler/tightpack}
ref=${REFERENCE:-$root/build/conformance/kube-scheduler-reference}
replicas=100 profile=most-allocated sizes=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --replicas) replicas=$2; shift 2 ;;
    --profile) profile=$2; shift 2 ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    *) sizes+=("$1"); shift ;;
  esac
done
[[ ${#sizes[@]} -gt 0 ]] || sizes=(500 5000)
[[ -x $ref ]] || "$here/reference/build.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/tightpack-speed.XXXXXX")
trap 'rm -rf "$work"' EXIT

now() { date +%s%N; }
printf '%-7s %-9s %22s %22s %20s %16s\n' nodes profile "reference every node" "reference sampling" "tightpack predict" "tightpack replay"
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
json.dump({"nodes": big["nodes"], "pods": big["pods"]}, open(f"{work}/cluster.json", "w"))
json.dump(pod, open(f"{work}/pod.json", "w"))
for name, count in (("one", 1), ("many", k)):
    json.dump({"profile": profile, "nodes": big["nodes"], "pods": big["pods"], "incoming": [dict(pod, replicas=count)]},
              open(f"{work}/{name}.json", "w"))
# the same K pods as K separate pods (no replica shortcut), for tightpack replay
distinct = [json.loads(json.dumps(pod)) for _ in range(k)]
for i, p in enumerate(distinct):
    p["metadata"]["name"] = f"jupyter-user-{i}"
json.dump({"profile": profile, "nodes": big["nodes"], "pods": big["pods"], "incoming": distinct}, open(f"{work}/distinct.json", "w"))
EOF
  stats() { python3 -c '
import sys, statistics
v = [int(l.split("\t")[3]) / 1e6 for l in open(sys.argv[1])]
print(f"{statistics.median(v):.2f} / {statistics.mean(v):.2f} ms")' "$1"; }
  rm -f "$work/t.tsv" "$work/s.tsv"
  "$ref" --timings "$work/t.tsv" "$work/many.json" >/dev/null
  every=$(stats "$work/t.tsv")
  "$ref" --percentage-of-nodes-to-score 0 --timings "$work/s.tsv" "$work/many.json" >/dev/null
  sampled=$(stats "$work/s.tsv")
  # best of five, each side
  best() { local b=; for _ in 1 2 3 4 5; do local t0; t0=$(now); "$@" >/dev/null || true; local d=$(($(now) - t0)); [[ -z $b || $d -lt $b ]] && b=$d; done; echo "$b"; }
  # as many copies as fit (at most 20000), so that every one is a placement
  copies=$( ("$tp" predict --cluster "$work/cluster.json" --pod "$work/pod.json" --replicas 20000 --scheduler-name "$profile" \
    --output json || true) | python3 -c 'import json,sys; print(max(2, json.load(sys.stdin)["placed"]))')
  p1=$(best "$tp" predict --cluster "$work/cluster.json" --pod "$work/pod.json" --replicas 1 --scheduler-name "$profile")
  pk=$(best "$tp" predict --cluster "$work/cluster.json" --pod "$work/pod.json" --replicas "$copies" --scheduler-name "$profile")
  predict=$(python3 -c "print(f'{max(0, $pk - $p1) / 1e3 / ($copies - 1):.1f} us ({$copies})')")
  r1=$(best "$tp" replay "$work/one.json")
  rk=$(best "$tp" replay "$work/distinct.json")
  replay=$(python3 -c "print(f'{max(0, $rk - $r1) / 1e6 / ($replicas - 1):.3f} ms')")
  printf '%-7s %-9s %22s %22s %20s %16s\n' "$n" "$profile" "$every" "$sampled" "$predict" "$replay"
done
echo "(reference: median / mean per pod, kube-scheduler's parallelism 16; tightpack: per copy, single thread; $replicas copies; $(nproc) cores)"
