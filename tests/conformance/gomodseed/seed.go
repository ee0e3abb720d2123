package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"
)

// request is one module version to put into a module cache.
type request struct {
	modPath, version string
	gosum            []byte // a go.sum that pins the version's zip and go.mod
	gosumName        string // for messages
	modcache         string // GOMODCACHE
	proxies          []proxyEntry
}

type outcome struct {
	already bool   // the cache held it, whole and as go.sum pins it
	from    string // the proxy that served the zip
	size    int64
}

func (r request) module() string { return r.modPath + "@" + r.version }

// seed writes VERSION.zip, .ziphash, .mod and .info into the module cache's
// download directory, as `go mod download` would, from the zip alone: the
// .mod is the zip's go.mod and the .info is read off the pseudo-version.
// Nothing is written unless both hashes go.sum pins agree.
func seed(r request) (outcome, error) {
	zipSum, modSum, err := lookupGoSum(r.gosum, r.modPath, r.version)
	if err != nil {
		return outcome{}, fmt.Errorf("%s: %w", r.gosumName, err)
	}
	info, err := infoFor(r.version)
	if err != nil {
		return outcome{}, err
	}
	files, err := newVersionFiles(r.modcache, r.modPath, r.version)
	if err != nil {
		return outcome{}, err
	}
	unlock, err := files.lock()
	if err != nil {
		return outcome{}, fmt.Errorf("the module cache %s: %w", r.modcache, err)
	}
	defer unlock()
	files.removeTemps()
	if cachedWhole(files, zipSum, modSum) {
		return outcome{already: true}, nil
	}

	st := newStaged(files)
	defer st.discard()
	zf, err := st.create("zip")
	if err != nil {
		return outcome{}, err
	}
	from, size, err := download(r, files.rel, zf)
	if err != nil {
		return outcome{}, err
	}
	goMod, got, err := readZip(st.temps["zip"], r, from)
	if err != nil {
		return outcome{}, err
	}
	if got != zipSum {
		return outcome{}, fmt.Errorf("the zip %s served for %s hashes to %s, but %s pins %s; refused, nothing written to the module cache",
			from, r.module(), got, r.gosumName, zipSum)
	}
	if got, err := hashGoMod(goMod); err != nil || got != modSum {
		return outcome{}, fmt.Errorf("the go.mod inside the zip %s served for %s hashes to %s, but %s pins %s/go.mod %s; refused, nothing written to the module cache",
			from, r.module(), got, r.gosumName, r.version, modSum)
	}
	if err := st.write("mod", goMod); err != nil {
		return outcome{}, err
	}
	if err := st.write("info", info); err != nil {
		return outcome{}, err
	}
	if err := st.write("ziphash", []byte(zipSum)); err != nil {
		return outcome{}, err
	}
	if err := st.commit("mod", "info", "zip", "ziphash"); err != nil {
		return outcome{}, fmt.Errorf("writing %s into the module cache: %w", r.module(), err)
	}
	return outcome{from: from, size: size}, nil
}

// download writes the version's zip, from the first proxy that serves it,
// to f and closes f.
func download(r request, rel string, f *os.File) (from string, size int64, err error) {
	from, ferr := fetch(r.proxies, rel+".zip", f, func() error {
		if err := f.Truncate(0); err != nil {
			return err
		}
		_, err := f.Seek(0, io.SeekStart)
		return err
	})
	if ferr != nil {
		f.Close()
		return "", 0, fmt.Errorf("%s.zip was not served: %v; nothing written to the module cache", r.module(), ferr)
	}
	size, err = f.Seek(0, io.SeekCurrent)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return from, size, err
}

// readZip checks that a downloaded file is a module zip of this version
// (every file under module@version/) and returns its go.mod and its hash.
func readZip(name string, r request, from string) (goMod []byte, sum string, err error) {
	z, err := zip.OpenReader(name)
	if err != nil {
		return nil, "", fmt.Errorf("what %s served as %s.zip is not a zip (%v); refused, nothing written to the module cache", from, r.module(), err)
	}
	defer z.Close()
	sum, err = hashZip(&z.Reader)
	if err != nil {
		return nil, "", fmt.Errorf("the zip %s served for %s cannot be read: %v; refused, nothing written to the module cache", from, r.module(), err)
	}
	prefix := r.module() + "/"
	for _, f := range z.File {
		if !strings.HasPrefix(f.Name, prefix) || strings.Contains(f.Name, "..") {
			return nil, "", fmt.Errorf("the zip %s served for %s holds %q, outside %s; refused, nothing written to the module cache", from, r.module(), f.Name, prefix)
		}
		if f.Name == prefix+"go.mod" {
			rc, err := f.Open()
			if err != nil {
				return nil, "", err
			}
			goMod, err = io.ReadAll(rc)
			rc.Close()
			if err != nil {
				return nil, "", err
			}
		}
	}
	if goMod == nil {
		// cmd/go's .mod for a module without a go.mod.
		goMod = []byte("module " + quoteModPath(r.modPath) + "\n")
	}
	return goMod, sum, nil
}

