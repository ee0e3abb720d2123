#!/usr/bin/env bash
# The image, for real: deploy/Dockerfile built by buildah (an OCI builder; no Docker
# engine runs on this project's machines), pushed to the CNCF distribution registry
# on loopback, pulled back by skopeo, checked, and the binary run from the pulled
# layer's bytes against the test control plane.
#
#   deploy/test_image.sh               # as root (CI runs as root)
#   deploy/test_image.sh --build-only  # steps 1-2 only (scripts/test.sh runs this in the background)
#   deploy/test_image.sh --reuse-build # steps 3-5 on the image --build-only built from this tree
#   deploy/test_image.sh --reproduce   # and a second build, --no-cache, from `git archive HEAD`
#                                      # in another folder: the same image digest, or the files that differ
#
# 1. Tools: buildah, skopeo and mmdebstrap from Debian (scripts/bootstrap.sh), the
#    registry built from its Go module (deploy/image-tools/build_registry.sh). The build
#    stage's `FROM debian:12` is made from Debian's packages by
#    deploy/image-tools/base_image.sh, since no registry can be reached here.
# 2. `buildah build -f deploy/Dockerfile` from the repository root, the file exactly
#    as a user gives it to `docker build`: chroot isolation, vfs storage in
#    build/containers, the commit's time as every timestamp (--timestamp), the
#    commit as REVISION.
# 3. The registry on 127.0.0.1 with TLS (a CA made for the run) and htpasswd
#    authentication: a push without credentials is refused, with them it lands.
# 4. Pulled back by digest (skopeo copy to an OCI layout) and checked: one layer,
#    the configuration (USER 65532:65532, ENTRYPOINT, CMD, ports, OCI labels:
#    version = CMakeLists.txt's = the chart's appVersion = `tightpack --version`,
#    revision = the commit, source, licenses), the layer's exact file list (no
#    shell), its size, the dpkg status entries of the packages linked into the
#    binary; an SPDX 2.3 SBOM of the pulled image (deploy/image-tools/sbom.py) valid
#    for spdx-tools.
# 5. The pulled layer, unpacked, is the whole root of the binary: in a new mount
#    namespace it is remounted read-only with only what a container runtime adds
#    (/dev null, zero, random, urandom; /proc; /etc/hosts; the configuration at
#    /etc/tightpack; the service-account token, CA and namespace), the image's USER,
#    ENTRYPOINT and an environment of KUBERNETES_SERVICE_HOST/PORT and POD_NAME alone
#    (the in-cluster configuration path, as in a pod). It syncs, leads, binds a pod,
#    records the event, serves the probes and /metrics, has no capabilities, and
#    exits 0 on SIGTERM releasing the Lease; a second run reaches the API server as
#    https://localhost:PORT through a kubeconfig (host names resolve in the static
#    binary).
set -euo pipefail
cd "$(dirname "$0")/.."
root_dir=$PWD
start=$SECONDS
out=build/image-test
storage=$root_dir/build/containers
mode=${1:-}
[[ -z $mode || $mode == --build-only || $mode == --reuse-build || $mode == --reproduce ]] ||
  { echo "usage: deploy/test_image.sh [--build-only|--reuse-build|--reproduce]" >&2; exit 2; }

fail() { echo "test_image: FAILED: $*" >&2; exit 1; }
step() { echo "== $* [$((SECONDS - start)) s]"; }
bah() { buildah --root "$storage/root" --runroot "$storage/run" --storage-driver vfs "$@"; }
[[ $(id -u) == 0 ]] || fail "needs root: buildah's chroot isolation, unshare --mount and the chroot need it (CI runs as root)"
for tool in buildah skopeo mmdebstrap openssl; do
  command -v $tool >/dev/null || fail "$tool is not installed (scripts/bootstrap.sh installs it)"
done

version=$(sed -nE 's/^project\(tightpack VERSION ([0-9.]+).*/\1/p' CMakeLists.txt)
revision=$(git rev-parse HEAD)
epoch=$(git log -1 --format=%ct)
image=localhost/tightpack:$version

# build_image CONTEXT TAG [ARG...]: deploy/Dockerfile in CONTEXT, as a user builds it.
build_image() {
  local context=$1 tag=$2
  shift 2
  (cd "$context" && bah build --isolation chroot --pull=never --quiet \
    -f deploy/Dockerfile --ignorefile deploy/Dockerfile.dockerignore \
    --timestamp "$epoch" --identity-label=false --build-arg REVISION="$revision" -t "$tag" "$@" .)
}

