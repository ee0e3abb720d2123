#!/usr/bin/env bash
# The real clients' pods (README.md): KubeSpawner, the dask-kubernetes operator and
# dask-gateway-server from PyPI make them; tightpack, kube-scheduler v1.37.2's framework and
# cluster-autoscaler's loop decide them. Needs build/release's tightpack and build/conformance's
# two references (tests/conformance/reference/build.sh, autoscaler-reference/build.sh).
# Arguments go to pytest (-k, -x, ...).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tests/clients/venv.sh
exec build/clients-venv/bin/python -m pytest -q -p no:cacheprovider tests/clients "$@"
