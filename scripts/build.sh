#!/usr/bin/env bash
# Configures and builds softik into build/ (Release, Ninja). Extra arguments go to CMake,
# e.g. scripts/build.sh -DSOFTIK_CUDA=OFF
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SOFTIK_BUILD_DIR:-$root/build}"
# shellcheck source=scripts/ccache_env.sh
source "$root/scripts/ccache_env.sh"
# Configure quietly but keep softik's own summary (CUDA backend, CHOLMOD) visible; on failure
# show everything CMake said.
if ! log=$(cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
  "${ccache_cmake_args[@]}" "$@" 2>&1); then
  printf '%s\n' "$log" >&2
  exit 1
fi
printf '%s\n' "$log" | grep -E "^-- softik:" || true
# SOFTIK_BUILD_TARGETS (space-separated): build only these targets (scripts/run_example.sh: the
# softik program); unset: everything (the library, tests, benchmarks, examples, Python module).
targets=()
for t in ${SOFTIK_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build" --parallel "$(nproc)" "${targets[@]}"
