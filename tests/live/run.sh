#!/usr/bin/env bash
# The live cluster (tests/live/README.md). Builds what is missing (the test control plane, kwok,
# cluster-autoscaler, tightpack), then either
#   tests/live/run.sh [PYTEST ARGS]          its tests (scripts/test.sh runs them)
#   tests/live/run.sh --scheduler default|z2jh|tightpack|all [--day SEED] [runs.py options]
#                                            the runs of bench/RESULTS.md: the seed, or with
#                                            --day SEED bench/daskhub_day.cpp's day for SEED
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$SECONDS
if ! (for b in etcd kube-apiserver kube-scheduler kube-controller-manager test-provisioner; do
  [[ -x build/controlplane/$b ]] || exit 1; done); then
  tests/controlplane/build.sh
fi
tests/live/build.sh  # seconds when built: its stages follow build.sh
if [[ ! -x build/venv/bin/python ]] || ! build/venv/bin/python -c 'import pytest' 2>/dev/null; then
  bash scripts/python_env.sh
fi
[[ -x build/release/scheduler/tightpack && -x build/release/bench/tightpack_daskhub_day ]] ||
  cmake --build --preset release --target tightpack tightpack_daskhub_day
if [[ ${1:-} == --scheduler || ${1:-} == --day ]]; then
  args=()
  while (($#)); do
    case $1 in
      --day) args+=(--scenario day --day-seed "$2" --factor "${FACTOR:-120}"); shift 2 ;;
      *) args+=("$1"); shift ;;
    esac
  done
  exec build/venv/bin/python tests/live/runs.py "${args[@]}"
fi
out=build/live-tests
mkdir -p "$out"
status=0
build/venv/bin/python -m pytest -p no:cacheprovider -v -s -rfE --junitxml="$out/junit.xml" \
  --basetemp="$out/tmp" tests/live "$@" || status=$?
echo "== live tests: exit $status in $((SECONDS - start)) s (logs: $out/tmp)"
exit $status
