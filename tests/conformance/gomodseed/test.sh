#!/usr/bin/env bash
# Tests gomodseed where it matters: the unit tests (a proxy answering 403,
# 404, a corrupt zip, credentials in GOPROXY), then the real
# cluster-autoscaler pseudo-version the reference pins (about 11 MB) seeded
# from the module proxy into an empty, temporary GOMODCACHE and checked by the
# go command itself with the proxy switched off, then the same zip with one
# byte changed, served by a file:// proxy, which must be refused with nothing
# of that version left in the cache.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
gosum=$(cd "$here/../autoscaler-reference" && pwd)/go.sum
ca=k8s.io/autoscaler/cluster-autoscaler
version=$(awk -v m="$ca" '$1 == m && $2 !~ /\/go.mod$/ { print $2 }' "$gosum")
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "gomodseed test: $*" >&2; exit 1; }

(cd "$here" && GOFLAGS= go test -count=1 ./...)
(cd "$here" && GOFLAGS= go build -o "$tmp/gomodseed" .)

# The real module, from the proxy `go env GOPROXY` names, into an empty cache.
export GOMODCACHE=$tmp/modcache
"$tmp/gomodseed" -gosum "$gosum" "$ca@$version"

# The go command, proxy off, extracts it and checks it against go.sum; then
# `go mod verify` hashes the zip and the extracted tree again.
mkdir "$tmp/user"
printf 'module seedcheck\n\ngo 1.22\n\nrequire %s %s\n' "$ca" "$version" > "$tmp/user/go.mod"
grep "^$ca $version" "$gosum" > "$tmp/user/go.sum"
(
  cd "$tmp/user"
  export GOPROXY=off GOFLAGS=-mod=mod
  go mod download -json "$ca@$version" > "$tmp/download.json"
  go mod verify
)
want_sum=$(awk -v m="$ca" -v v="$version" '$1 == m && $2 == v { print $3 }' "$gosum")
want_mod=$(awk -v m="$ca" -v v="$version/go.mod" '$1 == m && $2 == v { print $3 }' "$gosum")
grep -q "\"Sum\": \"$want_sum\"" "$tmp/download.json" || fail "go mod download reports $(grep Sum "$tmp/download.json")"
grep -q "\"GoModSum\": \"$want_mod\"" "$tmp/download.json" || fail "go mod download reports $(grep GoModSum "$tmp/download.json")"
"$tmp/gomodseed" -gosum "$gosum" "$ca@$version" | grep -q "is in the module cache" ||
  fail "a second run did not find the module in the cache"

# The same zip with one file changed, from a file:// proxy: refused.
vdir=$ca/@v
mkdir -p "$tmp/proxy/$vdir"
python3 - "$GOMODCACHE/cache/download/$vdir/$version.zip" "$tmp/proxy/$vdir/$version.zip" <<'EOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as src, zipfile.ZipFile(sys.argv[2], "w") as dst:
    changed = None
    for info in src.infolist():
        data = src.read(info)
        if changed is None and info.filename.endswith(".go"):
            data, changed = data + b"\n", info.filename
        dst.writestr(info, data)
print("gomodseed test: served", sys.argv[2].rsplit("/", 1)[-1], "with", changed, "one byte longer")
EOF
export GOMODCACHE=$tmp/modcache-corrupt
if GOPROXY=file://$tmp/proxy "$tmp/gomodseed" -gosum "$gosum" "$ca@$version" 2> "$tmp/err"; then
  fail "a corrupt zip was seeded"
fi
cat "$tmp/err"
grep -q "hashes to .*pins $want_sum; refused, nothing written" "$tmp/err" || fail "the refusal does not say why"
left=$(cd "$GOMODCACHE/cache/download/$vdir" && ls -A)
[[ $left == "$version.lock" ]] || fail "after the refusal the cache holds: $left"
[[ ! -e $GOMODCACHE/$ca@$version ]] || fail "after the refusal the module was extracted"
echo "gomodseed test: passed"
