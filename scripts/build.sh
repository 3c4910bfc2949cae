#!/usr/bin/env bash
# Configures and builds softik into build/ (Release, Ninja). Extra arguments go to CMake,
# e.g. scripts/build.sh -DSOFTIK_CUDA=OFF
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SOFTIK_BUILD_DIR:-$root/build}"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build" --parallel "$(nproc)"
