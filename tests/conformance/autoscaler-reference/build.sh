#!/usr/bin/env bash
# Builds cluster-autoscaler-reference (cluster-autoscaler's StaticAutoscaler
# at the commit pinned in go.mod, run on autoscaler corpus scenarios; main.go)
# into build/conformance/. Go's build and module caches live outside the
# clone (~/.cache/go-build, ~/go/pkg/mod).
#
# The module proxy serves this cluster-autoscaler pseudo-version's zip but
# answers 403 for its .info, its .mod and the version list, so `go get` and
# `go mod download` of it fail before they fetch anything. ../gomodseed takes
# the zip alone by the module proxy protocol, checks it against the hash
# go.sum pins and writes the .zip, .ziphash, .mod (the zip's own go.mod) and
# .info into the module cache; the go command then treats it as any download.
# `-tags kwok` makes cloudprovider/builder (linked through package core) link
# only the small KWOK provider instead of every cloud's SDK; the reference
# never calls it (it passes its own test cloud provider).
# Environment: GO_BUILD_FLAGS (e.g. "-p 1" on a busy machine).
set -euo pipefail
cd "$(dirname "$0")"
out=$(cd ../../.. && pwd)/build/conformance
mkdir -p "$out"
start=$SECONDS
export GOFLAGS=-mod=mod
ca=k8s.io/autoscaler/cluster-autoscaler
version=$(awk -v m="$ca" '$1 == m && $2 !~ /\/go.mod$/ { print $2 }' go.sum)
(cd ../gomodseed && GOFLAGS= go build -trimpath -o "$out/gomodseed" .)
"$out/gomodseed" -gosum "$PWD/go.sum" "$ca@$version"
# shellcheck disable=SC2086
go build -trimpath -tags kwok ${GO_BUILD_FLAGS:-} -o "$out/cluster-autoscaler-reference" .
echo "conformance: built cluster-autoscaler-reference in $((SECONDS - start)) s"
