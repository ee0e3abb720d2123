#!/usr/bin/env bash
# The sidebar's figures in bench/RESULTS.md: Chromium, JupyterLab from PyPI,
# the demo cluster scaled to 1,000 nodes.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build_labextension.sh >/dev/null
node labextension/ui-tests/bench.mjs "$@"
