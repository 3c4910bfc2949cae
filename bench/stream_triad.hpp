// The machine's memory bound, measured next to the kernels that are compared with it: a STREAM-like
// triad a[i] = b[i] + s c[i] over arrays far larger than the caches (3 x 64 MB) on softik's
// threads, 24 bytes per element moved (two reads, one write; write-allocate traffic not counted).
// A benchmark program registers it with
// BENCHMARK(softik::bench::stream_triad)->Apply(softik::bench::stream_triad_runs).
#pragma once

#include <benchmark/benchmark.h>

#include <vector>

#include "softik/config.hpp"
#include "softik/exec/thread_pool.hpp"

namespace softik::bench {

inline void stream_triad(benchmark::State& state) {
  const size_t n = size_t(8) << 20;
  std::vector<Real> a(n, 0.0), b(n, 1.0), c(n, 2.0);
  const int threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
    exec::parallel(threads, [&](int t, int p) {
      const size_t begin = n * static_cast<size_t>(t) / static_cast<size_t>(p);
      const size_t end = n * static_cast<size_t>(t + 1) / static_cast<size_t>(p);
      for (size_t i = begin; i < end; ++i) a[i] = b[i] + 0.5 * c[i];
    });
    benchmark::DoNotOptimize(a.data());
  }
  state.counters["GB/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * 24.0 * n * 1e-9, benchmark::Counter::kIsRate);
}

/// stream_triad's runs: named BM_StreamTriad, on 1 and 2 threads, in real time, in milliseconds.
inline void stream_triad_runs(benchmark::internal::Benchmark* b) {
  b->Name("BM_StreamTriad")->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
}

}  // namespace softik::bench
