#!/usr/bin/env bash
# Makes the build stage's base, `debian:12`, from Debian's own packages, for a
# machine that can reach Debian's archive but no image registry (this project's
# machines): mmdebstrap's minbase of bookworm with bookworm-updates and
# bookworm-security, as the official image is made (debuerreotype, minbase),
# imported into buildah's storage as docker.io/library/debian:12 so that
# deploy/Dockerfile's `FROM debian:12` resolves to it without a pull. Where
# Docker Hub can be reached, the official image is the same thing.
#
#   deploy/image-tools/base_image.sh STORAGE_DIR     # buildah --root STORAGE_DIR/root --runroot STORAGE_DIR/run
#
# Does nothing when the storage holds the image already; `--force` remakes it.
set -euo pipefail
[[ $# -ge 1 ]] || { echo "usage: base_image.sh STORAGE_DIR [--force]" >&2; exit 2; }
storage=$1
ref=docker.io/library/debian:12
bah() { buildah --root "$storage/root" --runroot "$storage/run" --storage-driver vfs "$@"; }
if [[ ${2:-} != --force ]] && bah inspect --type image "$ref" >/dev/null 2>&1; then
  echo "base_image: $ref is in $storage already"
  exit 0
fi
for tool in mmdebstrap buildah; do
  command -v $tool >/dev/null || { echo "base_image: $tool is not installed (scripts/bootstrap.sh installs it)" >&2; exit 1; }
done
start=$SECONDS
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mirror=http://deb.debian.org/debian
mmdebstrap --quiet --variant=minbase --format=tar bookworm "$tmp/rootfs.tar" \
  "deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
  "deb http://deb.debian.org/debian-security bookworm-security main"
ctr=$(bah from scratch)
bah add "$ctr" "$tmp/rootfs.tar" / >/dev/null
bah config --cmd bash --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$ctr"
bah commit --quiet --rm "$ctr" "$ref" >/dev/null
echo "base_image: $ref from Debian's packages ($(du -h "$tmp/rootfs.tar" | cut -f1)) in $((SECONDS - start)) s"
