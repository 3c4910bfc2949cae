// Opening a shared library at run time, for the GPU solvers' libraries that softik does not
// link (cuDSS: cudss_library.cu; cuBLAS, cuSOLVER, cuSPARSE: cuda_math_library.cu). Private to cuda/.
#pragma once

#include <dlfcn.h>

#include <sstream>
#include <string>
#include <vector>

namespace softik::cuda {

/// dlopen (RTLD_NOW | RTLD_LOCAL) of the first candidate file that loads; `path` gets its name.
/// Null if none does, with `error` = "<what> could not be loaded; tried:" and each candidate with
/// the loader's reason. A library opened here is never closed: it stays for the life of the
/// process (solvers and handles may outlive any owner).
inline void* open_first_library(const std::vector<std::string>& candidates, const std::string& what, std::string& path,
                                std::string& error) {
  std::ostringstream tried;
  for (const std::string& candidate : candidates) {
    if (void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      path = candidate;
      return handle;
    }
    const char* why = dlerror();
    tried << "\n  " << candidate << ": " << (why ? why : "not loadable");
  }
  error = what + " could not be loaded; tried:" + tried.str();
  return nullptr;
}

}  // namespace softik::cuda
