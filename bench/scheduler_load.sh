#!/usr/bin/env bash
# Load benchmark of the in-cluster scheduler (not part of CI): a fresh test control plane
# (etcd + kube-apiserver v1.37.2), 5,000 nodes, 10,000 pending pods of one spec created while
# no scheduler runs; then the scheduler starts and the time until every pod is bound and its
# peak RSS are measured. tightpack (config/tightpack.yaml) and the real kube-scheduler with
# zero-to-jupyterhub's user-scheduler configuration, each at the default client rate limits
# (qps 50, burst 100) and without a limit (qps -1). Prints a Markdown table.
#
#   bench/scheduler_load.sh                               # the full benchmark (10-20 minutes)
#   bench/scheduler_load.sh --nodes 500 --pods 1000       # smaller
#   bench/scheduler_load.sh --runs kube-scheduler-unlimited,tightpack-unlimited
#   bench/scheduler_load.sh --nodes 500 --pods 2000 --runs tightpack-unlimited,tightpack-polled
#
# Options: bench/scheduler_load.py --help. Logs and configs: build/scheduler-load/.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ! -x build/controlplane/kube-apiserver || ! -x build/controlplane/etcd || ! -x build/controlplane/kube-scheduler ]]; then
  tests/controlplane/build.sh
fi
[[ -x build/venv/bin/python ]] || bash scripts/python_env.sh
exec build/venv/bin/python bench/scheduler_load.py "$@"
