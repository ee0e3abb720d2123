//go:build tools

// The kwok controller (sigs.k8s.io/kwok/cmd/kwok), built by ../build.sh from
// this module so that its versions stay apart from the control plane's.
package tools

import _ "sigs.k8s.io/kwok/pkg/kwok/cmd"
