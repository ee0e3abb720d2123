#!/usr/bin/env bash
# Sets everything up and runs the main job on the built-in DaskHub demo cluster
# (examples/daskhub-demo): where do 8 Dask workers land under kube-scheduler's
# default profile (spreads) and under the zero-to-jupyterhub user-scheduler
# profile (packs), and why a second GPU notebook would stay Pending.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
scripts/build.sh release --target tightpack >/dev/null
tp=build/release/scheduler/tightpack
demo=examples/daskhub-demo

run() {
  echo "\$ tightpack $*"
  "$tp" "$@" || [[ $? == 3 ]]  # 3: some replicas fit nowhere, which the demo shows on purpose
  echo
}
run predict --cluster $demo/cluster.json --pod $demo/dask-worker.yaml --replicas 8 \
  --config config/default-scheduler.yaml
run predict --cluster $demo/cluster.json --pod $demo/dask-worker.yaml --replicas 8 \
  --config config/z2jh-user-scheduler.yaml
run predict --cluster $demo/cluster.json --pod $demo/gpu-notebook.yaml --replicas 2 \
  --config config/z2jh-user-scheduler.yaml
