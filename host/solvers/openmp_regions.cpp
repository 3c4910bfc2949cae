// omp_set_max_active_levels through dlsym (openmp_regions.hpp).
#include "host/solvers/openmp_regions.hpp"

#include <dlfcn.h>

namespace softik::detail {

namespace {

struct OpenMP {
  void (*set_levels)(int) = nullptr;
  int (*get_levels)() = nullptr;
  OpenMP() {
    // The global scope first; then libgomp where it was loaded locally (e.g. with softik's Python
    // module, which the interpreter opens with RTLD_LOCAL). RTLD_NOLOAD: never loads it.
    lookup(RTLD_DEFAULT);
    if (!set_levels)
      if (void* gomp = dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD)) lookup(gomp);
  }
  void lookup(void* scope) {
    set_levels = reinterpret_cast<void (*)(int)>(dlsym(scope, "omp_set_max_active_levels"));
    get_levels = reinterpret_cast<int (*)()>(dlsym(scope, "omp_get_max_active_levels"));
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
