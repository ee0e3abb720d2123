#!/usr/bin/env bash
# The live cluster's tests (opt-in: not part of scripts/test.sh yet). Builds what is missing
# (the test control plane, kwok, cluster-autoscaler), then runs pytest on tests/live; extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$SECONDS
if ! (for b in etcd kube-apiserver kube-scheduler kube-controller-manager test-provisioner; do
  [[ -x build/controlplane/$b ]] || exit 1; done); then
  tests/controlplane/build.sh
fi
[[ -x build/live/kwok && -f build/live/stages.yaml && -x build/live/cluster-autoscaler ]] || tests/live/build.sh
if [[ ! -x build/venv/bin/python ]] || ! build/venv/bin/python -c 'import pytest' 2>/dev/null; then
  bash scripts/python_env.sh
fi
[[ -x build/release/scheduler/tightpack ]] || cmake --build --preset release --target tightpack
out=build/live-tests
mkdir -p "$out"
status=0
build/venv/bin/python -m pytest -p no:cacheprovider -v -s -rfE --junitxml="$out/junit.xml" \
  --basetemp="$out/tmp" tests/live "$@" || status=$?
echo "== live tests: exit $status in $((SECONDS - start)) s (logs: $out/tmp)"
exit $status
