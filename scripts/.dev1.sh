set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$PWD/build-gpu/lib
bash scripts/gpu_run.sh info tests
gunzip -c build-gpu/base/bench_cuda_assembly.gz > build-gpu/bin/bench_base && chmod +x build-gpu/bin/bench_base
B="--benchmark_counters_tabular=true --benchmark_min_time=0.3"
for r in 1 2; do
  timeout 60 build-gpu/bin/bench_base --benchmark_filter='^GPU/Tet4(Corotational|NeoHookean)/' $B > $OUT/base_$r.log 2>&1
  timeout 90 build-gpu/bin/bench_cuda_assembly --benchmark_filter='^GPU/Tet4' $B > $OUT/new_$r.log 2>&1
done
timeout 60 build-gpu/bin/bench_cuda_assembly --benchmark_filter='^CPU/Tet4' $B > $OUT/cpu.log 2>&1
grep -E "tests|PASSED|FAILED" $OUT/tests.log | tail -15
for f in base_1 new_1 base_2 new_2 cpu; do echo "== $f"; grep -E "^(GPU|CPU)/" $OUT/$f.log | awk '{print $1, $2, $3}'; done
