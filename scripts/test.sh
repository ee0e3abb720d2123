#!/usr/bin/env bash
# Runs every test: formatting and lint (scripts/lint.sh), clang-tidy over the
# product's C++ (scripts/tidy.py), both corpora and the fuzzing seeds through the release
# binary, the WebAssembly build against the native one (Jest, wasm/test), the
# JupyterLab extension (Jest for the front end, pytest for the server
# extension, and the wheel in a real JupyterLab driven in Chromium), the test
# control plane (etcd, kube-apiserver, kube-scheduler, kube-controller-manager
# and a provisioner built from Go
# modules) with `tightpack schedule` beside the real kube-scheduler on it, the
# image (deploy/Dockerfile built by buildah, pushed, pulled and run) and the
# Helm chart (installed, upgraded, uninstalled) on it, the seeding of the one
# module the proxy serves only as a zip, differential conformance against
# kube-scheduler's own framework and cluster-autoscaler's own loop
# (tests/conformance), the pods the real clients make (tests/clients),
# tightpack-dask's preload on distributed's own scheduler and workers, a
# live cluster (kwok and the real cluster-autoscaler: tests/live), and
# the GoogleTest suites and the scheduler's end-to-end suite under
# AddressSanitizer + UBSan.
#
# The builds that only later stages need (the ASan build, the image, the live
# cluster's kwok and cluster-autoscaler, the second kube-scheduler release and
# cluster-autoscaler's reference, then clang-tidy) run in the background at low priority, so that
# they take the processor time the stages before them leave idle while they wait
# on API servers, browsers and leader elections; a stage that needs one waits
# for it. The live cluster, mostly waiting too, runs beside the conformance tests,
# which then go to the lowest priority.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
scripts/bootstrap.sh

status=0
stage() { printf '== [%d:%02d] %s\n' $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60)) "$*"; }
quiet() { grep -Ev '^\[[0-9]+/[0-9]+\] ' || true; }
build() {
  local name=$1
  shift
  stage "build: $name"
  scripts/build.sh "$name" "$@" 2>&1 | quiet
  [[ ${PIPESTATUS[0]} == 0 ]] || { echo "build of $name failed"; exit 1; }
}

