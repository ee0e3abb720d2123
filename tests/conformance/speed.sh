#!/usr/bin/env bash
# Times kube-scheduler's framework (kube-scheduler-reference) against tightpack
# deciding the same pods on the same generated clusters.
#
#   tests/conformance/speed.sh [--replicas K] [--profile P] [--pod KIND]
#                              [--pods-per-node B] [--hub] [NODES...]   (default: 500 5000)
#
# Per cluster size: a cluster from `generate.py --big NODES` (four pools, B
# bound pods a node, 5 by default; with --hub, a DaskHub's: notebooks with
# zonal home claims, Dask operator workers each with its ReplicaSet, scheduler
# Services, node-placeholders with hostname anti-affinity, StorageClass,
# CSIDriver, a CSINode per node), and K pods of one KIND, scheduled one after
# another:
#   notebook        a notebook (1 cpu, 2 GiB, tolerating the user pool's taint,
#                   preferring user nodes); the default
#   home-claim      the same, in jhub, each with its own new home claim (10Gi,
#                   WaitForFirstConsumer, provisioned by the CSI driver)
#   operator-worker a dask-kubernetes operator worker of cluster dc0, each its
#                   own one-replica ReplicaSet: PodTopologySpread's system
#                   defaults apply
#   anti-affinity   a node-placeholder (required hostname anti-affinity with the
#                   others, priority -10)
#   spread          K replicas of a Dask worker template with a zone
#                   DoNotSchedule constraint (maxSkew 1) and a hostname
#                   ScheduleAnyway one: every placement moves the domain
#                   counts. tightpack places them as `predict --replicas` does
#                   (one plan, incremental); its figure is the mean time a copy
# Figures:
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
# Decoding and output are outside every figure.
# Environment: REFERENCE, DECISIONS (build/release/bench/tightpack_decision_timings).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ref=${REFERENCE:-$root/build/conformance/kube-scheduler-reference}
decisions=${DECISIONS:-$root/build/release/bench/tightpack_decision_timings}
replicas=100 profile=most-allocated sizes=() kind=notebook per_node=5 hub=
while [[ $# -gt 0 ]]; do
  case $1 in
    --replicas) replicas=$2; shift 2 ;;
    --profile) profile=$2; shift 2 ;;
    --pod) kind=$2; shift 2 ;;
    --pods-per-node) per_node=$2; shift 2 ;;
    --hub) hub=1; shift ;;
    -h|--help) sed -n '2,39p' "$0"; exit 0 ;;
    *) sizes+=("$1"); shift ;;
  esac
done
case $kind in
  notebook | home-claim | operator-worker | anti-affinity | spread) ;;
  *) echo "speed.sh: unknown --pod $kind" >&2; exit 2 ;;
esac
[[ ${#sizes[@]} -gt 0 ]] || sizes=(500 5000)
[[ -x $ref ]] || "$here/reference/build.sh"
[[ -x $decisions ]] || { echo "speed.sh: no $decisions (cmake --build build/release --target tightpack_decision_timings)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tightpack-speed.XXXXXX")
trap 'rm -rf "$work"' EXIT
engine_mode=
[[ $kind == spread ]] && engine_mode=--replicas

echo "pods: $kind; bound pods a node: $per_node${hub:+; with the objects of a DaskHub}"
printf '%-6s %-15s %20s %20s %20s %14s %14s\n' nodes profile "reference every node" "reference sampling" "tightpack decision" "ratio (every)" "ratio (sampl.)"
for n in "${sizes[@]}"; do
  python3 "$here/generate/generate.py" --seed speed --big "$n" --empty --pods-per-node "$per_node" ${hub:+--hub} \
    -o "$work/cluster.jsonl"
  python3 "$here/speed_pods.py" "$work/cluster.jsonl" "$profile" "$replicas" "$kind" >"$work/many.json"
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
  "$decisions" $engine_mode "$work/many.json" >/dev/null  # warm-up
  "$decisions" $engine_mode "$work/many.json" "$work/d.tsv"
  decision=$(stats "$work/d.tsv")
  ratio_every=$(python3 -c "print(f'{$(median "$work/t.tsv") / $(median "$work/d.tsv"):.1f}x')")
  ratio_sampled=$(python3 -c "print(f'{$(median "$work/s.tsv") / $(median "$work/d.tsv"):.1f}x')")
  printf '%-6s %-15s %20s %20s %20s %14s %14s\n' "$n" "$profile" "$every" "$sampled" "$decision" "$ratio_every" "$ratio_sampled"
done
echo "(median / mean per pod over $replicas pods; reference: kube-scheduler's parallelism 16; tightpack: single thread; $(nproc) cores)"
