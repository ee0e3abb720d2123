#!/usr/bin/env bash
# Builds the `tightpack` binary of the container image: the `release` CMake preset
# (Release, link-time optimisation), target `tightpack` only, linked fully
# statically (glibc, libstdc++, OpenSSL, yaml-cpp: Debian 12's static libraries),
# so that the image needs no shared library at all.
#
#   deploy/image/build_binary.sh [BUILD_DIR]     # default build/image; the binary is BUILD_DIR/scheduler/tightpack
#
# deploy/Dockerfile's build stage runs exactly this on debian:12 (deploy/test_image.sh
# builds that with buildah); on a Debian 12 host it builds the same binary outside
# an image. Packages: cmake ninja-build g++
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
# deploy/test_image.sh resolves localhost through /etc/hosts in the image's
# root; in a pod the API server is an IP (KUBERNETES_SERVICE_HOST) anyway.
# The link map (BUILD_DIR/tightpack.map) names every archive member the binary
# holds: deploy/image/linked_packages.sh finds the Debian packages from it.
cmake --preset release -B "$build" \
  -DTIGHTPACK_TESTS=OFF -DTIGHTPACK_BENCH=OFF \
  -DOPENSSL_USE_STATIC_LIBS=ON \
  -Dyaml-cpp_DIR="$root/deploy/image/yaml-cpp-static" \
  -DCMAKE_EXE_LINKER_FLAGS="-static -s -Wl,-Map=$build/tightpack.map" >/dev/null
cmake --build "$build" --target tightpack -j "$jobs"

bin=$build/scheduler/tightpack
if ldd "$bin" >/dev/null 2>&1; then
  echo "build_binary: $bin is not statically linked:" >&2
  ldd "$bin" >&2
  exit 1
fi
echo "build_binary: $bin ($(du -h "$bin" | cut -f1), static)"
