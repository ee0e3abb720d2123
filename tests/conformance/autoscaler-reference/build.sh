#!/usr/bin/env bash
# Builds cluster-autoscaler-reference (cluster-autoscaler's StaticAutoscaler
# at the commit pinned in go.mod, run on autoscaler corpus scenarios; main.go)
# into build/conformance/. Go's build and module caches live outside the
# clone (~/.cache/go-build, ~/go/pkg/mod).
#
# The module proxy serves this cluster-autoscaler pseudo-version's zip but
# refuses its .mod file (403) and the checksum database does not know it:
# GONOSUMDB exempts it from the checksum database (go.sum pins its hashes),
# and when the module cache lacks the .mod, it is taken from the go.mod inside
# the downloaded zip, which is what a module's .mod file is by definition.
# `-tags kwok` makes cloudprovider/builder (linked through package core) link
# only the small KWOK provider instead of every cloud's SDK; the reference
# never calls it (it passes its own test cloud provider).
# Environment: GO_BUILD_FLAGS (e.g. "-p 1" on a busy machine).
set -euo pipefail
cd "$(dirname "$0")"
out=../../../build/conformance
mkdir -p "$out"
start=$SECONDS
export GONOSUMDB=k8s.io/autoscaler/cluster-autoscaler GOFLAGS=-mod=mod
ca=k8s.io/autoscaler/cluster-autoscaler
version=$(awk -v m="$ca" '$1 == m { print $2 }' go.sum | grep -v /go.mod | head -1)
cache=$(go env GOMODCACHE)/cache/download/$ca/@v
if [ ! -s "$cache/$version.mod" ]; then
  # `go get` of the query fetches the zip (and .info) before it fails on the
  # .mod; the zip's go.mod is then the .mod.
  tmp=$(mktemp -d)
  (cd "$tmp" && go mod init tmp >/dev/null 2>&1 && go get "$ca@$version" >/dev/null 2>&1 || true)
  rm -rf "$tmp"
  if [ ! -s "$cache/$version.zip" ]; then
    echo "conformance: the module proxy did not serve $ca@$version" >&2
    exit 1
  fi
  unzip -p "$cache/$version.zip" "$ca@$version/go.mod" > "$cache/$version.mod.tmp"
  mv "$cache/$version.mod.tmp" "$cache/$version.mod"
fi
# shellcheck disable=SC2086
go build -trimpath -tags kwok ${GO_BUILD_FLAGS:-} -o "$out/cluster-autoscaler-reference" .
echo "conformance: built cluster-autoscaler-reference in $((SECONDS - start)) s"
