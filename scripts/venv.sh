#!/usr/bin/env bash
# A Python virtual environment installed from one requirements file, again only
# when that file changes (a stamp of its hash in the environment).
#   scripts/venv.sh DIR REQUIREMENTS [NAME]   # NAME prefixes the one line it prints
# Used by tests/clients/venv.sh (the real clients) and scripts/lint.sh (ruff).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=$1 requirements=$2 name=${3:-venv}
stamp=$venv/.requirements-$(sha256sum "$requirements" | cut -c1-16)
if [[ ! -f $stamp ]]; then
  echo "$name: installing $venv from $requirements"
  [[ -x $venv/bin/python ]] || python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  "$venv/bin/python" -m pip install --quiet -r "$requirements"
  rm -f "$venv"/.requirements-*
  touch "$stamp"
fi
