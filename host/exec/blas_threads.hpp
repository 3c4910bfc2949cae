// OpenBLAS's worker threads, set by softik per factorisation. OpenBLAS's workers
// busy-wait (sched_yield) for about 0.1 s after each threaded call before they sleep, so a solver
// that calls threaded BLAS every few milliseconds keeps them spinning on cores that assembly or
// other solves need (37 % of the profile of a static solve, sys time equal to user time). softik
// therefore runs BLAS single-threaded unless a factorisation is large enough to gain from more
// threads (CholmodSolver), and a batch caps the count per worker; a scope that ran BLAS on
// several threads stops OpenBLAS's workers when it ends (blas_thread_shutdown_, OpenBLAS's own
// path after fork(); they restart on the next threaded scope), so that they do not spin through
// the assembly that follows (bench/RESULTS.md, BM_FingerStaticSolveKrylov). The symbols are looked up at
// run time (dlsym): without OpenBLAS every function here does nothing. Like openblas_set_num_threads
// itself, none of this is for threads that run multi-threaded BLAS concurrently.
#pragma once

namespace softik::detail {

/// OpenBLAS's current thread count; 0 when the process has no OpenBLAS.
int blas_threads();
/// Sets OpenBLAS's thread count to min(threads, the cap below) (at least 1).
void set_blas_threads(int threads);

/// Sets the BLAS thread count for the scope (clamped by the cap) and restores the previous after;
/// except that the outermost scope that ends with several threads stops OpenBLAS's workers and
/// leaves the count at 1 (OpenBLAS starts its workers again whenever a count is set). An
/// application that wants OpenBLAS threaded for its own calls sets the count again after softik's.
class ScopedBlasThreads {
 public:
  explicit ScopedBlasThreads(int threads);
  ~ScopedBlasThreads();
  ScopedBlasThreads(const ScopedBlasThreads&) = delete;
  ScopedBlasThreads& operator=(const ScopedBlasThreads&) = delete;

 private:
  int previous_ = 0;
};

/// A process-wide upper bound on the counts softik sets, for the scope (e.g. one BLAS thread per
/// batch worker, whose factorisations run side by side); also sets the count to it. Restores the
/// previous cap and count after. Not for concurrent scopes with different caps.
class ScopedBlasThreadCap {
 public:
  explicit ScopedBlasThreadCap(int cap);
  ~ScopedBlasThreadCap();
  ScopedBlasThreadCap(const ScopedBlasThreadCap&) = delete;
  ScopedBlasThreadCap& operator=(const ScopedBlasThreadCap&) = delete;

 private:
  int previous_cap_ = 0, previous_threads_ = 0;
};

}  // namespace softik::detail
