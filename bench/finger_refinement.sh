#!/usr/bin/env bash
# Mesh refinement of the nearly incompressible finger (issue 19 item 3): the tip deflection u_z of
# examples/finger_tet10 (Tet10) and examples/finger_nodal_mean (Tet4 with the average nodal
# pressure), both neo-Hookean at nu = 0.49 and 10 kPa, at several cell sizes. Each run is the
# example's scene with mesh.generator.cell_size (and, when given, solver.linear_solver) replaced;
# one CSV row per run: element, cell size, DOFs, Newton iterations, tip u_z, wall seconds.
#
# Usage: bench/finger_refinement.sh SOFTIK OUT_DIR [CASE...]
#   CASE is ELEMENT:CELL_SIZE[:BACKEND[:SOLVER]] with ELEMENT tet10, tet10_cell_mean or
#   tet4_nodal_mean, e.g. tet10:0.002:cuda:cudss or tet4_nodal_mean:0.002 (default: the cell
#   sizes 4, 3 and 2 mm of every element on the CPU backend with its default solver).
#   SOFTIK_REFINEMENT_LIMIT: seconds per run (default 900); a run over it is recorded as such.
# Results: OUT_DIR/finger_refinement.csv (and each run's output folder); bench/RESULTS.md.
set -uo pipefail
if [ $# -lt 2 ]; then
  sed -n 2,14p "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
softik="$1"
out="$2"
shift 2
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
limit="${SOFTIK_REFINEMENT_LIMIT:-900}"
cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
  for e in tet10 tet10_cell_mean tet4_nodal_mean; do
    for h in 0.004 0.003 0.002; do cases+=("$e:$h"); done
  done
fi
mkdir -p "$out"
csv="$out/finger_refinement.csv"
[ -f "$csv" ] || echo "element,cell_size_m,backend,linear_solver,dofs,free_dofs,newton_iterations,tip_uz_m,wall_s,status" >"$csv"

for c in "${cases[@]}"; do
  IFS=: read -r element h backend solver <<<"$c"
  backend="${backend:-cpu}"
  solver="${solver:-auto}"
  case "$element" in
    tet10) scene="$root/examples/finger_tet10/finger_tet10.yaml"; extra="" ;;
    tet10_cell_mean) scene="$root/examples/finger_tet10/finger_tet10.yaml"; extra="dilatation: cell_mean" ;;
    tet4_nodal_mean) scene="$root/examples/finger_nodal_mean/finger_nodal_mean.yaml"; extra="" ;;
    *) echo "finger_refinement: unknown element '$element' (tet10, tet10_cell_mean, tet4_nodal_mean)" >&2; exit 2 ;;
  esac
  if ! [[ "$h" =~ ^[0-9]*\.?[0-9]+$ ]]; then
    echo "finger_refinement: cell size '$h' of case '$c' is not a positive number (metres)" >&2
    exit 2
  fi
  name="${element}_${h}_${backend}_${solver}"
  dir="$out/$name"
  mkdir -p "$dir"
  # The example with its cell size (and solver) replaced; written next to the example so that the
  # scene's relative paths, if any, still resolve.
  yaml="$dir/scene.yaml"
  sed -e "s/^\( *cell_size:\) *[0-9.eE+-]*/\1 $h/" \
      -e "s/^\(solver:\)$/\1\n  linear_solver: $solver/" "$scene" >"$yaml"
  [ -n "$extra" ] && sed -i "s/^formulation: hyperelastic$/formulation: hyperelastic\n$extra/" "$yaml"
  t0=$(date +%s.%N)
  timeout --signal=INT --kill-after=10 "$limit" "$softik" run "$yaml" --out "$dir" --backend "$backend" >"$dir/run.log" 2>&1
  rc=$?
  wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
  status=ok
  [ $rc -eq 124 ] || [ $rc -eq 130 ] && status="over ${limit} s"
  [ $rc -ne 0 ] && [ "$status" = ok ] && status="failed (exit $rc): $(grep -m1 'error' "$dir/run.log" | tr ',' ';')"
  dofs=$(sed -n 's/.* \([0-9]*\) DOFs (\([0-9]*\) free).*/\1,\2/p' "$dir/run.log" | head -n 1)
  its=$(sed -n "s/.* load steps .*, \([0-9]*\) Newton iterations.*/\1/p" "$dir/run.log" | head -n 1)
  uz=$(sed -n 's/.*probe tip at .*: displacement ([^,]*, [^,]*, \([^)]*\)).*/\1/p' "$dir/run.log" | head -n 1)
  echo "$element,$h,$backend,$solver,${dofs:-,},${its},${uz},$wall,$status" | tee -a "$csv"
done
