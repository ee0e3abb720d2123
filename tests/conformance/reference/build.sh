#!/usr/bin/env bash
# Builds kube-scheduler-reference (kube-scheduler v1.37.2's framework run on
# corpus scenarios, main.go) into build/conformance/. Go's build and module
# caches live outside the clone (~/.cache/go-build, ~/go/pkg/mod) and are
# shared with tests/controlplane/build.sh: the same module versions and flags,
# so after the control plane is built this takes seconds.
# Environment: GO_BUILD_FLAGS (e.g. "-p 1" on a busy machine).
set -euo pipefail
cd "$(dirname "$0")"
out=../../../build/conformance
mkdir -p "$out"
start=$SECONDS
# shellcheck disable=SC2086
GOFLAGS=-mod=mod go build -trimpath ${GO_BUILD_FLAGS:-} -o "$out/kube-scheduler-reference" .
echo "conformance: built kube-scheduler-reference in $((SECONDS - start)) s"
