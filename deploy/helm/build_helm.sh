#!/usr/bin/env bash
# Builds Helm 4 from its Go module (helm.sh/helm/v4, the version in
# deploy/helm/tools/go.mod) into build/helm/helm. No binary download: only the
# Go module proxy is used, for the modules go.sum lists.
#
#   deploy/helm/build_helm.sh          # does nothing when build/helm/helm is already the version go.mod names
#   deploy/helm/build_helm.sh --force  # rebuild anyway
#
# Go's module cache (~/go/pkg/mod) and build cache (~/.cache/go-build) live outside
# the clone, so a second build on the same machine takes seconds. One package at a
# time (-p 1): the machines have 2 cores and the other builds run beside it.
# If a later Helm needs a newer Go than the machine's, export GOTOOLCHAIN as the
# note in the project's package lists says, here and in every caller.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out="$root/build/helm"
tools="$here/tools"
module=helm.sh/helm/v4
version=$(awk -v m=$module '$1 == "require" && $2 == m {print $3}' "$tools/go.mod")
[[ -n $version ]] || { echo "build_helm: no $module requirement in $tools/go.mod" >&2; exit 1; }

if [[ ${1:-} != --force && -x $out/helm ]] && "$out/helm" version --template '{{.Version}}' 2>/dev/null | grep -qx "$version"; then
  echo "build_helm: $out/helm is Helm $version already"
  exit 0
fi
command -v go >/dev/null || { echo "build_helm: Go is not installed (apt-get install golang-go is too old; the machine's Go 1.26 is expected)" >&2; exit 1; }
mkdir -p "$out"
start=$SECONDS
cd "$tools"
# Linker flags as Helm's Makefile sets them for a release: the version `helm version`
# prints. Helm 4 takes the Kubernetes version that `helm lint` and `helm template`
# assume (.Capabilities.KubeVersion) from the k8s.io/client-go in its build info.
v=$module/internal/version
ldflags="-s -w -X $v.version=$version -X $v.gitTreeState=clean -X $v.metadata="
go build -p 1 -trimpath -ldflags "$ldflags" -o "$out/helm" $module/cmd/helm
echo "build_helm: built $("$out/helm" version --short) into $out/helm in $((SECONDS - start)) s"
