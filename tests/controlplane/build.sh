#!/usr/bin/env bash
# Builds the test control plane from Go modules into build/controlplane:
# etcd, kube-apiserver, kube-scheduler and kube-controller-manager of
# Kubernetes v1.37.2 (go.mod), and test-provisioner (provisioner/, its own
# module: sig-storage-lib-external-provisioner on client-go v0.37.2), the
# Kubernetes binaries stamped with their version as Kubernetes' release build does.
# Go's build cache (~/.cache/go-build) and module cache (~/go/pkg/mod) live
# outside the clone, so a second run on the same machine takes seconds.
set -euo pipefail
cd "$(dirname "$0")"
out=$(cd ../.. && pwd)/build/controlplane
mkdir -p "$out"
start=$SECONDS
# The version linker flags of Kubernetes' own build (hack/lib/version.sh), from the
# module's version: /version says v1.37.2, not v0.0.0-master, so that `helm install`
# can check a chart's kubeVersion. The build date is the module's release time
# (the proxy's .info), so that two builds of the same go.mod link the same bytes.
# Only the link step depends on these: the build cache keeps every package.
k8s_version=$(GOFLAGS=-mod=mod go list -m -f '{{.Version}}' k8s.io/kubernetes)
k8s_date=$(GOFLAGS=-mod=mod go list -m -f '{{.Time.UTC.Format "2006-01-02T15:04:05Z"}}' k8s.io/kubernetes)
major=${k8s_version#v}
minor=${major#*.}
major=${major%%.*}
minor=${minor%%.*}
# -s -w: no symbol table or DWARF (test fixtures; Go's stack traces need neither):
# kube-apiserver links in 5.8 s of CPU instead of 10.8.
ldflags="-s -w"
for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
  ldflags+=" -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
  ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$k8s_date"
done
GOFLAGS=-mod=mod go build -trimpath -ldflags "$ldflags" -o "$out/" ./cmd/etcd k8s.io/kubernetes/cmd/kube-apiserver \
  k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kube-controller-manager
(cd provisioner && GOFLAGS=-mod=mod go build -trimpath -o "$out/test-provisioner" .)
echo "controlplane: built etcd, kube-apiserver, kube-scheduler, kube-controller-manager, test-provisioner in $((SECONDS - start)) s"
