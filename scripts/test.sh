#!/usr/bin/env bash
# Runs every test: the GoogleTest suites and both corpora natively (release),
# the WebAssembly build against the native one (Jest, wasm/test), the
# JupyterLab extension (Jest for the front end, pytest for the server
# extension, and the wheel in a real JupyterLab driven in Chromium), the test
# control plane (etcd, kube-apiserver and kube-scheduler built from Go
# modules) with `tightpack schedule` beside the real kube-scheduler on it, the
# Helm chart and the image's root file system on it, the seeding of the one
# module the proxy serves only as a zip, differential
# conformance against kube-scheduler's own framework and cluster-autoscaler's
# own loop (tests/conformance), and
# the native suites again under AddressSanitizer + UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
scripts/bootstrap.sh

status=0
build() {
  echo "== build: $1"
  scripts/build.sh "$1" 2>&1 | grep -Ev '^\[[0-9]+/[0-9]+\] ' || true
  [[ ${PIPESTATUS[0]} == 0 ]] || { echo "build of $1 failed"; exit 1; }
}

build release
echo "== test: release"
ctest --preset release --no-tests=error || status=1

build wasm
echo "== test: wasm (Jest; compares with build/release)"
(cd wasm && npm test --silent) || status=1

echo "== build: labextension (wheel)"
scripts/build_labextension.sh || { echo "build of the labextension failed"; exit 1; }
echo "== test: labextension front end (Jest)"
(cd labextension && npm test --silent) || status=1
echo "== test: labextension server extension (pytest on jupyter_server)"
PYTHONPATH=labextension build/venv/bin/python -m pytest -q labextension/tests || status=1
echo "== test: the sidebar in JupyterLab from PyPI, in Chromium"
node --test labextension/ui-tests/ || status=1

echo "== build: the test control plane (etcd, kube-apiserver, kube-scheduler from Go modules)"
tests/controlplane/build.sh || { echo "build of the control plane failed"; exit 1; }
echo "== test: the control plane with the real kube-scheduler"
tests/controlplane/smoke_test.sh || status=1
echo "== test: tightpack schedule on the control plane, beside the real kube-scheduler"
tests/scheduler/run.sh || status=1
echo "== test: the Helm chart on the control plane (Helm built from its Go module; RBAC exactly enough)"
deploy/test_chart.sh || status=1
echo "== test: the image's runtime stage (the static binary alone in an empty, read-only root)"
deploy/test_image_root.sh || status=1

echo "== build: kube-scheduler-reference (kube-scheduler v1.37.2's own framework; shares the control plane's Go build cache)"
tests/conformance/reference/build.sh || { echo "build of kube-scheduler-reference failed"; exit 1; }
echo "== test: the corpus' current answers are kube-scheduler v1.37.2's (tests/conformance/corpus-v1.37)"
tests/conformance/record_corpus.sh --check scheduler || status=1
echo "== test: differential conformance, 1,000 fresh scenarios through kube-scheduler v1.37.2 and tightpack replay"
tests/conformance/differential.sh --count 1000 --allow-known || status=1
echo "== build: kube-scheduler-reference-v1.36.3 (the release zero-to-jupyterhub ships; its own module set)"
tests/conformance/reference/build.sh --release v1.36.3 || { echo "build of kube-scheduler-reference-v1.36.3 failed"; exit 1; }
echo "== test: differential conformance, 1,000 fresh scenarios through kube-scheduler v1.36.3 and tightpack replay"
tests/conformance/differential.sh --count 1000 --release v1.36.3 --allow-known || status=1

echo "== test: gomodseed seeds the cluster-autoscaler pseudo-version from its zip alone into an empty module cache, and refuses a corrupt one"
tests/conformance/gomodseed/test.sh || status=1
echo "== build: cluster-autoscaler-reference (cluster-autoscaler master's own loop on the Kubernetes v1.35 modules it pins; ~5 min cold)"
tests/conformance/autoscaler-reference/build.sh || { echo "build of cluster-autoscaler-reference failed"; exit 1; }
echo "== test: the autoscaler corpus' current answers are cluster-autoscaler master's (tests/conformance/corpus-ca-master)"
tests/conformance/record_corpus.sh --check autoscaler || status=1
echo "== test: differential conformance, 1,000 fresh pool scenarios through cluster-autoscaler master and tightpack autoscale"
tests/conformance/differential_autoscale.sh --count 1000 --allow-known || status=1

build asan
echo "== test: asan"
ctest --preset asan --no-tests=error || status=1
echo "== test: tightpack schedule under ASan + UBSan on the control plane"
TIGHTPACK=build/asan/scheduler/tightpack tests/scheduler/run.sh || status=1

echo "== all tests took $((SECONDS - start)) s"
exit $status
