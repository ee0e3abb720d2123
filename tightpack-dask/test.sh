#!/usr/bin/env bash
# tightpack-dask's own tests: build/dask-venv with the package (editable), distributed,
# dask-gateway and the test tools from PyPI, installed once per version of pyproject.toml.
# Arguments go to pytest (-k, -x, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=build/dask-venv
stamp=$venv/.pyproject-$(sha256sum tightpack-dask/pyproject.toml | cut -c1-16)
if [[ ! -f $stamp ]]; then
  echo "tightpack-dask: installing $venv"
  [[ -x $venv/bin/python ]] || python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  # distributed pinned to the release tests/clients' operator was read against (dask-retirement notes).
  "$venv/bin/python" -m pip install --quiet "distributed==2026.8.0" -e "tightpack-dask[test]"
  rm -f "$venv"/.pyproject-*
  touch "$stamp"
fi
cd tightpack-dask
exec ../$venv/bin/python -m pytest -q -p no:cacheprovider tests "$@"