mkdir -p build/logs
background_pid=
live_pid=
# Each background job is its own process group: an early exit stops all of it.
stop_background() {
  local pid
  for pid in $background_pid $live_pid; do kill -- -"$pid" 2>/dev/null || true; done
}
trap stop_background EXIT
# build/logs/<name>.rc appears when <name> is built (its exit status).
background_builds() {
  rm -f build/logs/*.rc
  set -m
  (
    set +e
    run() {
      local name=$1
      shift
      nice -n 10 "$@" >"build/logs/$name.log" 2>&1
      echo $? >"build/logs/$name.rc"
    }
    run asan scripts/build.sh asan
    run image deploy/test_image.sh --build-only
    # the live cluster's cluster-autoscaler compiles the package the reference then reuses
    run live-parts tests/live/build.sh
    run kube-scheduler-reference-v1.30.14 tests/conformance/reference/build.sh --release v1.30.14
    run cluster-autoscaler-reference tests/conformance/autoscaler-reference/build.sh
    # last: it needs only the release build's objects and fills the gaps after;
    # every core, for a fresh run's tail is often tidy alone
    run tidy python3 scripts/tidy.py -j "$(nproc)"
  ) &
  background_pid=$!
  set +m
}
wait_for() {
  local name=$1
  stage "build: $name (in the background since the start; waiting for it)"
  while [[ ! -f build/logs/$name.rc ]]; do sleep 2; done
  quiet <"build/logs/$name.log"
  [[ $(cat "build/logs/$name.rc") == 0 ]] || { echo "build of $name failed"; exit 1; }
}

build release --target tightpack --target tightpack_daskhub_day --target quantity_values
background_builds
stage "test: formatting and lint (scripts/lint.sh)"
scripts/lint.sh || status=1
stage "test: both corpora, the fuzzing seeds and the DaskHub day through the release binaries"
ctest --preset release -L binaries --no-tests=error || status=1

build wasm
stage "test: wasm (Jest; compares with build/release)"
(cd wasm && npm test --silent) || status=1

stage "build: labextension (wheel)"
scripts/build_labextension.sh || { echo "build of the labextension failed"; exit 1; }
stage "test: labextension front end (Jest)"
(cd labextension && npm test --silent) || status=1
stage "test: labextension server extension (pytest on jupyter_server)"
PYTHONPATH=labextension build/venv/bin/python -m pytest -q labextension/jupyterlab_tightpack/tests || status=1
stage "test: the sidebar and a notebook's previews in JupyterLab from PyPI, in Chromium"
# One file at a time: both use build/venv-user, made afresh once per run as a user
# makes it (pip install from PyPI and the wheel); the second file reuses it.
rm -f build/venv-user/.tightpack-user-packages
node --test --test-concurrency=1 labextension/ui-tests/ || status=1

stage "build: the test control plane (etcd, kube-apiserver, kube-scheduler, kube-controller-manager and a provisioner from Go modules)"
tests/controlplane/build.sh || { echo "build of the control plane failed"; exit 1; }
stage "test: the control plane with the real kube-scheduler"
tests/controlplane/smoke_test.sh || status=1
wait_for asan
stage "test: asan (the GoogleTest suites, both corpora and the fuzzing seeds)"
ctest --preset asan --no-tests=error || status=1
# The end-to-end suite runs once, against the sanitizer build: the release binary
# runs on the control plane in the image and chart tests below (the pulled
# image's static binary), and in the soak once more, whose memory-growth check
# means nothing under ASan. Mostly waiting on API servers and leases, it leaves
# the background builds the processor.
stage "test: tightpack schedule under ASan + UBSan on the control plane, beside the real kube-scheduler"
TIGHTPACK_SOAK_SECONDS=45 TIGHTPACK=build/asan/scheduler/tightpack tests/scheduler/run.sh || status=1
stage "test: the soak with the release binary (resident memory must not grow under churn)"
tests/scheduler/run.sh -k test_soak || status=1
wait_for image
stage "test: the image (deploy/Dockerfile built by buildah, pushed to a registry, pulled, its binary run from the pulled layer on the control plane)"
deploy/test_image.sh --reuse-build || status=1
stage "test: the Helm chart on the control plane (helm install, upgrade and uninstall of the pushed image; RBAC exactly enough)"
deploy/test_chart.sh || status=1

# The live cluster runs beside the conformance tests below. It mostly waits on a
# clock condensed 60x, they are processor work: they and the background builds
# still running go to the lowest priority (nice 19), so that they take only what
# the live cluster leaves idle and never stretch its clock (tests/live passed in
# 201 s beside two nice-19 busy loops, 195 s alone).
wait_for live-parts
stage "test: the live cluster (kwok and the real cluster-autoscaler from Go modules, tightpack scheduling): the seed's first waves, predictions and forecasts against what happens; its output below when it ends"
set -m
tests/live/run.sh >build/logs/live-tests.log 2>&1 &
live_pid=$!
set +m
renice -n 19 -g "$background_pid" >/dev/null 2>&1 || true
lowest() { nice -n 19 "$@"; }

stage "build: kube-scheduler-reference (kube-scheduler v1.37.2's own framework; shares the control plane's Go build cache)"
lowest tests/conformance/reference/build.sh || { echo "build of kube-scheduler-reference failed"; exit 1; }
stage "test: the corpus' current answers are kube-scheduler v1.37.2's (tests/conformance/corpus-v1.37)"
lowest tests/conformance/record_corpus.sh --check scheduler || status=1
stage "test: quantities at and beyond int64's ends count as resource.ParseQuantity counts them, pods' sums as NodeInfo sums them (40,000 spellings, 10,000 pods)"
lowest python3 tests/conformance/quantities.py || status=1
stage "test: differential conformance, 1,000 fresh scenarios through kube-scheduler v1.37.2 and tightpack replay"
lowest tests/conformance/differential.sh --count 1000 --allow-known || status=1
wait_for kube-scheduler-reference-v1.30.14
stage "test: differential conformance, 1,000 fresh scenarios through kube-scheduler v1.30.14 (zero-to-jupyterhub's user-scheduler) and tightpack replay"
lowest tests/conformance/differential.sh --count 1000 --release v1.30.14 || status=1

stage "test: gomodseed seeds the cluster-autoscaler pseudo-version from its zip alone into an empty module cache, and refuses a corrupt one"
lowest tests/conformance/gomodseed/test.sh || status=1
wait_for cluster-autoscaler-reference
stage "test: the autoscaler corpus' current answers are cluster-autoscaler master's (tests/conformance/corpus-ca-master)"
lowest tests/conformance/record_corpus.sh --check autoscaler || status=1
stage "test: differential conformance, 1,000 fresh pool scenarios through cluster-autoscaler master and tightpack autoscale"
lowest tests/conformance/differential_autoscale.sh --count 1000 --allow-known || status=1
stage "test: the real clients' pods (KubeSpawner, the dask-kubernetes operator, dask-gateway-server from PyPI) through both references and tightpack, and the sidebar's models of them"
lowest tests/clients/run.sh || status=1
stage "test: tightpack-dask, node-aware retirement of Dask workers (distributed, dask-gateway and dask-kubernetes from PyPI; real worker processes)"
lowest tightpack-dask/test.sh || status=1

stage "test: the Go builds that share a build cache resolve one version of each module (so each package compiles once)"
python3 scripts/go_versions.py || status=1

stage "test: clang-tidy over core/src and scheduler/src (scripts/tidy.py; in the background since the start, waiting for it)"
while [[ ! -f build/logs/tidy.rc ]]; do sleep 2; done
cat build/logs/tidy.log
[[ $(cat build/logs/tidy.rc) == 0 ]] || status=1
stage "test: the live cluster (started above; waiting for it)"
live_status=0
wait "$live_pid" || live_status=$?
cat build/logs/live-tests.log
[[ $live_status == 0 ]] || status=1

stage "all tests took $((SECONDS - start)) s"
exit $status
