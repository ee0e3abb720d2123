package main

import (
	"archive/zip"
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const (
	testModule  = "example.com/M"
	testVersion = "v0.0.0-20200101000000-abcdefabcdef"
	testGoMod   = "module m\n"
	// Computed with sha256sum and base64 in a shell, not by this package.
	testZipSum = "h1:82lX8aPyWXwEOFzDRJb4Tt7JlGdUTb/TMchQfTYy4MM="
	testModSum = "h1:ctOyyZcdkNeS11Bx/Hh8c9pcGuH4+y+pgNNtQl7rlJc="
	// The escaped path, as the proxy protocol and the module cache spell it.
	testRel = "example.com/!m/@v/" + testVersion
)

// moduleZip is a module zip of files under prefix.
func moduleZip(t *testing.T, prefix string, files map[string]string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		f, err := w.Create(prefix + n)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(files[n]))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var testFiles = map[string]string{"go.mod": testGoMod, "m.go": "package m\n"}

func TestHashesAreGoSums(t *testing.T) {
	data := moduleZip(t, "m@"+testVersion+"/", testFiles)
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := hashZip(z); got != testZipSum {
		t.Errorf("hashZip = %s, want %s", got, testZipSum)
	}
	if got, _ := hashGoMod([]byte(testGoMod)); got != testModSum {
		t.Errorf("hashGoMod = %s, want %s", got, testModSum)
	}
}

func TestParseGOPROXY(t *testing.T) {
	got, err := parseGOPROXY("proxy.example,https://b.example|off ,direct")
	if err != nil {
		t.Fatal(err)
	}
	want := []proxyEntry{{"https://proxy.example", false}, {"https://b.example", true}, {"off", false}, {"direct", false}}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d = %v, want %v", i, got[i], want[i])
		}
	}
	if _, err := parseGOPROXY(" , "); err == nil {
		t.Error("an empty GOPROXY was accepted")
	}
}

func TestEscape(t *testing.T) {
	if got, _ := escape("github.com/BurntSushi/toml"); got != "github.com/!burnt!sushi/toml" {
		t.Errorf("escape = %s", got)
	}
	if _, err := escape("a!b"); err == nil {
		t.Error("a path with '!' was escaped")
	}
}

func TestInfoFor(t *testing.T) {
	got, err := infoFor("v1.2.4-0.20191109021931-daa7c04131f5")
	if err != nil || string(got) != `{"Version":"v1.2.4-0.20191109021931-daa7c04131f5","Time":"2019-11-09T02:19:31Z"}` {
		t.Errorf("infoFor = %s, %v", got, err)
	}
	if _, err := infoFor("v1.2.3"); err == nil || !strings.Contains(err.Error(), "not a pseudo-version") {
		t.Errorf("a tagged version gave %v", err)
	}
}

// A proxy that answers each path from a table, and 404 otherwise.
func proxyServing(t *testing.T, answers map[string]func(http.ResponseWriter)) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a, ok := answers[strings.TrimPrefix(r.URL.Path, "/")]; ok {
			a(w)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func status(code int) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) { http.Error(w, "This module version is not available.", code) }
}

func body(data []byte) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) { w.Write(data) }
}

func testRequest(t *testing.T, goproxy string, zipSum string) request {
	t.Helper()
	proxies, err := parseGOPROXY(goproxy)
	if err != nil {
		t.Fatal(err)
	}
	gosum := testModule + " " + testVersion + " " + zipSum + "\n" +
		testModule + " " + testVersion + "/go.mod " + testModSum + "\n"
	return request{modPath: testModule, version: testVersion, gosum: []byte(gosum), gosumName: "go.sum",
		modcache: t.TempDir(), proxies: proxies}
}

func goodZip(t *testing.T) ([]byte, string) {
	data := moduleZip(t, testModule+"@"+testVersion+"/", testFiles)
	z, _ := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	sum, err := hashZip(z)
	if err != nil {
		t.Fatal(err)
	}
	return data, sum
}

