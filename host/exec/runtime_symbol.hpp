// A function of a runtime library softik does not link (OpenBLAS, the OpenMP runtime), found in
// the process if some dependency loaded it: in the global scope first, then in the library named
// by `soname` where it was loaded locally (e.g. with softik's Python module, which the interpreter
// opens with RTLD_LOCAL). RTLD_NOLOAD: it is never loaded here. Null when absent.
#pragma once

#include <dlfcn.h>

namespace softik::detail {

template <class Function>
Function* runtime_symbol(const char* name, const char* soname) {
  void* symbol = dlsym(RTLD_DEFAULT, name);
  if (!symbol)
    if (void* library = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD)) symbol = dlsym(library, name);
  return reinterpret_cast<Function*>(symbol);
}

}  // namespace softik::detail