// goSumLines downloads the zip into a temporary file and returns the two
// go.sum lines of what was served, for a maintainer moving to a version no
// go.sum pins yet; it writes nothing to the module cache.
func goSumLines(r request) (lines, from string, err error) {
	files, err := newVersionFiles(r.modcache, r.modPath, r.version)
	if err != nil {
		return "", "", err
	}
	f, err := os.CreateTemp("", "gomodseed-*.zip")
	if err != nil {
		return "", "", err
	}
	defer os.Remove(f.Name())
	from, _, err = download(r, files.rel, f)
	if err != nil {
		return "", "", err
	}
	goMod, zipSum, err := readZip(f.Name(), r, from)
	if err != nil {
		return "", "", err
	}
	modSum, err := hashGoMod(goMod)
	if err != nil {
		return "", "", err
	}
	return fmt.Sprintf("%s %s %s\n%s %s/go.mod %s\n", r.modPath, r.version, zipSum, r.modPath, r.version, modSum), from, nil
}

func quoteModPath(p string) string {
	if strings.ContainsAny(p, " \t\"'`") {
		b, _ := json.Marshal(p)
		return string(b)
	}
	return p
}

// cachedWhole: the four files are there and agree with go.sum.
func cachedWhole(files versionFiles, zipSum, modSum string) bool {
	for _, ext := range []string{"info", "zip"} {
		if _, err := os.Stat(files.path(ext)); err != nil {
			return false
		}
	}
	if h, err := os.ReadFile(files.path("ziphash")); err != nil || strings.TrimSpace(string(h)) != zipSum {
		return false
	}
	mod, err := os.ReadFile(files.path("mod"))
	if err != nil {
		return false
	}
	if h, err := hashGoMod(mod); err != nil || h != modSum {
		return false
	}
	z, err := zip.OpenReader(files.path("zip"))
	if err != nil {
		return false
	}
	defer z.Close()
	h, err := hashZip(&z.Reader)
	return err == nil && h == zipSum
}

// lookupGoSum finds the two hashes go.sum pins for one module version.
func lookupGoSum(gosum []byte, modPath, version string) (zipSum, modSum string, err error) {
	for _, line := range strings.Split(string(gosum), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != modPath {
			continue
		}
		switch f[1] {
		case version:
			zipSum = f[2]
		case version + "/go.mod":
			modSum = f[2]
		}
	}
	switch {
	case zipSum == "" && modSum == "":
		return "", "", fmt.Errorf("no line for %s@%s, so there is nothing to check its zip against", modPath, version)
	case zipSum == "":
		return "", "", fmt.Errorf("a %s/go.mod line for %s but no hash of its zip", version, modPath)
	case modSum == "":
		return "", "", fmt.Errorf("a hash of %s@%s's zip but no %s/go.mod line", modPath, version, version)
	}
	for _, s := range []string{zipSum, modSum} {
		if !strings.HasPrefix(s, "h1:") {
			return "", "", fmt.Errorf("the hash %q of %s@%s is not an h1: hash", s, modPath, version)
		}
	}
	return zipSum, modSum, nil
}

// golang.org/x/mod/module's pseudo-version form; its 14 digits are the
// commit time in UTC, which is what a proxy's .info reports for it.
var pseudoVersion = regexp.MustCompile(`^v[0-9]+\.(0\.0-|\d+\.\d+-([^+]*\.)?0\.)(\d{14})-[A-Za-z0-9]+(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)

// infoFor is the .info of a pseudo-version. A tagged version's time is not in
// its name; such a version needs a proxy that serves its .info, and this
// seeder is not the way to it.
func infoFor(version string) ([]byte, error) {
	m := pseudoVersion.FindStringSubmatch(version)
	if m == nil {
		return nil, fmt.Errorf("%s is not a pseudo-version, so its .info (the commit time) cannot be read off it; seed only pseudo-versions, and let the go command fetch tagged ones", version)
	}
	t, err := time.Parse("20060102150405", m[3])
	if err != nil {
		return nil, fmt.Errorf("the pseudo-version %s has no valid time (%s): %v", version, m[3], err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	if err := enc.Encode(struct {
		Version string
		Time    time.Time
	}{version, t.UTC()}); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
