#!/usr/bin/env bash
# Builds the CNCF distribution registry from its Go module (the version in
# deploy/image-tools/go.mod; registry/main.go is upstream's cmd/registry without
# the cloud storage drivers) into build/image-tools/registry: deploy/test_image.sh
# pushes the image to it on loopback and pulls it back. Only the Go module proxy
# is used. Does nothing when the binary is that version already.
#
#   deploy/image-tools/build_registry.sh [--force]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$root/build/image-tools
module=github.com/distribution/distribution/v3
version=$(awk -v m="$module" '$1 == "require" && $2 == m {print $3}' "$here/go.mod")
[[ -n $version ]] || { echo "build_registry: no $module requirement in $here/go.mod" >&2; exit 1; }
if [[ ${1:-} != --force && -x $out/registry ]] && "$out/registry" --version 2>/dev/null | grep -q " $version\$"; then
  echo "build_registry: $out/registry is $version already"
  exit 0
fi
mkdir -p "$out"
start=$SECONDS
cd "$here"
# One package at a time: the machines have 2 cores and other builds run beside it.
go build -p 1 -trimpath -ldflags "-s -w -X $module/version.version=$version" -o "$out/registry" ./registry
echo "build_registry: built $("$out/registry" --version) in $((SECONDS - start)) s"
