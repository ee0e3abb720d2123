package main

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"sort"
	"strings"
)

// The "h1:" hashes of go.sum, as golang.org/x/mod/sumdb/dirhash defines
// them: the SHA-256 of a summary that lists, sorted by name, each file's
// SHA-256 in hex, two spaces and its name. A module zip is hashed over its
// entries as named in the zip ("module@version/path"); a .mod file as the one
// file "go.mod".

func hash1(names []string, open func(string) (io.ReadCloser, error)) (string, error) {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	summary := sha256.New()
	for _, name := range sorted {
		if strings.Contains(name, "\n") {
			return "", fmt.Errorf("file name %q contains a newline", name)
		}
		r, err := open(name)
		if err != nil {
			return "", err
		}
		h := sha256.New()
		_, err = io.Copy(h, r)
		r.Close()
		if err != nil {
			return "", fmt.Errorf("reading %s: %w", name, err)
		}
		fmt.Fprintf(summary, "%x  %s\n", h.Sum(nil), name)
	}
	return "h1:" + base64.StdEncoding.EncodeToString(summary.Sum(nil)), nil
}

func hashZip(z *zip.Reader) (string, error) {
	byName := make(map[string]*zip.File, len(z.File))
	names := make([]string, 0, len(z.File))
	for _, f := range z.File {
		if _, dup := byName[f.Name]; dup {
			return "", fmt.Errorf("the zip holds %s twice", f.Name)
		}
		byName[f.Name] = f
		names = append(names, f.Name)
	}
	return hash1(names, func(name string) (io.ReadCloser, error) { return byName[name].Open() })
}

func hashGoMod(data []byte) (string, error) {
	return hash1([]string{"go.mod"}, func(string) (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader(string(data))), nil
	})
}
