#!/usr/bin/env bash
# Installs everything the build and the tests need, on a fresh Debian 12
# machine of this project's kind (Node.js 20 and npm come with it); does
# nothing for what is already there.
set -euo pipefail

apt_packages=(
  cmake ninja-build g++ ccache python3 curl openssl
  libboost1.81-dev libboost-json1.81-dev
  libyaml-cpp-dev libgtest-dev libbenchmark-dev
  # bench/json_library_compare.cpp only: core never links it
  nlohmann-json3-dev
  emscripten
  chromium
  # The sanitizer build (clang compiles it in three quarters of g++'s time,
  # and its suites run in a fraction); Emscripten brings clang-14 itself.
  clang-14 libclang-rt-14-dev
  # C++ layout (scripts/lint.sh) and bug checks (scripts/tidy.py): the versions
  # beside clang-14
  clang-format-14 clang-tidy-14
  # The image: an OCI builder and a registry client (deploy/test_image.sh; no
  # Docker engine runs here), and the build stage's debian:12 from Debian's archive.
  buildah skopeo mmdebstrap
)
if [[ ${TIGHTPACK_FUZZ:-0} == 1 ]]; then
  apt_packages+=(lld-14)
fi

missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}"
  sudo=""
  [[ $(id -u) == 0 ]] || sudo="sudo"
  $sudo apt-get -o DPkg::Lock::Timeout=900 update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=900 install -y -qq "${missing[@]}" >/dev/null
fi

# The npm workspaces (wasm/, labextension/): Jest, TypeScript. Reinstalled
# only when package-lock.json changed since the last install.
cd "$(dirname "$0")/.."
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "bootstrap: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
