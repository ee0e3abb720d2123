#!/usr/bin/env bash
# Builds the test control plane from Go modules into build/controlplane:
# etcd, kube-apiserver and kube-scheduler of Kubernetes v1.37.2 (go.mod).
# Go's build cache (~/.cache/go-build) and module cache (~/go/pkg/mod) live
# outside the clone, so a second run on the same machine takes seconds.
set -euo pipefail
cd "$(dirname "$0")"
out=../../build/controlplane
mkdir -p "$out"
start=$SECONDS
GOFLAGS=-mod=mod go build -trimpath -o "$out/" ./cmd/etcd k8s.io/kubernetes/cmd/kube-apiserver \
  k8s.io/kubernetes/cmd/kube-scheduler
echo "controlplane: built etcd, kube-apiserver, kube-scheduler in $((SECONDS - start)) s"
