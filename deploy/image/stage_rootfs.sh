#!/usr/bin/env bash
# Lays out the container image's whole root file system in DEST: the final stage
# of deploy/Dockerfile is `FROM scratch` + `COPY --from=build /rootfs/ /`, and this
# script is what fills /rootfs in the build stage (deploy/image/linked_packages.sh
# then adds /var/lib/dpkg/status.d). deploy/test_image.sh checks the pulled
# image's layer holds exactly these paths.
#
#   deploy/image/stage_rootfs.sh BINARY DEST
#
# DEST gets exactly:
#   /usr/local/bin/tightpack            the binary (static; else the libraries ldd names and the loader)
#   /etc/ssl/certs/ca-certificates.crt  Debian's CA bundle (kubeconfig servers with public certificates)
#   /usr/lib/ssl/cert.pem -> the bundle OpenSSL's default file (OPENSSLDIR=/usr/lib/ssl on Debian)
#   /etc/passwd, /etc/group             root and nonroot (65532), as distroless images have them
#   /tmp                                empty, mode 1777 (nothing writes there: the root may be read-only)
# and no shell, no package manager, nothing else.
set -euo pipefail
[[ $# == 2 ]] || { echo "usage: stage_rootfs.sh BINARY DEST" >&2; exit 2; }
bin=$1 dest=$2
[[ -x $bin ]] || { echo "stage_rootfs: $bin is not an executable" >&2; exit 1; }
bundle=/etc/ssl/certs/ca-certificates.crt
[[ -s $bundle ]] || { echo "stage_rootfs: $bundle missing (apt-get install ca-certificates)" >&2; exit 1; }

mkdir -p "$dest"
[[ -z $(ls -A "$dest") ]] || { echo "stage_rootfs: $dest is not empty" >&2; exit 1; }
install -D -m 0755 "$bin" "$dest/usr/local/bin/tightpack"
install -D -m 0644 "$bundle" "$dest/etc/ssl/certs/ca-certificates.crt"
mkdir -p "$dest/usr/lib/ssl"
ln -s /etc/ssl/certs/ca-certificates.crt "$dest/usr/lib/ssl/cert.pem"
cat >"$dest/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/sbin/nologin
nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin
PASSWD
cat >"$dest/etc/group" <<'GROUP'
root:x:0:
nonroot:x:65532:
GROUP
chmod 0644 "$dest/etc/passwd" "$dest/etc/group"
install -d -m 1777 "$dest/tmp"

# A dynamic binary (a build where the static link was not possible): the exact
# shared libraries it loads, at the paths ldd resolves, and the loader.
if ldd "$bin" >/dev/null 2>&1; then
  while read -r lib; do
    install -D -m 0644 "$lib" "$dest$lib"
  done < <(ldd "$bin" | grep -o '/[^ ]*' | sort -u)
  echo "stage_rootfs: dynamic binary: copied $(ldd "$bin" | grep -c '/') libraries" >&2
fi
echo "stage_rootfs: $(find "$dest" -mindepth 1 | wc -l) paths in $dest"
