#!/usr/bin/env bash
# Sets up, builds and runs softik's main example: the generated pneumatic finger of
# examples/finger/finger.yaml (neo-Hookean silicone, base clamped, cavity inflated in 10 load
# steps). Shows progress per load step, then the cavity volume growth and the tip displacement;
# writes finger.csv, finger.pvd and the .vtu files into <build>/finger_out.
# Extra arguments go to `softik run` (e.g. --quiet).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
SOFTIK_BUILD_TARGETS=softik_cli "$root/scripts/build.sh"  # the softik program alone: what the example runs
build="${SOFTIK_BUILD_DIR:-$root/build}"
"$build/softik" run "$root/examples/finger/finger.yaml" --out "$build/finger_out" "$@"
