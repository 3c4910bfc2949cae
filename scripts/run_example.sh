#!/usr/bin/env bash
# Sets up, builds and runs softik's main example: a generated cantilever beam, assembled with
# the corotational and neo-Hookean formulations; prints energy, force norm and timing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
build="${SOFTIK_BUILD_DIR:-$root/build}"
"$build/examples/beam_assembly" "$@"
