// omp_set_max_active_levels through dlsym (openmp_regions.hpp).
#include "host/exec/openmp_regions.hpp"

#include "host/exec/runtime_symbol.hpp"

namespace softik::detail {

namespace {

struct OpenMP {
  void (*set_levels)(int) = nullptr;
  int (*get_levels)() = nullptr;
  OpenMP() {
    set_levels = runtime_symbol<void(int)>("omp_set_max_active_levels", "libgomp.so.1");
    get_levels = runtime_symbol<int()>("omp_get_max_active_levels", "libgomp.so.1");
    if (!set_levels || !get_levels) set_levels = nullptr, get_levels = nullptr;
  }
};

const OpenMP& openmp() {
  static const OpenMP runtime;
  return runtime;
}

}  // namespace

int openmp_max_active_levels() { return openmp().get_levels ? openmp().get_levels() : -1; }

ScopedSerialOpenMP::ScopedSerialOpenMP() : previous_(openmp_max_active_levels()) {
  if (previous_ > 0) openmp().set_levels(0);
}

ScopedSerialOpenMP::~ScopedSerialOpenMP() {
  if (previous_ > 0) openmp().set_levels(previous_);
}

}  // namespace softik::detail
