#!/usr/bin/env bash
# Proves the runtime stage of deploy/Dockerfile without a Docker engine (none runs on
# this project's machines): the binary that the build stage produces runs with
# exactly what the final stage copies as its whole root file system, read-only, as
# user 65532, and schedules a pod on the test control plane.
#
#   deploy/test_image_root.sh        # as root (CI runs as root); ~1 min when the binary is built
#
# 1. The Dockerfile is checked: its final stage is `FROM scratch`, copies only the
#    build stage's /rootfs/ to /, and runs as 65532; the build stage runs
#    deploy/image/build_binary.sh and deploy/image/stage_rootfs.sh.
# 2. No Docker here, so the build stage's two commands run on this machine, which is
#    the build stage's base (Debian 12 with the same packages): the same script, the
#    same CMake preset and flags (build/image), then the same staging script into a
#    fresh folder. The staged tree is checked: a static binary, no shell, nothing
#    but the files stage_rootfs.sh lists.
# 3. In a new mount namespace (unshare --mount), a copy of that tree becomes the
#    root (unshare --root, the host's unshare binary, before the chroot) and is
#    remounted read-only, with only what a container runtime adds: the mount
#    points it creates, /dev (null, zero, random, urandom), /proc, /etc/hosts, the
#    configuration at /etc/tightpack and the service-account token, CA and
#    namespace at /var/run/secrets/kubernetes.io/serviceaccount. The process gets
#    the Dockerfile's USER (65532:65532), ENTRYPOINT and an environment of
#    KUBERNETES_SERVICE_HOST/PORT and POD_NAME alone: the in-cluster
#    configuration path, as in a pod. The network namespace is the host's, so the
#    loopback API server is reachable.
# 4. It schedules one pod (binding, a Scheduled event, the Lease, /readyz, /metrics),
#    then a second run reaches the API server as https://localhost:PORT through a
#    kubeconfig: host names resolve in the static binary (/etc/hosts, glibc's
#    built-in files and dns lookups).
set -euo pipefail
cd "$(dirname "$0")/.."
root_dir=$PWD
start=$SECONDS
out=build/image-test
dockerfile=deploy/Dockerfile

fail() { echo "test_image_root: FAILED: $*" >&2; exit 1; }
[[ $(id -u) == 0 ]] || fail "needs root: unshare --mount and the chroot need CAP_SYS_ADMIN and CAP_SYS_CHROOT (CI runs as root)"

echo "== 1. deploy/Dockerfile"
python3 - "$dockerfile" <<'EOF'
import json, re, sys
lines, cur = [], ""
for raw in open(sys.argv[1]):
    line = raw.rstrip("\n")
    if line.lstrip().startswith("#"):
        continue
    cur += line.rstrip("\\").strip() + " "
    if not line.endswith("\\"):
        if cur.strip():
            lines.append(cur.strip())
        cur = ""
stages = []
for ln in lines:
    word = ln.split()[0].upper()
    if word == "FROM":
        stages.append([ln])
    else:
        stages[-1].append(ln)
final, build = stages[-1], stages[0]
errors = []
if final[0].split()[1] != "scratch":
    errors.append(f"final stage is {final[0]!r}, not FROM scratch")
copies = [ln for ln in final if ln.split()[0].upper() in ("COPY", "ADD")]
if copies != ["COPY --from=build /rootfs/ /"]:
    errors.append(f"final stage copies {copies}, expected only COPY --from=build /rootfs/ /")
# Only instructions that add nothing this test does not reproduce (no RUN: there is no
# shell; no ENV, WORKDIR or VOLUME: the run below would not have them).
extra = {ln.split()[0].upper() for ln in final} - {"FROM", "COPY", "USER", "ENTRYPOINT", "CMD", "LABEL", "EXPOSE"}
if extra:
    errors.append(f"final stage has {sorted(extra)}: the test does not reproduce them")
user = [ln.split()[1] for ln in final if ln.split()[0].upper() == "USER"]
entry = [json.loads(ln.split(None, 1)[1]) for ln in final if ln.split()[0].upper() == "ENTRYPOINT"]
if user != ["65532:65532"]:
    errors.append(f"USER is {user}, expected 65532:65532")
if entry != [["/usr/local/bin/tightpack"]]:
    errors.append(f"ENTRYPOINT is {entry}")
runs = " ".join(ln for ln in build if ln.split()[0].upper() == "RUN")
for needed in ("deploy/image/build_binary.sh /src/build/image ",
               "deploy/image/stage_rootfs.sh /src/build/image/scheduler/tightpack /rootfs"):
    if needed not in runs:
        errors.append(f"build stage does not run {needed!r}")
if errors:
    print("\n".join(errors), file=sys.stderr)
    sys.exit(1)
print("  final stage: FROM scratch, COPY --from=build /rootfs/ /, USER 65532:65532, ENTRYPOINT /usr/local/bin/tightpack")
EOF

echo "== 2. the build stage's commands, on this Debian 12 machine (no Docker engine here)"
# Same script and flags as the Dockerfile's RUN; the build folder is build/image
# instead of /src/build/image.
deploy/image/build_binary.sh "$root_dir/build/image"
rm -rf "$out"
mkdir -p "$out"
rootfs=$out/rootfs
deploy/image/stage_rootfs.sh build/image/scheduler/tightpack "$rootfs"
ldd "$rootfs/usr/local/bin/tightpack" >/dev/null 2>&1 && fail "the staged binary is dynamic"
for shell in bin/sh bin/bash usr/bin/sh busybox; do
  [[ ! -e $rootfs/$shell ]] || fail "the image has a shell: /$shell"