# What the image is built from: the commit and the state of the files the build
# context admits (--reuse-build takes the image only if they are unchanged).
context=(CMakeLists.txt CMakePresets.json core scheduler deploy/image deploy/Dockerfile deploy/Dockerfile.dockerignore)
context_state() {
  { echo "$revision"; git status --porcelain -- "${context[@]}"; git diff HEAD -- "${context[@]}"; } |
    sha256sum | cut -c1-16
}

step "1. tools and the base image"
deploy/image-tools/build_registry.sh
mkdir -p "$storage"
deploy/image-tools/base_image.sh "$storage"

if [[ $mode == --reuse-build ]]; then
  [[ $(cat "$storage/built" 2>/dev/null) == "$(context_state)" ]] ||
    fail "--reuse-build: no image built by --build-only from this tree (build/containers/built)"
  echo "== 2. $image, built by deploy/test_image.sh --build-only from this tree"
else
  step "2. buildah build -f deploy/Dockerfile (revision $revision, timestamp $epoch)"
  t=$SECONDS
  state=$(context_state)
  rm -f "$storage/built"
  # A previous run's image and any layer only it used go first: vfs keeps full copies.
  bah rmi --force "$image" >/dev/null 2>&1 || true
  if ! build_image . "$image" >"$storage/build.log" 2>&1; then
    tail -40 "$storage/build.log" >&2
    fail "buildah build -f deploy/Dockerfile failed (log: $storage/build.log)"
  fi
  echo "$state" >"$storage/built"
  echo "  built in $((SECONDS - t)) s (log: $storage/build.log)"
fi
image_id=$(bah inspect --type image --format '{{.FromImageID}}' "$image")
echo "  $image: image id sha256:$image_id"
[[ $mode == --build-only ]] && { echo "test_image: built in $((SECONDS - start)) s"; exit 0; }

rm -rf "$out"
mkdir -p "$out"
pids=()
cp_dir=$root_dir/$out/controlplane
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  [[ -f $cp_dir/env ]] && tests/controlplane/controlplane.sh stop "$cp_dir" >/dev/null 2>&1 || true
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

step "3. the registry on loopback (TLS, htpasswd), push"
reg=$root_dir/$out/registry
mkdir -p "$reg/certs" "$reg/data"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj "/CN=test-image CA" \
  -keyout "$reg/ca.key" -out "$reg/certs/ca.crt" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=127.0.0.1" \
  -keyout "$reg/tls.key" -out "$reg/tls.csr" 2>/dev/null
openssl x509 -req -in "$reg/tls.csr" -CA "$reg/certs/ca.crt" -CAkey "$reg/ca.key" -CAcreateserial -days 1 \
  -extfile <(printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n') \
  -out "$reg/tls.crt" 2>/dev/null
password=$(openssl rand -hex 16)
python3 -W ignore -c 'import crypt, sys; print("pusher:" + crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH)))' \
  "$password" >"$reg/htpasswd"
reg_port=$(free_port)
cat >"$reg/config.yml" <<CONFIG
version: 0.1
log: {level: warn}
storage: {filesystem: {rootdirectory: $reg/data}}
auth: {htpasswd: {realm: test-image, path: $reg/htpasswd}}
http:
  addr: 127.0.0.1:$reg_port
  tls: {certificate: $reg/tls.crt, key: $reg/tls.key}
CONFIG
build/image-tools/registry serve "$reg/config.yml" >"$reg/log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do
  curl -s -o /dev/null --cacert "$reg/certs/ca.crt" "https://127.0.0.1:$reg_port/v2/" && break
  sleep 0.2
done
status=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$reg/certs/ca.crt" "https://127.0.0.1:$reg_port/v2/")
[[ $status == 401 ]] || fail "the registry answers /v2/ without credentials with $status, not 401 (log: $reg/log)"
repo=127.0.0.1:$reg_port/tightpack/tightpack
if bah push --cert-dir "$reg/certs" "$image" "docker://$repo:$version" >"$out/push-anonymous.log" 2>&1; then
  fail "the registry took a push without credentials"
fi
echo "  a push without credentials: refused ($(grep -o 'unauthorized[^"]*' "$out/push-anonymous.log" | head -1))"
bah push --quiet --cert-dir "$reg/certs" --creds "pusher:$password" --digestfile "$out/digest" \
  "$image" "docker://$repo:$version" >"$out/push.log" 2>&1 || { cat "$out/push.log" >&2; fail "buildah push failed"; }
