// CHOLMOD's own OpenMP regions, made serial by softik while it calls CHOLMOD.
// SuiteSparse 5 built with OpenMP (Debian's libcholmod3 is) opens parallel regions in its
// supernodal factorisation with num_threads(CHOLMOD_OMP_NUM_THREADS), fixed at 4 when the library
// was built, whatever the machine: their libgomp workers then busy-wait beside OpenBLAS's threads
// and softik's pool. The regions only clear and scatter memory; the flops are BLAS's. On two cores
// the 9.8k-tet finger's static solve is 1.5-2.2x faster with them serial, as with OMP_THREAD_LIMIT=1
// (which a library cannot set).
// ScopedSerialOpenMP sets the calling thread's max-active-levels to 0 (omp_set_max_active_levels:
// a parallel region then runs on its encountering thread alone, no workers are started) and
// restores the previous value after, so an application's own OpenMP on that thread is untouched
// outside the scope. The functions are looked up at run time (dlsym): without libgomp in the
// process it does nothing.
#pragma once

namespace softik::detail {

class ScopedSerialOpenMP {
 public:
  ScopedSerialOpenMP();
  ~ScopedSerialOpenMP();
  ScopedSerialOpenMP(const ScopedSerialOpenMP&) = delete;
  ScopedSerialOpenMP& operator=(const ScopedSerialOpenMP&) = delete;

 private:
  int previous_ = -1;  ///< -1: no OpenMP runtime in the process
};

/// The calling thread's max-active-levels, or -1 without an OpenMP runtime (for tests).
int openmp_max_active_levels();

}  // namespace softik::detail
