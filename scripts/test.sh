#!/usr/bin/env bash
# Sets up (Debian packages), builds and runs every test. This is the command README.md shows
# and .ci/run calls. CUDA tests skip with a reason when no GPU is present.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh" "$@"
build="${SOFTIK_BUILD_DIR:-$root/build}"
ctest --test-dir "$build" --output-on-failure --parallel "$(nproc)" --timeout 600
