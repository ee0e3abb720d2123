package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"
)

// escape is golang.org/x/mod/module's case encoding of module paths and
// versions in the module cache and the proxy protocol: each upper-case
// letter becomes '!' and its lower-case form.
func escape(s string) (string, error) {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '!' || r >= utf8.RuneSelf:
			return "", fmt.Errorf("%q cannot be escaped for the module cache", s)
		case 'A' <= r && r <= 'Z':
			b.WriteByte('!')
			b.WriteRune(r + 'a' - 'A')
		default:
			b.WriteRune(r)
		}
	}
	return b.String(), nil
}

// versionFiles names one module version's files in the download cache
// (GOMODCACHE/cache/download/PATH/@v/VERSION.*), where cmd/go looks for
// them; the proxy protocol uses the same relative names.
type versionFiles struct {
	dir  string // the @v directory
	base string // the escaped version
	rel  string // PATH/@v/VERSION, relative to a proxy or the download cache
}

func newVersionFiles(modcache, modPath, version string) (versionFiles, error) {
	p, err := escape(modPath)
	if err != nil {
		return versionFiles{}, err
	}
	v, err := escape(version)
	if err != nil {
		return versionFiles{}, err
	}
	dir := filepath.Join(modcache, "cache", "download", filepath.FromSlash(p), "@v")
	return versionFiles{dir: dir, base: v, rel: p + "/@v/" + v}, nil
}

func (f versionFiles) path(ext string) string { return filepath.Join(f.dir, f.base+"."+ext) }

// lock takes the same advisory lock cmd/go takes on VERSION.lock, so a go
// command running beside this one never sees the files half-written.
func (f versionFiles) lock() (func(), error) {
	if err := os.MkdirAll(f.dir, 0o777); err != nil {
		return nil, err
	}
	lf, err := os.OpenFile(f.path("lock"), os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX); err != nil {
		lf.Close()
		return nil, fmt.Errorf("locking %s: %w", lf.Name(), err)
	}
	return func() {
		syscall.Flock(int(lf.Fd()), syscall.LOCK_UN)
		lf.Close()
	}, nil
}

func (f versionFiles) tempPrefix(ext string) string { return f.base + "." + ext + ".tmp-gomodseed-" }

// removeTemps clears what an interrupted earlier run left.
func (f versionFiles) removeTemps() {
	for _, ext := range []string{"zip", "ziphash", "mod", "info"} {
		matches, _ := filepath.Glob(filepath.Join(f.dir, f.tempPrefix(ext)+"*"))
		for _, m := range matches {
			os.Remove(m)
		}
	}
}

// staged is a set of files written next to their final names; commit renames
// them into place in order (the .ziphash last: cmd/go takes a zip with its
// .ziphash as complete), discard removes every one, renamed or not.
type staged struct {
	files   versionFiles
	temps   map[string]string
	renamed []string
}

func newStaged(files versionFiles) *staged {
	return &staged{files: files, temps: map[string]string{}}
}

var umask = func() os.FileMode {
	old := syscall.Umask(0)
	syscall.Umask(old)
	return os.FileMode(old)
}()

func (s *staged) create(ext string) (*os.File, error) {
	f, err := os.CreateTemp(s.files.dir, s.files.tempPrefix(ext))
	if err != nil {
		return nil, err
	}
	// CreateTemp makes the file 0600; cmd/go's downloads are 0666 less umask.
	if err := f.Chmod(0o666 &^ umask); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	s.temps[ext] = f.Name()
	return f, nil
}

func (s *staged) write(ext string, data []byte) error {
	f, err := s.create(ext)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	return errors.Join(werr, cerr)
}

func (s *staged) commit(order ...string) error {
	for _, ext := range order {
		if err := os.Rename(s.temps[ext], s.files.path(ext)); err != nil {
			return err
		}
		s.renamed = append(s.renamed, s.files.path(ext))
		delete(s.temps, ext)
	}
	s.renamed = nil
	return nil
}

func (s *staged) discard() {
	for _, t := range s.temps {
		os.Remove(t)
	}
	for _, r := range s.renamed {
		os.Remove(r)
	}
	s.temps, s.renamed = map[string]string{}, nil
}
