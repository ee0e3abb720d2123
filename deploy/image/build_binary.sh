#!/usr/bin/env bash
# Builds the `tightpack` binary of the container image: the `release` CMake preset
# (Release, link-time optimisation), target `tightpack` only, linked fully
# statically (glibc, libstdc++, OpenSSL, yaml-cpp: Debian 12's static libraries),
# so that the image needs no shared library at all.
#
#   deploy/image/build_binary.sh [BUILD_DIR]     # default build/image; the binary is BUILD_DIR/scheduler/tightpack
#
# deploy/Dockerfile's build stage runs exactly this on debian:12, and
# deploy/test_image_root.sh runs it on the host (a Debian 12 machine of the same
# kind) where no Docker engine runs. Packages: cmake ninja-build g++
# libboost1.81-dev libboost-json1.81-dev libyaml-cpp-dev libssl-dev.
# Jobs: TIGHTPACK_IMAGE_JOBS (default 1; LTO links are memory- and CPU-heavy).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build/image}
jobs=${TIGHTPACK_IMAGE_JOBS:-1}
cd "$root"

# -static links glibc too. The linker warns that getaddrinfo and dlopen (OpenSSL's
# DSO loader, unused) need glibc's shared NSS modules at run time: not for host
# names, since glibc 2.34 builds its files and dns lookups into libc itself.
# deploy/test_image_root.sh resolves localhost through /etc/hosts in the empty
# root; in a pod the API server is an IP (KUBERNETES_SERVICE_HOST) anyway.
cmake --preset release -B "$build" \
  -DTIGHTPACK_TESTS=OFF -DTIGHTPACK_BENCH=OFF \
  -DOPENSSL_USE_STATIC_LIBS=ON \
  -Dyaml-cpp_DIR="$root/deploy/image/yaml-cpp-static" \
  -DCMAKE_EXE_LINKER_FLAGS="-static -s" >/dev/null
cmake --build "$build" --target tightpack -j "$jobs"

bin=$build/scheduler/tightpack
if ldd "$bin" >/dev/null 2>&1; then
  echo "build_binary: $bin is not statically linked:" >&2
  ldd "$bin" >&2
  exit 1
fi
echo "build_binary: $bin ($(du -h "$bin" | cut -f1), static)"
