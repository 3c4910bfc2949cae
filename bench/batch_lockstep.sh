#!/usr/bin/env bash
# Designs per minute of `softik batch` on the 5k-tet finger (bench/batch_designs.cpp's
# BM_BatchLockstep scene: 160 mm, 4890 Tet4, 4224 free DOFs, neo-Hookean, 2 load steps), for each
# backend x linear solver x lockstep setting given, from the CLI's own summary line. Used on the
# GPU machine, where the linear solver matters most (bench/RESULTS.md).
#
# Usage: bench/batch_lockstep.sh SOFTIK DESIGNS CASE...
#   SOFTIK   the softik program (build/softik, build-gpu/bin/softik)
#   DESIGNS  designs per batch (even: half at E = 150 kPa, half at 250 kPa, pressures 4..16 kPa)
#   CASE     backend:solver:lockstep, e.g. cuda:cuda-dense:on cuda:cudss:off cpu:auto:off
# LOCKSTEP_DESIGNS sets the designs per lockstep wave (default 64).
set -euo pipefail
softik="$1" designs="$2"
shift 2
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
"$(dirname "$0")/finger_scene.sh" 0.004 0.16 10000 2 >"$dir/finger5k.yaml"
half=$((designs / 2))
pressures=$(awk -v n="$half" 'BEGIN { for (k = 0; k < n; ++k) printf "%s%g", (k ? ", " : ""), (n == 1 ? 10000 : 4000 + 12000 * k / (n - 1)) }')
for case in "$@"; do
  IFS=: read -r backend solver lockstep <<<"$case"
  cat >"$dir/b.yaml" <<YAML
scene: finger5k.yaml
backend: $backend
lockstep: $lockstep
lockstep_designs: ${LOCKSTEP_DESIGNS:-64}
sweep:
  solver.linear_solver: [$solver]
  materials[0].young: [1.5e5, 2.5e5]
  loads.pressure[0].value: [$pressures]
YAML
  rm -rf "$dir/out"
  echo "== $case, $designs designs"
  "$softik" batch "$dir/b.yaml" --out "$dir/out" --progress none | grep -E "designs ok|lockstep:"
done