done
expected="etc etc/group etc/passwd etc/ssl etc/ssl/certs etc/ssl/certs/ca-certificates.crt tmp usr usr/lib usr/lib/ssl usr/lib/ssl/cert.pem usr/local usr/local/bin usr/local/bin/tightpack"
got=$(cd "$rootfs" && find . -mindepth 1 | sed 's|^\./||' | sort | tr '\n' ' ' | sed 's/ $//')
[[ $got == "$expected" ]] || fail "the staged root holds: $got"
echo "  staged root: $(du -sh "$rootfs" | cut -f1), $(echo "$got" | wc -w) paths; static binary, no shell"

echo "== 3. the control plane"
if [[ ! -x build/controlplane/kube-apiserver || ! -x build/controlplane/etcd ]]; then
  tests/controlplane/build.sh
fi
cp_dir=$root_dir/$out/controlplane
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  [[ -f $cp_dir/env ]] && tests/controlplane/controlplane.sh stop "$cp_dir" >/dev/null 2>&1 || true
}
trap cleanup EXIT
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
write_kubeconfig() { # the API server by host name, CA and token from the mounted secrets
  cat >"$config/kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters: [{name: test, cluster: {server: "https://localhost:$api_port", certificate-authority: /var/run/secrets/kubernetes.io/serviceaccount/ca.crt}}]
users: [{name: u, user: {tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token}}]
contexts: [{name: test, context: {cluster: test, user: u}}]
current-context: test
KUBECONFIG
}
write_kubeconfig

# run_in_root NAME PORT [ARG...]: the image's ENTRYPOINT with `schedule` and ARGs, in
# the empty root as described above, in the background; its pid in pids.
run_in_root() {
  local name=$1 port=$2
  shift 2
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

echo "== 4. in-cluster configuration, read-only empty root, user 65532"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
KSP=$api_port POD=tightpack-image-0 run_in_root in-cluster "$port" \
  --config=/etc/tightpack/config.yaml --listen=0.0.0.0:"$port" --identity=tightpack-image-0
if ! python3 deploy/testlib.py schedule-one "$cp_dir" --scheduler-name tightpack --identity tightpack-image-0 \
    --lease kube-system/tightpack --http "https://127.0.0.1:$port" --namespace image-test --node image-node-1; then
  tail -30 "$out/in-cluster/log" >&2
  fail "the image root did not schedule"
fi
grep -q 'in-cluster service account' "$out/in-cluster/log" || fail "not the in-cluster configuration: $(head -3 "$out/in-cluster/log")"
# unshare execs bash, which execs env, which execs unshare, which execs tightpack:
# the background pid is tightpack's.
pid=${pids[-1]}
[[ $(cat "/proc/$pid/comm") == tightpack ]] || fail "pid $pid is $(cat "/proc/$pid/comm"), not tightpack"
[[ $(awk '/^Uid:/ {print $2}' "/proc/$pid/status") == 65532 ]] || fail "tightpack does not run as uid 65532"
[[ $(awk '/^Gid:/ {print $2}' "/proc/$pid/status") == 65532 ]] || fail "tightpack does not run as gid 65532"
[[ $(awk '/^CapEff:/ {print $2}' "/proc/$pid/status") == 0000000000000000 ]] || fail "tightpack has capabilities"
proc_root=$(readlink "/proc/$pid/root")
[[ $proc_root == "$root_dir/$out/in-cluster/root" ]] || fail "tightpack's root is $proc_root"
# Its mount table as it sees it: "/" is the staged root, read-only.
awk '$5 == "/" {print $6}' "/proc/$pid/mountinfo" | grep -q '^ro' || fail "tightpack's root is not read-only"
echo "  process $pid: tightpack, uid/gid 65532, no capabilities, root $proc_root mounted read-only"
kill -TERM "$pid"
wait "$pid" && echo "  SIGTERM: exit 0" || fail "exit $? after SIGTERM: $(tail -5 "$out/in-cluster/log")"
grep -q 'released the lease' "$out/in-cluster/log" || fail "the lease was not released on SIGTERM"

echo "== 5. a kubeconfig naming the API server by host name (static glibc, /etc/hosts)"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
KSP=$api_port POD=tightpack-image-1 run_in_root by-hostname "$port" \
  --config=/etc/tightpack/config.yaml --kubeconfig=/etc/tightpack/kubeconfig \
  --listen=0.0.0.0:"$port" --identity=tightpack-image-1
if ! python3 deploy/testlib.py schedule-one "$cp_dir" --scheduler-name tightpack --identity tightpack-image-1 \
    --lease kube-system/tightpack --http "https://127.0.0.1:$port" --namespace image-test-2 --node image-node-2; then
  tail -30 "$out/by-hostname/log" >&2
  fail "the image root did not schedule through https://localhost:$api_port"
fi
grep -q "localhost:$api_port" "$out/by-hostname/log" || fail "the log does not name https://localhost:$api_port"

echo "test_image_root: passed in $((SECONDS - start)) s (logs in $out)"
echo "test_image_root: 2 passed, 0 failed"
