#!/usr/bin/env bash
# build/clients-venv: the real clients of tests/clients/requirements.txt (KubeSpawner, the
# dask-kubernetes operator with kopf, dask-gateway-server), installed once per version of
# that file. tests/clients and the scheduler suite (which runs the operator) use it.
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
