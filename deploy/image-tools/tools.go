//go:build tools

// The CNCF distribution registry, built from its Go module by
// deploy/image-tools/build_registry.sh: deploy/test_image.sh pushes the image to it on
// loopback and pulls it back. Listed here so that `go mod tidy` keeps the
// command's dependencies in go.sum.
package tools

import (
	_ "github.com/distribution/distribution/v3/cmd/registry"
)
