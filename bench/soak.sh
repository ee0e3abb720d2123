#!/usr/bin/env bash
# The soak of the in-cluster scheduler (not part of CI; a one-minute run of it is, in
# tests/scheduler/test_soak.py): two replicas of `tightpack schedule` with leader election on
# the test control plane (loopback only) for 20 minutes while pods are created and deleted at
# a steady rate, nodes added and removed, the leader killed and the API server restarted at
# random moments, and idle, slow and looping clients hold the replicas' ports. It stops by
# itself, checks what must hold (tests/scheduler/soak.py) and prints its figures.
#
#   bench/soak.sh               # 20 minutes
#   bench/soak.sh 300 7         # 5 minutes, seed 7
#
# Figures as JSON: build/soak/figures.json; logs: build/scheduler-tests/tmp.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-1200}
seed=${2:-1}
mkdir -p build/soak
TIGHTPACK_SOAK_SECONDS=$seconds TIGHTPACK_SOAK_SEED=$seed TIGHTPACK_SOAK_OUT=build/soak/figures.json \
  tests/scheduler/run.sh -k test_soak
cat build/soak/figures.json
