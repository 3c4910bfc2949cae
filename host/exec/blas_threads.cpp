// OpenBLAS's thread count through dlsym (blas_threads.hpp).
#include "host/exec/blas_threads.hpp"

#include "host/exec/runtime_symbol.hpp"
#include "softik/exec/thread_pool.hpp"

#include <algorithm>
#include <atomic>

namespace softik::detail {

namespace {

struct OpenBlas {
  void (*set)(int) = nullptr;
  int (*get)() = nullptr;
  int (*shutdown)() = nullptr;
  OpenBlas() {
    set = runtime_symbol<void(int)>("openblas_set_num_threads", "libopenblas.so.0");
    get = runtime_symbol<int()>("openblas_get_num_threads", "libopenblas.so.0");
    shutdown = runtime_symbol<int()>("blas_thread_shutdown_", "libopenblas.so.0");
    if (!set || !get) set = nullptr, get = nullptr, shutdown = nullptr;
  }
};

const OpenBlas& openblas() {
  static const OpenBlas blas;
  return blas;
}

std::atomic<int> cap{0};          ///< 0: none
std::atomic<int> open_scopes{0};  ///< ScopedBlasThreads alive (nested ones keep the workers)

}  // namespace

int blas_threads() { return openblas().get ? openblas().get() : 0; }

void set_blas_threads(int threads) {
  if (!openblas().set) return;
  const int c = cap.load();
  threads = std::max(1, c > 0 ? std::min(threads, c) : threads);
  if (openblas().get() != threads) openblas().set(threads);
}

ScopedBlasThreads::ScopedBlasThreads(int threads) : previous_(blas_threads()) {
  ++open_scopes;
  set_blas_threads(threads);
  if (blas_threads() > 1) exec::rest_workers();  // the scope's BLAS calls get the cores
}
ScopedBlasThreads::~ScopedBlasThreads() {
  const bool outermost = --open_scopes == 0;
  if (previous_ <= 0) return;
  if (outermost && blas_threads() > 1 && openblas().shutdown) {
    // OpenBLAS's workers would spin (sched_yield) for ~0.1 s on the cores that assembly, the line
    // search and softik's own pool need next: they are stopped (OpenBLAS's own path after fork)
    // and the count left at 1, since setting any count starts them again at once. The next
    // threaded scope starts them (tens of microseconds).
    set_blas_threads(1);
    openblas().shutdown();
    return;
  }
  set_blas_threads(previous_);
}

ScopedBlasThreadCap::ScopedBlasThreadCap(int c) : previous_cap_(cap.exchange(c)), previous_threads_(blas_threads()) {
  set_blas_threads(c);
}
ScopedBlasThreadCap::~ScopedBlasThreadCap() {
  cap.store(previous_cap_);
  if (previous_threads_ > 0) set_blas_threads(previous_threads_);
}

}  // namespace softik::detail
