#!/usr/bin/env bash
# Sets up (Debian packages), builds and runs every test. This is the command README.md shows
# and .ci/run calls. CUDA tests skip with a reason when no GPU is present.
# Usage: scripts/test.sh [--sanitize] [CMAKE_ARGS...]
#   --sanitize  build with clang into build-asan/ with AddressSanitizer + UndefinedBehaviorSanitizer
#               and no CUDA backend (nvcc cannot instrument device code), and fail on any report
#               (memory error, leak, undefined behaviour) in the tests or in the CLI runs they make.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ "${1:-}" = "--sanitize" ]; then
  shift
  "$root/scripts/setup.sh" --sanitize
  export SOFTIK_BUILD_DIR="${SOFTIK_BUILD_DIR:-$root/build-asan}"
  # shellcheck source=scripts/sanitize_env.sh
  source "$root/scripts/sanitize_env.sh"
  # Release: optimised (the tests run in minutes); SOFTIK_SANITIZE adds line tables for the reports.
  CC=clang CXX=clang++ "$root/scripts/build.sh" -DSOFTIK_SANITIZE=ON -DSOFTIK_CUDA=OFF -DSOFTIK_BUILD_BENCH=OFF "$@"
else
  "$root/scripts/setup.sh"
  "$root/scripts/build.sh" "$@"
fi
build="${SOFTIK_BUILD_DIR:-$root/build}"
ctest --test-dir "$build" --output-on-failure --parallel "$(nproc)" --timeout 600
