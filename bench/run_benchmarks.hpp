// The main() of a benchmark program that registers its cases at run time
// (benchmark::RegisterBenchmark) instead of with BENCHMARK(): what BENCHMARK_MAIN() runs.
#pragma once

#include <benchmark/benchmark.h>

/// Runs the registered benchmarks as the command line asks; main()'s exit status.
inline int run_benchmarks(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
