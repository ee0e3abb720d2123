#!/usr/bin/env bash
# build/clients-venv: the real clients of tests/clients/requirements.txt (KubeSpawner, the
# dask-kubernetes operator with kopf, dask-gateway-server), installed once per version of
# that file. tests/clients and the scheduler suite (which runs the operator) use it.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec scripts/venv.sh build/clients-venv tests/clients/requirements.txt clients
