#!/usr/bin/env bash
# The real clients' pods (README.md): KubeSpawner, the dask-kubernetes operator and
# dask-gateway-server from PyPI make them; tightpack, kube-scheduler v1.37.2's framework and
# cluster-autoscaler's loop decide them. Needs build/release's tightpack and build/conformance's
# two references (tests/conformance/reference/build.sh, autoscaler-reference/build.sh).
# Arguments go to pytest (-k, -x, ...).
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=build/clients-venv
requirements=tests/clients/requirements.txt
stamp=$venv/.requirements-$(sha256sum "$requirements" | cut -c1-16)
if [[ ! -f $stamp ]]; then
  echo "clients: installing $venv from $requirements"
  [[ -x $venv/bin/python ]] || python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  "$venv/bin/python" -m pip install --quiet -r "$requirements"
  rm -f "$venv"/.requirements-*
  touch "$stamp"
fi
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider tests/clients "$@"
