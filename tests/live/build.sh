#!/usr/bin/env bash
# Builds the live cluster's parts that the test control plane lacks into
# build/live: kwok (sigs.k8s.io/kwok, from the module in kwok/, apart from the
# control plane's versions) and its stages, taken from the same module as
# files (kustomize/stage: a node becomes Ready and keeps its heartbeat; a
# bound pod becomes Running, completes, and goes when deleted). Go's caches
# live outside the clone, so a second run takes seconds.
set -euo pipefail
cd "$(dirname "$0")"
out=$(cd ../.. && pwd)/build/live
mkdir -p "$out"
start=$SECONDS
(cd kwok && GOFLAGS=-mod=mod go build -trimpath -o "$out/kwok" sigs.k8s.io/kwok/cmd/kwok)
module=$(cd kwok && GOFLAGS=-mod=mod go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
stages="$module/kustomize/stage"
{
  for f in node/fast/node-initialize.yaml node/heartbeat/node-heartbeat.yaml pod/fast/pod-ready.yaml \
           pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
    echo "# $f, sigs.k8s.io/kwok $(cd kwok && go list -m -f '{{.Version}}' sigs.k8s.io/kwok)"
    cat "$stages/$f"
    echo "---"
  done
} > "$out/stages.yaml"
echo "live: built kwok and its stages in $((SECONDS - start)) s"
