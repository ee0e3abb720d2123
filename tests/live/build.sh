#!/usr/bin/env bash
# Builds the live cluster's parts that the test control plane lacks into
# build/live: kwok (sigs.k8s.io/kwok, from the module in kwok/, apart from the
# control plane's versions) and its stages, taken from the same module as
# files (kustomize/stage: a node becomes Ready and keeps its heartbeat; a
# bound pod becomes Running, completes, and goes when deleted); and
# cluster-autoscaler (autoscaler/: its own code at the commit the conformance
# reference pins, wired as its main does, -tags kwok). Go's caches live
# outside the clone, so a second run takes seconds.
set -euo pipefail
cd "$(dirname "$0")"
out=$(cd ../.. && pwd)/build/live
mkdir -p "$out"
start=$SECONDS
(cd kwok && GOFLAGS=-mod=mod go build -trimpath -o "$out/kwok" sigs.k8s.io/kwok/cmd/kwok)
# The module proxy serves cluster-autoscaler's pseudo-version as a zip only:
# gomodseed puts it into the module cache (tests/conformance/gomodseed).
ca=k8s.io/autoscaler/cluster-autoscaler
version=$(awk -v m="$ca" '$1 == m && $2 !~ /\/go.mod$/ { print $2 }' autoscaler/go.sum)
conformance=$(cd ../conformance && pwd)
(cd "$conformance/gomodseed" && GOFLAGS= go build -trimpath -o "$out/gomodseed" .)
"$out/gomodseed" -gosum "$PWD/autoscaler/go.sum" "$ca@$version"
(cd autoscaler && GOFLAGS=-mod=mod go build -trimpath -tags kwok -o "$out/cluster-autoscaler" .)
module=$(cd kwok && GOFLAGS=-mod=mod go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
stages="$module/kustomize/stage"
# node-initialize gains one thing: a node boots for as long as its annotation
# tightpack.io/boot-delay says ("90s"; none: at once), as a GPU node takes
# minutes. The kwok provider copies a group's template annotations onto the
# nodes it creates, so a pool's template sets its boot time.
boot_delay='  delay:\n    durationMilliseconds: 0\n    durationFrom:\n      expressionFrom: '"'"'.metadata.annotations["tightpack.io/boot-delay"]'"'"'\n'
{
  for f in node/fast/node-initialize.yaml node/heartbeat/node-heartbeat.yaml pod/fast/pod-ready.yaml \
           pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
    echo "# $f, sigs.k8s.io/kwok $(cd kwok && go list -m -f '{{.Version}}' sigs.k8s.io/kwok)"
    if [[ $f == node/fast/node-initialize.yaml ]]; then
      awk -v delay="$boot_delay" '/^  next:/ && !done { printf "%s", delay; done = 1 } { print }' "$stages/$f"
    else
      cat "$stages/$f"
    fi
    echo "---"
  done
} > "$out/stages.yaml"
echo "live: built kwok, its stages and cluster-autoscaler in $((SECONDS - start)) s"
