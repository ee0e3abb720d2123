package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// One entry of GOPROXY, read as cmd/go reads it: a URL, "direct" or "off";
// after a comma the next entry is tried only when this one answers 404 or 410,
// after a pipe on any error.
type proxyEntry struct {
	url             string
	fallBackOnError bool
}

func parseGOPROXY(value string) ([]proxyEntry, error) {
	var entries []proxyEntry
	for value != "" {
		var item string
		fallBackOnError := false
		if i := strings.IndexAny(value, ",|"); i >= 0 {
			item, fallBackOnError, value = value[:i], value[i] == '|', value[i+1:]
		} else {
			item, value = value, ""
		}
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if item != "direct" && item != "off" &&
			strings.ContainsAny(item, ".:/") && !strings.Contains(item, ":/") &&
			!filepath.IsAbs(item) && !path.IsAbs(item) {
			item = "https://" + item
		}
		entries = append(entries, proxyEntry{url: item, fallBackOnError: fallBackOnError})
	}
	if len(entries) == 0 {
		return nil, errors.New("GOPROXY is empty")
	}
	return entries, nil
}

// What a proxy said instead of the file: its status (0 when it never
// answered) and a sentence for the user.
type proxyError struct {
	status int
	text   string
}

func (e *proxyError) Error() string { return e.text }

func (e *proxyError) notFound() bool {
	return e.status == http.StatusNotFound || e.status == http.StatusGone
}

var httpClient = &http.Client{Timeout: 10 * time.Minute}

// get writes the file at rel under one proxy to w, or says why not.
func get(base, rel string, w io.Writer) *proxyError {
	shown := redact(base)
	u, err := url.Parse(base)
	if err != nil {
		return &proxyError{text: fmt.Sprintf("GOPROXY entry %q is not a URL: %v", shown, err)}
	}
	switch u.Scheme {
	case "file":
		f, err := os.Open(filepath.Join(filepath.FromSlash(u.Path), filepath.FromSlash(rel)))
		if err != nil {
			status := 0
			if errors.Is(err, os.ErrNotExist) {
				status = http.StatusNotFound
			}
			return &proxyError{status: status, text: fmt.Sprintf("%s has no %s", shown, rel)}
		}
		defer f.Close()
		if _, err := io.Copy(w, f); err != nil {
			return &proxyError{text: fmt.Sprintf("reading %s from %s: %v", rel, shown, err)}
		}
		return nil
	case "http", "https":
	default:
		return &proxyError{text: fmt.Sprintf("GOPROXY entry %q: this seeder speaks http, https and file, not %q", shown, u.Scheme)}
	}
	full := strings.TrimSuffix(base, "/") + "/" + rel
	resp, err := httpClient.Get(full)
	if err != nil {
		return &proxyError{text: fmt.Sprintf("%s did not answer for %s: %v", shown, rel, redactError(err, base))}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		text := fmt.Sprintf("%s answered %s for %s", shown, resp.Status, rel)
		if s := strings.TrimSpace(string(body)); s != "" && !strings.ContainsAny(s, "<\n") {
			text += fmt.Sprintf(" (%q)", s)
		}
		return &proxyError{status: resp.StatusCode, text: text}
	}
	if _, err := io.Copy(w, resp.Body); err != nil {
		return &proxyError{text: fmt.Sprintf("%s broke off %s: %v", shown, rel, redactError(err, base))}
	}
	return nil
}

// fetch walks GOPROXY as cmd/go does and returns the proxy that served rel.
// reset is called before each new attempt so that w holds one answer only.
func fetch(entries []proxyEntry, rel string, w io.Writer, reset func() error) (string, error) {
	var tried []string
	for _, e := range entries {
		switch e.url {
		case "off":
			tried = append(tried, "GOPROXY=off forbids the next download")
			return "", errors.New(strings.Join(tried, "; "))
		case "direct":
			tried = append(tried, "GOPROXY's next entry is \"direct\" (a clone of the repository), which this seeder does not do")
			return "", errors.New(strings.Join(tried, "; "))
		}
		if err := reset(); err != nil {
			return "", err
		}
		perr := get(e.url, rel, w)
		if perr == nil {
			return redact(e.url), nil
		}
		tried = append(tried, perr.text)
		if !e.fallBackOnError && !perr.notFound() {
			break
		}
	}
	return "", errors.New(strings.Join(tried, "; "))
}

// redact hides the user information a GOPROXY URL may carry.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = url.User("xxxxx")
	return u.String()
}

func redactError(err error, base string) string {
	text := err.Error()
	if u, perr := url.Parse(base); perr == nil && u.User != nil {
		text = strings.ReplaceAll(text, u.User.String(), "xxxxx")
	}
	return text
}
