#!/usr/bin/env bash
# End-to-end tests of `tightpack schedule` (docs/scheduler.md) on the test control plane
# (etcd, kube-apiserver and kube-controller-manager v1.37.2 from Go modules), with the real kube-scheduler as the
# reference where both can run the same test.
#
#   tests/scheduler/run.sh                  # the whole suite (about 2 minutes on 2 vCPUs)
#   tests/scheduler/run.sh -k placeholders  # extra arguments go to pytest
#
# TIGHTPACK=path overrides build/release/scheduler/tightpack. Tests that need
# `tightpack schedule` fail (they do not skip) while the binary lacks the command.
# A JUnit report is written to build/scheduler-tests/junit.xml; exits non-zero on failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$SECONDS
if ! (for b in etcd kube-apiserver kube-scheduler kube-controller-manager test-provisioner; do
  [[ -x build/controlplane/$b ]] || exit 1; done); then
  echo "== build: the test control plane (tests/controlplane/build.sh)"
  tests/controlplane/build.sh
fi
if [[ ! -x build/venv/bin/python ]] || ! build/venv/bin/python -c 'import pytest' 2>/dev/null; then
  bash scripts/python_env.sh
fi
# The dask-kubernetes operator (test_dask_operator.py) runs from the real clients' environment.
bash tests/clients/venv.sh
out=build/scheduler-tests
mkdir -p "$out"
status=0
build/venv/bin/python -m pytest -p no:cacheprovider -v -s -rfE --durations=10 \
  --junitxml="$out/junit.xml" --basetemp="$out/tmp" tests/scheduler "$@" || status=$?
echo "== scheduler suite: exit $status in $((SECONDS - start)) s (JUnit: $out/junit.xml, logs: $out/tmp)"
exit $status