digest=$(cat "$out/digest")
echo "$repo" >"$out/repository"  # deploy/test_chart.sh's releases name $repo@$digest
echo "  pushed $repo:$version: $digest"

step "4. pulled back by digest, inspected"
pulled=$out/pulled
skopeo copy --quiet --src-cert-dir "$reg/certs" --src-creds "pusher:$password" \
  "docker://$repo@$digest" "oci:$pulled:tightpack" >"$out/pull.log" 2>&1 || { cat "$out/pull.log" >&2; fail "skopeo copy failed"; }
skopeo inspect --cert-dir "$reg/certs" --creds "pusher:$password" --config "docker://$repo@$digest" >"$out/config.json"
rootfs=$out/rootfs
build/venv/bin/python - "$pulled" "$digest" "$rootfs" "$out/config.json" "$version" "$revision" <<'EOF'
import hashlib, json, os, sys
from pathlib import Path
sys.path.insert(0, "deploy/image-tools")
import oci_layout
layout, digest, rootfs, config_file, version, revision = sys.argv[1:]
errors = []
if oci_layout.manifest_digest(layout, "tightpack") != digest:
    errors.append(f"the pulled manifest is not the pushed {digest}")
manifest, config = oci_layout.image(layout, digest)
if config != json.loads(Path(config_file).read_text()):
    errors.append("skopeo inspect --config differs from the pulled configuration blob")
layers = manifest["layers"]
c = config["config"]
if c.get("User") != "65532:65532": errors.append(f"User {c.get('User')!r}")
if c.get("Entrypoint") != ["/usr/local/bin/tightpack"]: errors.append(f"Entrypoint {c.get('Entrypoint')}")
if c.get("Cmd") != ["schedule", "--help"]: errors.append(f"Cmd {c.get('Cmd')}")
if sorted(c.get("ExposedPorts", {})) != ["10258/tcp", "10259/tcp"]: errors.append(f"ExposedPorts {c.get('ExposedPorts')}")
labels = c.get("Labels", {})
want = {"org.opencontainers.image.version": version, "org.opencontainers.image.revision": revision,
        "org.opencontainers.image.source": "https://github.com/tightpack/tightpack",
        "org.opencontainers.image.licenses": "Apache-2.0", "org.opencontainers.image.title": "tightpack"}
for k, v in want.items():
    if labels.get(k) != v:
        errors.append(f"label {k} is {labels.get(k)!r}, expected {v!r}")
if config["os"] != "linux" or config["architecture"] != "amd64":
    errors.append(f"platform {config['os']}/{config['architecture']}")
# The layer: one, its diff id, then its members, before anything is written.
raw, tar = oci_layout.layer(layout, manifest)
if "sha256:" + hashlib.sha256(raw).hexdigest() != config["rootfs"]["diff_ids"][0]:
    errors.append("the layer does not match the configuration's diff id")
members = tar.getmembers()
names = sorted(m.name.rstrip("/").removeprefix("./") for m in members if m.name not in (".", "./"))
errors += [f"layer member {m!r} is unsafe" for m in oci_layout.unsafe_members(tar)]
# A static binary and a CA bundle: a layer over 20 MB means something else got in.
if layers[0]["size"] >= 20_000_000:
    errors.append(f"the compressed layer is {layers[0]['size']} bytes (more than 20 MB)")
statuses = sorted(n.rsplit("/", 1)[1] for n in names if n.startswith("var/lib/dpkg/status.d/"))
expected = sorted("etc etc/group etc/passwd etc/ssl etc/ssl/certs etc/ssl/certs/ca-certificates.crt tmp usr usr/lib "
                  "usr/lib/ssl usr/lib/ssl/cert.pem usr/local usr/local/bin usr/local/bin/tightpack var var/lib "
                  "var/lib/dpkg var/lib/dpkg/status.d".split() + [f"var/lib/dpkg/status.d/{s}" for s in statuses])
if names != expected:
    errors.append(f"layer holds {sorted(set(names) ^ set(expected))} beyond or short of the expected paths")
for shell in ("bin/sh", "bin/bash", "usr/bin/sh", "busybox"):
    if shell in names:
        errors.append(f"the image has a shell: /{shell}")
linked = {"libc6-dev", "libstdc++-12-dev", "libgcc-12-dev", "libssl-dev", "libyaml-cpp-dev", "libboost1.81-dev",
          "ca-certificates"}
if not linked <= set(statuses):
    errors.append(f"status.d lacks {sorted(linked - set(statuses))} (has {statuses})")
