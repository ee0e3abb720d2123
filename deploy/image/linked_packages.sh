#!/usr/bin/env bash
# Writes, for each Debian package whose code is inside the static `tightpack`
# binary, that package's dpkg status entry to DEST/<package>, as distroless
# images keep /var/lib/dpkg/status.d/: image scanners (syft, trivy, grype,
# BuildKit's --sbom) read that folder, so they see the glibc, OpenSSL,
# libstdc++, yaml-cpp and Boost versions a static link otherwise hides, and
# deploy/image-tools/sbom.py turns it into an SPDX document.
#
#   deploy/image/linked_packages.sh BUILD_DIR DEST [PACKAGE...]
#
# PACKAGEs are added as they are: packages whose files the image holds beside
# the binary (ca-certificates, whose bundle stage_rootfs.sh copies).
#
# The packages are found, not listed by hand: every file below /usr that the
# linker took a member or an object from (BUILD_DIR/tightpack.map, which
# build_binary.sh asks the linker for) and every header below /usr that a
# compiled file included (ninja's dependency log), mapped to its package by
# dpkg. linux-libc-dev is left out: its headers only declare the kernel's
# interface, and none of its code is in the binary.
set -euo pipefail
[[ $# -ge 2 ]] || { echo "usage: linked_packages.sh BUILD_DIR DEST [PACKAGE...]" >&2; exit 2; }
build=$1 dest=$2
shift 2
map=$build/tightpack.map
[[ -s $map ]] || { echo "linked_packages: $map missing (deploy/image/build_binary.sh writes it)" >&2; exit 1; }

files=$(mktemp)
trap 'rm -f "$files"' EXIT
# Archive members the link took: "/usr/lib/x86_64-linux-gnu/libssl.a(ssl_lib.o)";
# plain objects it loaded: "LOAD /usr/lib/.../crt1.o".
{
  grep -oE '^/usr/[^( ]+\.a\(' "$map" | sed 's/($//'
  awk '$1 == "LOAD" && $2 ~ /^\/usr\/.*\.o$/ {print $2}' "$map"
  ninja -C "$build" -t deps | awk '$1 ~ /^\/usr\// {print $1}'
} | xargs -r realpath -e | sort -u >"$files"
[[ -s $files ]] || { echo "linked_packages: no input below /usr found in $map and the dependency log" >&2; exit 1; }

# dpkg -S answers "package[:arch]: path" per owned path; every file must have an owner.
packages=$({ xargs -r dpkg -S <"$files" | cut -d: -f1 | tr ', ' '\n\n'; printf '%s\n' "$@"; } |
  sed '/^$/d' | sort -u | grep -vx linux-libc-dev)
owned=$(xargs -r dpkg -S <"$files" 2>/dev/null | wc -l)
[[ $owned == $(wc -l <"$files") ]] || { echo "linked_packages: some inputs belong to no package:" >&2; xargs dpkg -S <"$files" >/dev/null; exit 1; }

mkdir -p "$dest"
for p in $packages; do
  # The fields distroless keeps (what scanners match on), in dpkg's order.
  dpkg-query -W -f='Package: ${Package}\nStatus: ${Status}\nPriority: ${Priority}\nSection: ${Section}\nInstalled-Size: ${Installed-Size}\nMaintainer: ${Maintainer}\nArchitecture: ${Architecture}\nMulti-Arch: ${Multi-Arch}\nSource: ${Source}\nVersion: ${Version}\nHomepage: ${Homepage}\n' "$p" |
    sed -E '/^[A-Za-z-]+: $/d' >"$dest/$p"
  chmod 0644 "$dest/$p"
done
echo "linked_packages: $(echo "$packages" | wc -w) packages from $(wc -l <"$files") files: $(echo $packages)"
