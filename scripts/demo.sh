#!/usr/bin/env bash
# Sets everything up and runs the main job: JupyterLab with the tightpack
# sidebar on the built-in demo cluster (a DaskHub on GKE), after showing the
# same cluster's questions answered by the `tightpack` command.
#   scripts/demo.sh              JupyterLab on http://127.0.0.1:8888 (PORT=… to change)
#   scripts/demo.sh --no-lab     only the command-line part
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '\n== %s\n' "$*"; }

say "installing what is missing (Debian packages, npm workspaces; once)"
scripts/bootstrap.sh
say "building the tightpack command (the first time takes about 5 minutes on 2 cores)"
mkdir -p build
scripts/build.sh release --target tightpack >build/demo-build.log 2>&1 || {
  cat build/demo-build.log
  echo "demo: the build failed (log above)"
  exit 1
}
tp=build/release/scheduler/tightpack
# The sidebar's demo cluster: examples/daskhub-gke a month later (home-disk/README.md).
gke=examples/daskhub-gke
pools=$gke/home-disk/pools.yaml

run() {
  echo "\$ tightpack $*"
  "$tp" "$@" || [[ $? == 3 ]]  # 3: some replicas never run, which the demo shows on purpose
  echo
}
say "the demo cluster (5 nodes) from the command line"
run predict --cluster $gke/cluster.json --pools $pools --pod $gke/dask-worker.yaml \
  --replicas 12 --scheduler-name tightpack
run forecast --cluster $gke/cluster.json --pools $pools --remove dask.org/cluster-name=dask-3f2a
run advise --cluster $gke/cluster.json --pools $pools --pod $gke/big-worker.yaml \
  --replicas 40 --scheduler-name tightpack
[[ ${1:-} == --no-lab ]] && exit 0

# The sidebar, installed the way a user installs it: the wheel into a fresh
# environment with JupyterLab (and the Dask client the docs use) from PyPI.
say "building the jupyterlab-tightpack wheel (the WebAssembly engine, the front end; the first time about 4 minutes)"
scripts/build_labextension.sh >build/demo-wheel.log 2>&1 || {
  cat build/demo-wheel.log
  echo "demo: the wheel did not build (log above)"
  exit 1
}
venv=build/venv-demo
if [[ ! -x $venv/bin/jupyter || scripts/demo-requirements.txt -nt $venv/bin/jupyter ]]; then
  say "installing JupyterLab and dask-kubernetes from PyPI into $venv"
  python3 -m venv $venv
  $venv/bin/pip install --quiet -r scripts/demo-requirements.txt
fi
$venv/bin/pip install --quiet --force-reinstall --no-deps build/dist/jupyterlab_tightpack-*.whl
home=build/demo-home
mkdir -p $home
# The starter notebook, once: the user's copy is hers to change.
[[ -f $home/tightpack-starter.ipynb ]] || cp examples/notebook/tightpack-starter.ipynb $home/
port=${PORT:-8888}
say "JupyterLab with the tightpack sidebar on the demo cluster: http://127.0.0.1:$port/lab/tree/tightpack-starter.ipynb?token=tightpack-demo"
echo "Click the tightpack icon in the left sidebar; run the starter notebook top to bottom."
echo "The Dask configuration is examples/daskhub-gke/dask. Ctrl-C stops."
root=()
[[ $(id -u) == 0 ]] && root=(--allow-root)
DASK_CONFIG=$PWD/examples/daskhub-gke/dask TIGHTPACK_SNAPSHOT_URL= TIGHTPACK_SNAPSHOT_FILE= \
  exec $venv/bin/jupyter lab --no-browser --ip=127.0.0.1 --port="$port" \
  --IdentityProvider.token=tightpack-demo --ServerApp.root_dir="$PWD/$home" "${root[@]}"