if "linux-libc-dev" in statuses:
    errors.append("status.d lists linux-libc-dev, whose code is not in the binary")
bin_member = tar.getmember(next(m.name for m in members if m.name.removeprefix("./") == "usr/local/bin/tightpack"))
if bin_member.uid != 0 or bin_member.mode & 0o7777 != 0o755:
    errors.append(f"/usr/local/bin/tightpack: uid {bin_member.uid}, mode {oct(bin_member.mode)}")
if errors:
    print("\n".join(f"  {e}" for e in errors), file=sys.stderr)
    raise SystemExit(1)
os.makedirs(rootfs)
tar.extractall(rootfs, numeric_owner=True, filter="fully_trusted")
print(f"  manifest {digest}: 1 layer, {layers[0]['size'] / 1e6:.1f} MB compressed, {len(raw) / 1e6:.1f} MB "
      f"unpacked, {len(names)} paths; USER 65532:65532, ENTRYPOINT /usr/local/bin/tightpack, labels version "
      f"{version}, revision {revision[:12]}, licenses Apache-2.0; status.d: {' '.join(statuses)}")
EOF
ldd "$rootfs/usr/local/bin/tightpack" >/dev/null 2>&1 && fail "the pulled binary is dynamic"
got=$(unshare --root="$rootfs" --setuid 65532 --setgid 65532 -- /usr/local/bin/tightpack --version)
chart_version=$(sed -nE 's/^appVersion: "?([^"]+)"?$/\1/p' deploy/helm/tightpack/Chart.yaml)
dockerfile_version=$(sed -nE 's/^ARG VERSION=(.*)$/\1/p' deploy/Dockerfile)
[[ $got == "tightpack $version" && $chart_version == "$version" && $dockerfile_version == "$version" ]] ||
  fail "versions differ: CMakeLists.txt $version, the pulled binary '$got', Chart.yaml appVersion $chart_version, the Dockerfile's VERSION $dockerfile_version"
echo "  one version: CMakeLists.txt, \`tightpack --version\` of the pulled binary, Chart.yaml appVersion, the label: $version"

[[ -x build/image-tools/venv/bin/pyspdxtools ]] || {
  python3 -m venv build/image-tools/venv && build/image-tools/venv/bin/pip install --quiet -r deploy/image-tools/requirements.txt
}
# As an operator makes it: from the registry, by digest.
python3 deploy/image-tools/sbom.py --image "$repo@$digest" --cert-dir "$reg/certs" --creds "pusher:$password" \
  -o "$out/sbom.spdx.json"
build/image-tools/venv/bin/pyspdxtools -i "$out/sbom.spdx.json" >"$out/sbom-validation.log" 2>&1 ||
  { cat "$out/sbom-validation.log" >&2; fail "spdx-tools finds the SBOM invalid"; }
python3 - "$out/sbom.spdx.json" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
by_id = {p["SPDXID"]: p for p in doc["packages"]}
linked = sorted(by_id[r["relatedSpdxElement"]]["name"] for r in doc["relationships"] if r["relationshipType"] == "STATIC_LINK")
purls = [ref["referenceLocator"] for p in doc["packages"] for ref in p.get("externalRefs", [])]
assert any(p.startswith("pkg:deb/debian/libssl-dev@") for p in purls), purls
print(f"  SBOM (SPDX 2.3, valid for spdx-tools): {len(doc['packages'])} packages; tightpack statically links {', '.join(linked)}")
EOF

step "5. the pulled layer as the binary's whole root, against the control plane"
if [[ ! -x build/controlplane/kube-apiserver || ! -x build/controlplane/etcd ]]; then
  tests/controlplane/build.sh
