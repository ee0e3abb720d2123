#!/usr/bin/env bash
# Builds kube-scheduler-reference (kube-scheduler's own framework run on
# corpus scenarios, main.go) into build/conformance/:
#
#   build.sh                     v1.37.2 (go.mod here), the release the engine follows
#   build.sh --release v1.36.3   one minor behind (v1.36.3/go.mod and go.sum;
#                                release_v136.go, tag kube136)
#                                -> kube-scheduler-reference-v1.36.3
#   build.sh --release v1.35.4   the minor zero-to-jupyterhub's next major pins (v1.35.7;
#                                the module proxy serves v1.35.4: docs/conformance.md
#                                says what lies between); v1.35.4/go.mod and go.sum,
#                                release_v135.go, tag kube135
#                                -> kube-scheduler-reference-v1.35.4
#   build.sh --release v1.30.14  the release zero-to-jupyterhub's released charts (4.3.x,
#                                4.4.0) run (v1.30.14/go.mod and go.sum; the older
#                                framework API has files of its own, *_v130.go, tag kube130)
#                                -> kube-scheduler-reference-v1.30.14
#
# Go's build and module caches live outside the clone (~/.cache/go-build,
# ~/go/pkg/mod); v1.37.2 shares them with tests/controlplane/build.sh (the
# same module versions and flags), so after the control plane is built it
# takes seconds. v1.36.3, v1.35.4 and v1.30.14 are module sets of their own:
# ~5, ~5 and ~3 min of CPU cold.
# Environment: GO_BUILD_FLAGS (e.g. "-p 1" on a busy machine).
set -euo pipefail
cd "$(dirname "$0")"
out=$(cd ../../.. && pwd)/build/conformance
mkdir -p "$out"
start=$SECONDS
release=
if [[ ${1:-} == --release ]]; then release=${2:?--release needs a version}; fi
if [[ -z $release ]]; then
  # shellcheck disable=SC2086
  GOFLAGS=-mod=mod go build -trimpath ${GO_BUILD_FLAGS:-} -o "$out/kube-scheduler-reference" .
  echo "conformance: built kube-scheduler-reference in $((SECONDS - start)) s"
  exit 0
fi
case $release in
  v1.36.*) tag=kube136 ;;
  v1.35.*) tag=kube135 ;;
  v1.30.*) tag=kube130 ;;
  *) echo "build.sh: no release $release (v1.36.3, v1.35.4, v1.30.14)" >&2; exit 2 ;;
esac
[[ -f $release/go.mod ]] || { echo "build.sh: no $release/go.mod" >&2; exit 2; }
# The same sources with that release's module set, built in a folder of its own
# (the build tag picks the files for the release).
src=$out/reference-$release
rm -rf "$src"
mkdir -p "$src"
cp ./*.go "$src/"
cp "$release/go.mod" "$release/go.sum" "$src/"
# shellcheck disable=SC2086
(cd "$src" && GOFLAGS=-mod=mod go build -trimpath -tags "$tag" ${GO_BUILD_FLAGS:-} -o "$out/kube-scheduler-reference-$release" .)
echo "conformance: built kube-scheduler-reference-$release in $((SECONDS - start)) s"
