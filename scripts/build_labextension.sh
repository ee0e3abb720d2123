#!/usr/bin/env bash
# Builds the wheel a user installs, jupyterlab_tightpack-*.whl in build/dist:
# the WebAssembly engine (wasm preset), the prebuilt JupyterLab extension
# (npm workspace labextension, webpack through `jupyter labextension build`)
# and the Python server extension.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
scripts/build.sh wasm >/dev/null
scripts/python_env.sh
export PATH="$PWD/build/venv/bin:$PATH"
(cd labextension && npm run build:prod >../build/labextension-build.log 2>&1) || {
  cat build/labextension-build.log
  echo "build_labextension: the front end did not build"
  exit 1
}
rm -rf build/dist
python -m pip wheel --quiet --no-deps --no-build-isolation -w build/dist ./labextension
ls build/dist/jupyterlab_tightpack-*.whl
