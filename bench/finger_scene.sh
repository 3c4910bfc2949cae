#!/usr/bin/env bash
# Prints the scene of the benchmarks' generated Tet4 finger (bench/batch_lockstep.sh,
# bench/finger_static_memory.sh; bench/batch_designs.cpp and bench/calculix_compare.py write the
# same model): neo-Hookean E = 200 kPa, nu = 0.45, the base clamped, the cavity under a follower
# pressure with its load stiffness, Newton to a relative residual of 1e-8, no .vtu, a probe at the
# centre of the tip face.
#
# Usage: bench/finger_scene.sh CELL_SIZE LENGTH PRESSURE LOAD_STEPS [BACKEND [LINEAR_SOLVER]]
#   e.g. bench/finger_scene.sh 0.004 0.16 10000 2 > finger5k.yaml    (4,890 tets)
set -euo pipefail
cell="$1" length="$2" pressure="$3" steps="$4" backend="${5:-cpu}" solver="${6:-auto}"
cat <<YAML
name: finger
mesh:
  generator: {type: finger, length: $length, cell_size: $cell, cell_type: tet4}
formulation: hyperelastic
materials:
  - {law: neo_hookean, young: 2.0e5, poisson: 0.45}
fixed:
  - group: xmin
loads:
  pressure:
    - {surface: cavity, value: $pressure}
solver:
  backend: $backend
  linear_solver: $solver
  load_steps: $steps
  max_iterations: 30
  residual_tolerance: 1.0e-8
  pressure_stiffness: true
outputs:
  vtu: false
  probes:
    - {name: tip, point: [$length, 0.01, 0.01]}
YAML
