// gomodseed puts one pseudo-version of a Go module into the module cache from
// its zip alone, for the versions the module proxy serves only partly (the
// .zip, but 403 for the .info, the .mod and the version list, so that `go get`
// and `go mod download` fail before they fetch anything).
//
//	gomodseed -gosum go.sum MODULE@VERSION
//	gomodseed -print-gosum MODULE@VERSION
//
// It takes VERSION.zip by the module proxy protocol from the proxies `go env
// GOPROXY` names (walked as cmd/go walks them), checks it against the hash
// the given go.sum pins before anything uses it, and writes the .zip, the
// .ziphash, the .mod (the zip's own go.mod, checked against go.sum's
// /go.mod hash) and the .info (the pseudo-version's own time) into `go env
// GOMODCACHE`, under cmd/go's lock, each file renamed into place only after
// both hashes agree. The go command then extracts and checks it as it would
// any download.
//
// -print-gosum is for a maintainer moving to a version no go.sum pins yet
// (tests/conformance/README.md): it downloads the zip into a temporary file
// and prints the two go.sum lines of what was served, writing nothing to the
// module cache. Exit status: 0 seeded or already there, 1 not seeded (the
// message says why; nothing of that version was written), 2 bad usage.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

func main() {
	gosumName := flag.String("gosum", "", "the go.sum that pins MODULE@VERSION's hashes")
	printGoSum := flag.Bool("print-gosum", false, "print the go.sum lines of the zip the proxy serves; write nothing")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: gomodseed -gosum FILE MODULE@VERSION\n       gomodseed -print-gosum MODULE@VERSION")
		flag.PrintDefaults()
	}
	flag.Parse()
	if (*gosumName == "") == !*printGoSum || flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	modPath, version, ok := strings.Cut(flag.Arg(0), "@")
	if !ok || modPath == "" || version == "" {
		fmt.Fprintf(os.Stderr, "gomodseed: %q is not MODULE@VERSION\n", flag.Arg(0))
		os.Exit(2)
	}
	if err := run(*gosumName, *printGoSum, modPath, version); err != nil {
		fmt.Fprintln(os.Stderr, "gomodseed:", err)
		os.Exit(1)
	}
}

func run(gosumName string, printGoSum bool, modPath, version string) error {
	var gosum []byte
	if !printGoSum {
		var err error
		if gosum, err = os.ReadFile(gosumName); err != nil {
			return err
		}
	}
	goproxy, modcache, err := goEnv()
	if err != nil {
		return err
	}
	proxies, err := parseGOPROXY(goproxy)
	if err != nil {
		return err
	}
	r := request{modPath: modPath, version: version, gosum: gosum, gosumName: gosumName,
		modcache: modcache, proxies: proxies}
	if printGoSum {
		lines, from, err := goSumLines(r)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "gomodseed: the go.sum lines of the zip %s serves for %s (check them against a second source before you pin them):\n", from, r.module())
		fmt.Print(lines)
		return nil
	}
	out, err := seed(r)
	if err != nil {
		return err
	}
	if out.already {
		fmt.Printf("gomodseed: %s is in the module cache as %s pins it\n", r.module(), gosumName)
	} else {
		fmt.Printf("gomodseed: %s seeded into %s from %s (%d bytes, as %s pins it)\n",
			r.module(), modcache, out.from, out.size, gosumName)
	}
	return nil
}

// goEnv asks the go command, so that the go env file and its defaults count
// as they do for the build that follows.
func goEnv() (goproxy, modcache string, err error) {
	out, err := exec.Command("go", "env", "GOPROXY", "GOMODCACHE").Output()
	if err != nil {
		return "", "", fmt.Errorf("go env GOPROXY GOMODCACHE: %w", err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 2 || lines[1] == "" {
		return "", "", fmt.Errorf("go env GOPROXY GOMODCACHE printed %q", out)
	}
	return lines[0], lines[1], nil
}
