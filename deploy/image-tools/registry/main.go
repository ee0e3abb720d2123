// The CNCF distribution registry as its own cmd/registry builds it
// (github.com/distribution/distribution/v3, the version in ../go.mod), with the
// storage drivers and middleware a registry on loopback uses: the filesystem and
// in-memory drivers, htpasswd and token authentication. Upstream's main also
// links the Azure, GCS and S3 drivers and CloudFront middleware; leaving their
// cloud SDKs out takes the cold build from 167 s to 120 s of CPU here (and the
// binary from 56 to 26 MB), and deploy/test_image.sh uses none of them.
package main

import (
	"github.com/distribution/distribution/v3/registry"
	_ "github.com/distribution/distribution/v3/registry/auth/htpasswd"
	_ "github.com/distribution/distribution/v3/registry/auth/token"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/filesystem"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/inmemory"
)

func main() {
	// As upstream's main: the two commands RootCmd registers exit non-zero
	// themselves on failure.
	_ = registry.RootCmd.Execute()
}
