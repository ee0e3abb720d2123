#!/usr/bin/env bash
# Builds the test control plane from Go modules into build/controlplane:
# etcd, kube-apiserver, kube-scheduler and kube-controller-manager of
# Kubernetes v1.37.2 (go.mod), and test-provisioner (provisioner/, its own
# module: sig-storage-lib-external-provisioner on client-go v0.37.2).
# Go's build cache (~/.cache/go-build) and module cache (~/go/pkg/mod) live
# outside the clone, so a second run on the same machine takes seconds.
set -euo pipefail
cd "$(dirname "$0")"
out=$(cd ../.. && pwd)/build/controlplane
mkdir -p "$out"
start=$SECONDS
GOFLAGS=-mod=mod go build -trimpath -o "$out/" ./cmd/etcd k8s.io/kubernetes/cmd/kube-apiserver \
  k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kube-controller-manager
(cd provisioner && GOFLAGS=-mod=mod go build -trimpath -o "$out/test-provisioner" .)
echo "controlplane: built etcd, kube-apiserver, kube-scheduler, kube-controller-manager, test-provisioner in $((SECONDS - start)) s"
