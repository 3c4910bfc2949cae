#!/usr/bin/env bash
# Sets up (Debian packages), builds and runs every test. This is the command README.md shows
# and .ci/run calls. CUDA tests skip with a reason when no GPU is present.
# Usage: scripts/test.sh [--sanitize [--quick]] [CMAKE_ARGS...]
#   --sanitize  build with clang into build-asan/ with AddressSanitizer + UndefinedBehaviorSanitizer
#               and no CUDA backend (nvcc cannot instrument device code), and fail on any report
#               (memory error, leak, undefined behaviour) in the tests or in the CLI runs they make.
#   --quick     (with --sanitize) leave out the tests listed in tests/sanitizer_long_tests.txt,
#               which take most of the instrumented run's time; .ci/run uses it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
exclude=()
if [ "${1:-}" = "--sanitize" ]; then
  shift
  if [ "${1:-}" = "--quick" ]; then
    shift
    # One regex of the listed names, anchored, with the regex characters they may hold escaped.
    names=$(grep -v -e '^#' -e '^[[:space:]]*$' "$root/tests/sanitizer_long_tests.txt")
    regex="^($(printf '%s\n' "$names" | sed 's/[][\.*^$+?(){}|/]/\\&/g' | paste -sd'|'))\$"
    exclude=(--exclude-regex "$regex")
  fi
  "$root/scripts/setup.sh" --sanitize
  export SOFTIK_BUILD_DIR="${SOFTIK_BUILD_DIR:-$root/build-asan}"
  # shellcheck source=scripts/sanitize_env.sh
  source "$root/scripts/sanitize_env.sh"
  # Release at -O2, not -O3: instrumented clang compiles -O3 in about twice the time of -O2
  # (tests/fem/test_stiffness_strategies.cpp: 95 s vs 55 s), and the tests still run in minutes.
  # SOFTIK_SANITIZE adds line tables for the reports.
  CC=clang CXX=clang++ "$root/scripts/build.sh" -DSOFTIK_SANITIZE=ON -DSOFTIK_CUDA=OFF -DSOFTIK_BUILD_BENCH=OFF \
    "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG" "$@"
else
  "$root/scripts/setup.sh"
  "$root/scripts/build.sh" "$@"
fi
build="${SOFTIK_BUILD_DIR:-$root/build}"
if [ ${#exclude[@]} -gt 0 ]; then
  # A stale name (a test renamed or removed) would silently put a long test back or hide a typo.
  listed=$(printf '%s\n' "$names" | wc -l)
  missing=$(comm -23 <(printf '%s\n' "$names" | sort) \
    <(ctest --test-dir "$build" -N | sed -n 's/^ *Test *#[0-9]*: //p' | sort))
  if [ -n "$missing" ]; then
    printf 'tests/sanitizer_long_tests.txt names tests that do not exist (renamed or removed?); correct the list:\n%s\n' \
      "$missing" >&2
    exit 1
  fi
  echo "-- quick sanitizer run: $listed long tests left out (tests/sanitizer_long_tests.txt)"
fi
ctest --test-dir "$build" --output-on-failure --parallel "$(nproc)" --timeout 600 "${exclude[@]}"
