// softik's one pool of host threads, for the host policies of forall (exec/forall.hpp).
//
// parallel_run(threads, task, context) runs task(context, t, p) for t in [0, p), p = min(threads,
// the pool's workers + 1), the calling thread taking t = 0, and returns when every part is done.
// The workers (hardware threads - 1, started on first use) wait for work by spinning for a
// while after their last part (100 us, up to 2 ms while work keeps arriving that often) and then
// sleep on a condition variable, so a loop that calls parallel_run every few microseconds (the
// colours of one assembly) or every millisecond (a 1 kHz control loop) keeps them awake while an
// idle process has no spinning thread; and
// rest_workers() puts them to sleep at once before softik runs BLAS on several threads (a large
// factorisation), which then has the cores to itself. This replaces OpenMP, whose wait policy
// (OMP_WAIT_POLICY, GOMP_SPINCOUNT) is read once when libgomp loads and which kept its workers
// spinning through the serial parts of a solve, beside OpenBLAS's (bench/RESULTS.md, "One thread
// pool").
//
// One run at a time: a call made while another thread's run is in progress (batch workers,
// which use one thread each anyway) runs its parts serially on its own thread, which is always
// correct. An exception thrown by a part is rethrown by parallel_run after every part ended.
#pragma once

#include <utility>

namespace softik::exec {

/// How long an idle worker spins before it sleeps: kSpinMicroseconds, doubled after each short
/// sleep (woken within kMaxSpinMicroseconds) up to kMaxSpinMicroseconds, halved after each long one.
constexpr int kSpinMicroseconds = 100;
constexpr int kMaxSpinMicroseconds = 1000;

/// The name of the workers' threads (top -H, /proc/PID/task/TID/comm).
constexpr const char* kPoolThreadName = "softik-pool";

/// Runs task(context, t, p) for t in [0, p) as above; p = 1 runs it on the calling thread.
void parallel_run(int threads, void (*task)(void* context, int t, int p), void* context);

/// The most parts parallel_run runs at once (the workers + the caller).
int pool_size();

/// Workers spinning after their last part go to sleep at once: for code about to hand the
/// cores to another pool (a multi-threaded BLAS call), so that the two do not compete.
void rest_workers();

/// parallel_run for a callable f(t, p).
template <class F>
void parallel(int threads, F&& f) {
  using Fn = std::remove_reference_t<F>;
  parallel_run(
      threads, [](void* c, int t, int p) { (*static_cast<Fn*>(c))(t, p); },
      const_cast<void*>(static_cast<const void*>(&f)));
}

}  // namespace softik::exec
