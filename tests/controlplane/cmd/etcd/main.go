// etcd for the test control plane: etcd's own entry point, built from the
// go.etcd.io/etcd/server/v3 module at the version kube-apiserver requires.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