fi
tests/controlplane/controlplane.sh start "$cp_dir" >/dev/null
# shellcheck disable=SC1091
source "$cp_dir/env"
api_port=${CP_URL##*:}

# What the kubelet would mount: the token (0644, as a projected service-account
# volume's default mode), the cluster CA, the namespace; the configuration.
secrets=$root_dir/$out/serviceaccount
config=$root_dir/$out/config
mkdir -p "$secrets" "$config"
printf '%s' "$CP_TOKEN" >"$secrets/token"
cp "$CP_CA" "$secrets/ca.crt"
printf 'kube-system' >"$secrets/namespace"
chmod 0644 "$secrets"/*
# config/tightpack.yaml as it is: no leaderElection section, so the defaults
# (leader election on, Lease kube-system/tightpack).
cp config/tightpack.yaml "$config/config.yaml"
printf '127.0.0.1 localhost\n::1 localhost ip6-localhost\n' >"$out/hosts"
cat >"$config/kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters: [{name: test, cluster: {server: "https://localhost:$api_port", certificate-authority: /var/run/secrets/kubernetes.io/serviceaccount/ca.crt}}]
users: [{name: u, user: {tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token}}]
contexts: [{name: test, context: {cluster: test, user: u}}]
current-context: test
KUBECONFIG

# run_in_root NAME [ARG...]: the image's ENTRYPOINT with `schedule` and ARGs, in a copy
# of the pulled root as described above, in the background; its pid in pids.
run_in_root() {
  local name=$1
  shift
  local base=$root_dir/$out/$name
  mkdir -p "$base/root"
  cp -a "$rootfs/." "$base/root/"
  # The mount points a container runtime creates in the container's root.
  mkdir -p "$base/root/dev" "$base/root/proc" "$base/root/etc/tightpack" \
    "$base/root/var/run/secrets/kubernetes.io/serviceaccount"
  : >"$base/root/etc/hosts"
  unshare --mount --propagation private -- bash -euc '
    r=$1 secrets=$2 config=$3 hosts=$4
    shift 4
    mount --bind "$r" "$r"
    mount -t tmpfs -o nosuid,noexec,mode=0755,size=64k tmpfs "$r/dev"
    for d in null zero random urandom; do : >"$r/dev/$d"; mount --bind "/dev/$d" "$r/dev/$d"; done
    mount -t proc -o nosuid,nodev,noexec proc "$r/proc"
    mount --bind -o ro "$hosts" "$r/etc/hosts"
    mount --bind "$config" "$r/etc/tightpack" && mount -o remount,bind,ro "$r/etc/tightpack"
    mount --bind "$secrets" "$r/var/run/secrets/kubernetes.io/serviceaccount"
    mount -o remount,bind,ro "$r/var/run/secrets/kubernetes.io/serviceaccount"
    mount -o remount,bind,ro "$r"
    # The chroot and the switch to the image USER happen in the host unshare binary,
    # before anything of the image runs; the environment is only what a pod gets.
    exec env -i KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT="$KSP" POD_NAME="$POD" \
      unshare --root="$r" --wd=/ --setuid 65532 --setgid 65532 -- /usr/local/bin/tightpack schedule "$@"
  ' _ "$base/root" "$secrets" "$config" "$root_dir/$out/hosts" "$@" \
    >"$base/log" 2>&1 &
  pids+=($!)
  echo "  started $name (pid $!): tightpack schedule $* (log $out/$name/log)"
}

port=$(free_port)
probe_port=$(free_port)
KSP=$api_port POD=tightpack-image-0 run_in_root in-cluster --config=/etc/tightpack/config.yaml \
  --listen=0.0.0.0:"$port" --probe-listen=127.0.0.1:"$probe_port" --identity=tightpack-image-0
if ! python3 deploy/testlib.py schedule-one "$cp_dir" --scheduler-name tightpack --identity tightpack-image-0 \
    --lease kube-system/tightpack --http "https://127.0.0.1:$port" --namespace image-test --node image-node-1; then
  tail -30 "$out/in-cluster/log" >&2
  fail "the pulled image's root did not schedule"
fi
grep -q 'in-cluster service account' "$out/in-cluster/log" || fail "not the in-cluster configuration: $(head -3 "$out/in-cluster/log")"
for probe in healthz readyz livez; do
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$probe_port/$probe")
  [[ $code == 200 ]] || fail "the probe port answers /$probe with $code"
done
echo "  the probe port: /healthz, /readyz, /livez 200"
# unshare execs bash, which execs env, which execs unshare, which execs tightpack:
# the background pid is tightpack's.
pid=${pids[-1]}
[[ $(cat "/proc/$pid/comm") == tightpack ]] || fail "pid $pid is $(cat "/proc/$pid/comm"), not tightpack"
[[ $(awk '/^Uid:/ {print $2}' "/proc/$pid/status") == 65532 ]] || fail "tightpack does not run as uid 65532"
[[ $(awk '/^Gid:/ {print $2}' "/proc/$pid/status") == 65532 ]] || fail "tightpack does not run as gid 65532"
[[ $(awk '/^CapEff:/ {print $2}' "/proc/$pid/status") == 0000000000000000 ]] || fail "tightpack has capabilities"
proc_root=$(readlink "/proc/$pid/root")
[[ $proc_root == "$root_dir/$out/in-cluster/root" ]] || fail "tightpack's root is $proc_root"
awk '$5 == "/" {print $6}' "/proc/$pid/mountinfo" | grep -q '^ro' || fail "tightpack's root is not read-only"
cmp -s "$rootfs/usr/local/bin/tightpack" "/proc/$pid/exe" || fail "the running binary is not the pulled layer's"
echo "  process $pid: the pulled layer's tightpack, uid/gid 65532, no capabilities, root $proc_root read-only"
kill -TERM "$pid"
wait "$pid" && echo "  SIGTERM: exit 0" || fail "exit $? after SIGTERM: $(tail -5 "$out/in-cluster/log")"
grep -q 'released the lease' "$out/in-cluster/log" || fail "the lease was not released on SIGTERM"

port=$(free_port)
KSP=$api_port POD=tightpack-image-1 run_in_root by-hostname --config=/etc/tightpack/config.yaml \
  --kubeconfig=/etc/tightpack/kubeconfig --listen=0.0.0.0:"$port" --identity=tightpack-image-1
if ! python3 deploy/testlib.py schedule-one "$cp_dir" --scheduler-name tightpack --identity tightpack-image-1 \
    --lease kube-system/tightpack --http "https://127.0.0.1:$port" --namespace image-test-2 --node image-node-2; then
  tail -30 "$out/by-hostname/log" >&2
  fail "the pulled image's root did not schedule through https://localhost:$api_port"
fi
grep -q "localhost:$api_port" "$out/by-hostname/log" || fail "the log does not name https://localhost:$api_port"
echo "  a kubeconfig naming https://localhost:$api_port: scheduled"

if [[ $mode == --reproduce ]]; then
  step "6. a second build, --no-cache, from git archive HEAD in another folder"
  [[ -z $(git status --porcelain -- "${context[@]}") ]] ||
    fail "--reproduce needs a clean tree: the first build used the working tree"
  second=$root_dir/build/image-reproduce
  rm -rf "$second" && mkdir -p "$second"
  git archive HEAD | tar -x -C "$second"
  build_image "$second" localhost/tightpack:reproduce --no-cache >"$storage/build-reproduce.log" 2>&1 ||
    { tail -40 "$storage/build-reproduce.log" >&2; fail "the second build failed"; }
  second_id=$(bah inspect --type image --format '{{.FromImageID}}' localhost/tightpack:reproduce)
  # Pushed too: the manifest digest (what the chart pins) is the compressed layer's as well.
  bah push --quiet --cert-dir "$reg/certs" --creds "pusher:$password" --digestfile "$out/digest-reproduce" \
    localhost/tightpack:reproduce "docker://$repo:reproduce" >"$out/push-reproduce.log" 2>&1 ||
    { cat "$out/push-reproduce.log" >&2; fail "pushing the second build failed"; }
  if [[ $second_id == "$image_id" && $(cat "$out/digest-reproduce") == "$digest" ]]; then
    echo "  reproduced: the same image id sha256:$image_id and, pushed, the same manifest digest $digest"
  else
    mkdir -p "$out/reproduce"
    bah push --quiet localhost/tightpack:reproduce "oci:$out/reproduce/oci:second" >/dev/null
    echo "  NOT reproduced: image id sha256:$second_id vs sha256:$image_id, manifest $(cat "$out/digest-reproduce") vs $digest; the files that differ:"
    build/venv/bin/python - "$pulled" "$out/reproduce/oci" <<'EOF'
import hashlib, sys
sys.path.insert(0, "deploy/image-tools")
import oci_layout
def files(layout, ref):
    manifest, _ = oci_layout.image(layout, oci_layout.manifest_digest(layout, ref))
    _, t = oci_layout.layer(layout, manifest)
    return {m.name: (m.mode, m.uid, m.mtime, hashlib.sha256(t.extractfile(m).read()).hexdigest() if m.isfile() else m.linkname) for m in t}
a, b = files(sys.argv[1], "tightpack"), files(sys.argv[2], "second")
for name in sorted(set(a) | set(b)):
    if a.get(name) != b.get(name):
        print(f"    {name}: {a.get(name)} vs {b.get(name)}")
EOF
    bah rmi --force localhost/tightpack:reproduce >/dev/null 2>&1 || true
    fail "two builds of $revision differ"
  fi
  bah rmi --force localhost/tightpack:reproduce >/dev/null 2>&1 || true
fi

echo "test_image: passed in $((SECONDS - start)) s (output in $out)"
