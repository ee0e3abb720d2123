#!/usr/bin/env bash
# Builds deploy/helm/netpol (cyclonus' NetworkPolicy matcher behind a JSON command,
# github.com/mattfenwick/cyclonus at the version its go.mod names) into
# build/helm/netpol-judge, for the chart test's NetworkPolicy checks. Only the Go module
# proxy is used, for the modules go.sum lists; ~45 s cold on 2 cores, seconds after.
#
#   deploy/helm/build_netpol_judge.sh    # does nothing when the binary is newer than its sources
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
src="$here/netpol"
out="$root/build/helm/netpol-judge"
if [[ -x $out ]] && [[ -z $(find "$src" -newer "$out" -type f) ]]; then
  echo "build_netpol_judge: $out is up to date"
  exit 0
fi
command -v go >/dev/null || { echo "build_netpol_judge: Go is not installed (the machine's Go 1.26 is expected)" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
start=$SECONDS
cd "$src"
go build -p 1 -trimpath -o "$out.tmp" . && mv "$out.tmp" "$out"
echo "build_netpol_judge: built $out in $((SECONDS - start)) s"
