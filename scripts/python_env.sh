#!/usr/bin/env bash
# The Python environment that builds and tests the JupyterLab extension:
# build/venv with JupyterLab from PyPI, the wheel's build backend and the
# server extension's test dependencies. Reinstalled only when the
# requirements change.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=build/venv
requirements=(labextension/requirements-test.txt)
stamp=$venv/.requirements-$(cat "${requirements[@]}" | sha256sum | cut -c1-16)
if [[ ! -f $stamp ]]; then
  echo "python_env: installing $venv"
  [[ -x $venv/bin/python ]] || python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  "$venv/bin/python" -m pip install --quiet -r labextension/requirements-test.txt \
    "hatchling>=1.21" "hatch-nodejs-version>=0.3.2" "hatch-jupyter-builder>=0.5"
  rm -f "$venv"/.requirements-*
  touch "$stamp"
fi
