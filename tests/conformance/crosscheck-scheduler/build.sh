#!/usr/bin/env bash
# Builds kube-scheduler-tightpack into build/conformance/: kube-scheduler
# v1.37.2's own command with TightpackCohort (../reference/cohort.go)
# registered as an out-of-tree plugin, so that crosscheck.py can run the real
# kube-scheduler on scenarios of the tightpack profile. The module set is the
# test control plane's (tests/controlplane/go.mod, go.sum), so with its build
# cache warm this is a link of a few tens of seconds.
# Environment: GO_BUILD_FLAGS (e.g. "-p 1" on a busy machine).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=$root/build/conformance
src=$out/crosscheck-scheduler-src
start=$SECONDS
rm -rf "$src"
mkdir -p "$src"
cp "$here/main.go" "$root/tests/conformance/reference/cohort.go" "$src/"
cp "$root/tests/controlplane/go.mod" "$root/tests/controlplane/go.sum" "$src/"
# shellcheck disable=SC2086
(cd "$src" && GOFLAGS=-mod=mod go build -trimpath ${GO_BUILD_FLAGS:-} -o "$out/kube-scheduler-tightpack" .)
echo "conformance: built kube-scheduler-tightpack in $((SECONDS - start)) s"
