#!/usr/bin/env bash
# Runs softik's GPU checks and benchmarks on the device machine, from the programs that
# scripts/gpu_build.sh staged in build-gpu/pack.tar.gz (carry it; or build-gpu/bin and build-gpu/lib
# when they fit). Each step runs
# under its own time limit so that one slow case cannot eat the device time of the others; its
# whole output goes to $OUT/<step>.log (what the device tool brings back) and a one-line summary
# (exit status, seconds) to stdout.
#
# Usage: scripts/gpu_run.sh [STEP...]     (default: every step, in this order)
#   info       nvidia-smi and the driver
#   tests      softik_cuda_tests (JUnit XML in $OUT/tests.xml)
#   assembly   bench_cuda_assembly, GPU cases of Tet4
#   elements   bench_cuda_assembly, every element (Tet4, Tet10, Hex8; plain and cell_mean) on the
#              GPU up to 1M cells and on the CPU (every host core) up to 100k
#   solvers    bench_cuda_linear_solver (cuda-dense, cuda-pcg, cusolversp, cudss)
#   inverse    bench_cuda_inverse_step, GPU cases (9.8k to 1.01M tets)
#   batch      bench_batch_designs, cpu and cuda backends on the device host
#   lockstep   softik_cuda_tests CudaLockstep*, then bench_batch_designs BM_BatchLockstep (the
#              5k-tet finger: cuda with 16/64/256 designs, lockstep off and on; cpu one by one
#              with 64/256 designs beside it)
#   scene      examples/finger_flick, finger_inverse, finger_tet10 and finger_nodal_mean with --backend cpu and cuda
#              (their CSVs come back for comparison: CPU = GPU to round-off)
# cuDSS: if /tmp/softik-cudss holds the parts of libcudss.so.1 (see scripts/gpu_build.sh), they
# are joined into build-gpu/lib and checked against the recorded sha256 first.
# SOFTIK_GPU_STEP_LIMIT scales every step's time limit (default 1).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$root/build-gpu/bin"
lib="$root/build-gpu/lib"
out="${OUT:-$root/gpu-out}"
scale="${SOFTIK_GPU_STEP_LIMIT:-1}"
mkdir -p "$out"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# bin/ and lib/ as one gzip'd tar (scripts/gpu_build.sh writes it: the programs alone are over
# the 64 MiB a device call carries, compressed about a third of it).
if [ ! -x "$bin/softik_cuda_tests" ] && [ -f "$root/build-gpu/pack.tar.gz" ]; then
  tar -xzf "$root/build-gpu/pack.tar.gz" -C "$root/build-gpu"
fi
if [ ! -x "$bin/softik_cuda_tests" ]; then
  echo "softik gpu_run: $bin/softik_cuda_tests is missing: run scripts/gpu_build.sh here and carry build-gpu/pack.tar.gz (or build-gpu/bin and build-gpu/lib)" >&2
  exit 2
fi
if ls /tmp/softik-cudss/libcudss.so.1.part-* >/dev/null 2>&1 && [ ! -f "$lib/libcudss.so.1" ]; then
  cat /tmp/softik-cudss/libcudss.so.1.part-* >"$lib/libcudss.so.1"
  if ! (cd "$lib" && sha256sum -c --quiet libcudss.so.1.sha256); then
    echo "softik gpu_run: the joined libcudss.so.1 does not match its sha256 (a part missing?); running without cuDSS"
    rm -f "$lib/libcudss.so.1"
  fi
fi
[ -f "$lib/libcudss.so.1" ] && echo "cuDSS: $lib/libcudss.so.1" || echo "cuDSS: not present (its cases skip)"

# step NAME LIMIT_SECONDS COMMAND...
step() {
  local name="$1" limit="$2"
  shift 2
  limit=$(awk -v l="$limit" -v s="$scale" 'BEGIN {printf "%d", l * s}')
  local t0 t1 rc
  t0=$(date +%s.%N)
  timeout --signal=INT --kill-after=10 "$limit" stdbuf -oL -eL "$@" >"$out/$name.log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  printf '%-22s rc=%-3s %6.1f s (limit %s s)\n' "$name" "$rc" "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" "$limit"
}

bench=(--benchmark_counters_tabular=true --benchmark_min_time=0.2)
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(info tests assembly elements scene solvers inverse batch)
for s in "${steps[@]}"; do
  case "$s" in
    info) step info 20 nvidia-smi ;;
    tests) step tests 150 "$bin/softik_cuda_tests" --gtest_output="xml:$out/tests.xml" ;;
    assembly) step assembly 90 "$bin/bench_cuda_assembly" --benchmark_filter='^GPU/Tet4' "${bench[@]}" ;;
    elements) step elements 240 "$bin/bench_cuda_assembly" \
                --benchmark_filter='^GPU/[A-Za-z0-9]+/cells:(10000|100000|1000000)/min|^CPU/[A-Za-z0-9]+/cells:(10000|100000)/min' \
                "${bench[@]}" ;;
    solvers) step solvers 90 "$bin/bench_cuda_linear_solver" "${bench[@]}" ;;
    inverse) step inverse 150 "$bin/bench_cuda_inverse_step" --benchmark_filter='^GPU/' "${bench[@]}" ;;
    batch) step batch 90 "$bin/bench_batch_designs" --benchmark_filter='BatchDesigns/backend:[01]/designs:(16|64)/workers:0' \
             "${bench[@]}" ;;
    lockstep)
      step lockstep_tests 60 "$bin/softik_cuda_tests" --gtest_filter='CudaLockstep*' --gtest_output="xml:$out/lockstep.xml"
      step lockstep_bench 300 "$bin/bench_batch_designs" \
        --benchmark_filter='BatchLockstep/backend:1/|BatchLockstep/backend:0/designs:(64|256)/lockstep:0' \
        --benchmark_counters_tabular=true ;;
    scene)
      for ex in finger_flick finger_inverse finger_tet10 finger_nodal_mean; do
        for b in cpu cuda; do
          step "scene_${ex}_$b" 60 "$bin/softik" run "$root/examples/$ex/$ex.yaml" --out "$out/${ex}_$b" --backend "$b"
        done
      done ;;
    *) echo "softik gpu_run: unknown step '$s' (info tests assembly elements solvers inverse batch lockstep scene)" >&2; exit 2 ;;
  esac
done
