#!/usr/bin/env bash
# Sets everything up and runs the main job: JupyterLab with the tightpack
# sidebar on the built-in demo cluster (a DaskHub on GKE), after showing the
# same questions answered by the `tightpack` command.
#   scripts/demo.sh              JupyterLab on http://127.0.0.1:8888 (PORT=… to change)
#   scripts/demo.sh --no-lab     only the command-line part
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
[[ ${1:-} == --no-lab ]] && exit 0

# The sidebar, installed the way a user installs it: the wheel into a fresh
# environment with JupyterLab from PyPI.
echo "== building the jupyterlab-tightpack wheel (the WebAssembly engine, the front end)"
scripts/build_labextension.sh
venv=build/venv-demo
[[ -x $venv/bin/jupyter ]] || { python3 -m venv $venv && $venv/bin/pip install --quiet "jupyterlab>=4.2,<5"; }
$venv/bin/pip install --quiet --force-reinstall --no-deps build/dist/jupyterlab_tightpack-*.whl
home=build/demo-home
mkdir -p $home
port=${PORT:-8888}
echo
echo "JupyterLab with the tightpack sidebar on the demo cluster: http://127.0.0.1:$port/lab?token=tightpack-demo"
echo "Click the tightpack icon in the left sidebar. The Dask configuration is examples/daskhub-gke/dask. Ctrl-C stops."
root=()
[[ $(id -u) == 0 ]] && root=(--allow-root)
DASK_CONFIG=$PWD/examples/daskhub-gke/dask TIGHTPACK_SNAPSHOT_URL= TIGHTPACK_SNAPSHOT_FILE= \
  exec $venv/bin/jupyter lab --no-browser --ip=127.0.0.1 --port="$port" \
  --IdentityProvider.token=tightpack-demo --ServerApp.root_dir="$PWD/$home" "${root[@]}"
