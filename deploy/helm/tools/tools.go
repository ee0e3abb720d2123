//go:build tools

// Helm, built from its Go module (deploy/helm/build_helm.sh): no binary
// downloads reach this project's machines. Listed here so that `go mod tidy`
// keeps the command's dependencies in go.sum.
package tools

import (
	_ "helm.sh/helm/v4/cmd/helm"
)