// downloadFiles lists what the version's download directory holds.
func downloadFiles(t *testing.T, r request) []string {
	t.Helper()
	files, _ := newVersionFiles(r.modcache, r.modPath, r.version)
	entries, _ := os.ReadDir(files.dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestSeedWritesWhatGoDownloadWrites(t *testing.T) {
	data, sum := goodZip(t)
	s := proxyServing(t, map[string]func(http.ResponseWriter){
		testRel + ".zip":  body(data),
		testRel + ".info": status(403),
		testRel + ".mod":  status(403),
	})
	r := testRequest(t, s.URL, sum)
	out, err := seed(r)
	if err != nil {
		t.Fatal(err)
	}
	if out.already || out.size != int64(len(data)) {
		t.Errorf("outcome %+v", out)
	}
	files, _ := newVersionFiles(r.modcache, r.modPath, r.version)
	for ext, want := range map[string]string{
		"mod":     testGoMod,
		"ziphash": sum,
		"info":    `{"Version":"` + testVersion + `","Time":"2020-01-01T00:00:00Z"}`,
		"zip":     string(data),
	} {
		got, err := os.ReadFile(files.path(ext))
		if err != nil || string(got) != want {
			t.Errorf(".%s = %q, %v; want %q", ext, got, err, want)
		}
	}
	if !strings.HasSuffix(files.dir, filepath.FromSlash("cache/download/example.com/!m/@v")) {
		t.Errorf("download directory %s", files.dir)
	}
	again, err := seed(r)
	if err != nil || !again.already {
		t.Errorf("second seed: %+v, %v", again, err)
	}
}

func TestCorruptZipIsRefusedAndNothingIsWritten(t *testing.T) {
	_, sum := goodZip(t)
	bad := moduleZip(t, testModule+"@"+testVersion+"/", map[string]string{"go.mod": testGoMod, "m.go": "package m // changed\n"})
	s := proxyServing(t, map[string]func(http.ResponseWriter){testRel + ".zip": body(bad)})
	r := testRequest(t, s.URL, sum)
	_, err := seed(r)
	if err == nil || !strings.Contains(err.Error(), "hashes to") || !strings.Contains(err.Error(), sum) ||
		!strings.Contains(err.Error(), "nothing written") {
		t.Fatalf("a corrupt zip gave %v", err)
	}
	if got := downloadFiles(t, r); len(got) != 1 || got[0] != testVersion+".lock" {
		t.Errorf("the download directory holds %v after a refusal; want only cmd/go's lock file", got)
	}
}

func TestNotAZipIsRefused(t *testing.T) {
	_, sum := goodZip(t)
	s := proxyServing(t, map[string]func(http.ResponseWriter){testRel + ".zip": body([]byte("<html>login</html>"))})
	r := testRequest(t, s.URL, sum)
	if _, err := seed(r); err == nil || !strings.Contains(err.Error(), "is not a zip") {
		t.Fatalf("an HTML page gave %v", err)
	}
	if got := downloadFiles(t, r); len(got) != 1 {
		t.Errorf("the download directory holds %v", got)
	}
}

func TestGoModOfTheZipMustMatchGoSum(t *testing.T) {
	data := moduleZip(t, testModule+"@"+testVersion+"/", map[string]string{"go.mod": "module other\n"})
	z, _ := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	sum, _ := hashZip(z)
	s := proxyServing(t, map[string]func(http.ResponseWriter){testRel + ".zip": body(data)})
	r := testRequest(t, s.URL, sum)
	if _, err := seed(r); err == nil || !strings.Contains(err.Error(), "/go.mod") {
		t.Fatalf("a go.mod go.sum does not pin gave %v", err)
	}
}

func TestRefusalNamesProxyStatusAndVersion(t *testing.T) {
	_, sum := goodZip(t)
	forbidden := proxyServing(t, map[string]func(http.ResponseWriter){testRel + ".zip": status(403)})
	data, _ := goodZip(t)
	serving := proxyServing(t, map[string]func(http.ResponseWriter){testRel + ".zip": body(data)})

	// After a comma, only 404 and 410 move on: a 403 is the answer.
	r := testRequest(t, forbidden.URL+","+serving.URL, sum)
	_, err := seed(r)
	if err == nil {
		t.Fatal("a 403 followed by a comma fell through")
	}
	for _, want := range []string{forbidden.URL, "403 Forbidden", testRel + ".zip", testModule + "@" + testVersion, "not available"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	// After a pipe, any error moves on.
	r = testRequest(t, forbidden.URL+"|"+serving.URL, sum)
	if out, err := seed(r); err != nil || out.from != serving.URL {
		t.Errorf("pipe: %+v, %v", out, err)
	}
	// A 404 moves on after a comma too; "direct" is named, not attempted.
	missing := proxyServing(t, nil)
	r = testRequest(t, missing.URL+",direct", sum)
	if _, err := seed(r); err == nil || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), `"direct"`) {
		t.Errorf("404 then direct gave %v", err)
	}
	r = testRequest(t, "off", sum)
	if _, err := seed(r); err == nil || !strings.Contains(err.Error(), "GOPROXY=off") {
		t.Errorf("off gave %v", err)
	}
}

func TestFileProxy(t *testing.T) {
	data, sum := goodZip(t)
	root := t.TempDir()
	dir := filepath.Join(root, filepath.FromSlash("example.com/!m/@v"))
	os.MkdirAll(dir, 0o777)
	os.WriteFile(filepath.Join(dir, testVersion+".zip"), data, 0o666)
	r := testRequest(t, "file://"+filepath.ToSlash(root), sum)
	if _, err := seed(r); err != nil {
		t.Fatal(err)
	}
}

func TestCredentialsInGOPROXYAreNotShown(t *testing.T) {
	_, sum := goodZip(t)
	s := proxyServing(t, map[string]func(http.ResponseWriter){testRel + ".zip": status(401)})
	u := strings.Replace(s.URL, "http://", "http://alice:s3cret@", 1)
	r := testRequest(t, u, sum)
	_, err := seed(r)
	if err == nil || strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "alice") {
		t.Errorf("message %v shows the credentials", err)
	}
}

func TestGoSumMustPinBothHashes(t *testing.T) {
	r := testRequest(t, "off", "h1:x")
	r.gosum = []byte(testModule + " " + testVersion + "/go.mod " + testModSum + "\n")
	if _, err := seed(r); err == nil || !strings.Contains(err.Error(), "no hash of its zip") {
		t.Errorf("a go.sum without the zip's hash gave %v", err)
	}
}

func TestPrintGoSumWritesNothing(t *testing.T) {
	data, sum := goodZip(t)
	s := proxyServing(t, map[string]func(http.ResponseWriter){testRel + ".zip": body(data)})
	r := testRequest(t, s.URL, sum)
	lines, from, err := goSumLines(r)
	if err != nil || from != s.URL {
		t.Fatal(from, err)
	}
	want := testModule + " " + testVersion + " " + sum + "\n" + testModule + " " + testVersion + "/go.mod " + testModSum + "\n"
	if lines != want {
		t.Errorf("lines %q, want %q", lines, want)
	}
	if got := downloadFiles(t, r); len(got) != 0 {
		t.Errorf("the module cache holds %v", got)
	}
}
