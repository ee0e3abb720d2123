//go:build tools

// The commands built from modules for the test control plane; listed here so
// that `go mod tidy` keeps their dependencies.
package controlplane

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
