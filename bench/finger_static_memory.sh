#!/usr/bin/env bash
# One static solve of the generated Tet4 finger (neo-Hookean E = 200 kPa, nu = 0.45, base clamped,
# follower cavity pressure 20 kPa with its load stiffness in 4 load steps, converged to 1e-8; the
# scene of bench/calculix_compare.py) at a given grid cell size, through the `softik` program:
# its summary line (cells, DOFs, Newton iterations, wall time), the process's peak resident memory
# (VmHWM, sampled every 0.1 s from /proc until it exits) and, when nvidia-smi is there, the GPU's
# peak used memory (sampled every 100 ms; the whole device's, so run it alone). bench/RESULTS.md
# quotes it for the 1M-tet finger on the GPU (cell size 0.59 mm: 1.01M tets, 556k free DOFs).
#
# Usage: bench/finger_static_memory.sh SOFTIK CELL_SIZE BACKEND [LINEAR_SOLVER]
#   e.g. bench/finger_static_memory.sh build-gpu/bin/softik 0.00059 cuda cudss
set -euo pipefail
softik="$1" cell="$2" backend="$3" solver="${4:-auto}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
"$(dirname "$0")/finger_scene.sh" "$cell" 0.10 20000 4 "$backend" "$solver" >"$dir/finger.yaml"
gpu_log="$dir/gpu.csv"
sampler=""
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 >"$gpu_log" 2>/dev/null &
  sampler=$!
fi
"$softik" run "$dir/finger.yaml" --out "$dir/out" --progress none >"$dir/run.log" 2>&1 &
pid=$!
peak=0
while kill -0 "$pid" 2>/dev/null; do
  hwm=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
  [ -n "$hwm" ] && [ "$hwm" -gt "$peak" ] && peak=$hwm
  sleep 0.1
done
wait "$pid" && rc=0 || rc=$?
[ -n "$sampler" ] && kill "$sampler" 2>/dev/null || true
grep -E "Newton iterations|rror" "$dir/run.log" || cat "$dir/run.log"
echo "exit status $rc; peak resident memory $((peak / 1024)) MiB"
if [ -s "$gpu_log" ]; then
  sort -n "$gpu_log" | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "GPU memory used: %d MiB before, %d MiB at the peak\n", lo, hi}'
fi
