// Opening a shared library at run time, for the GPU solvers' libraries that softik does not
// link (cuDSS: cudss_library.cu; cuBLAS, cuSOLVER, cuSPARSE: cuda_math_library.cu), and asking
// whether it loaded. Private to cuda/.
#pragma once

#include <dlfcn.h>

#include <exception>
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

/// Whether the library that `library()` loads once (a record with `loaded` and, when not, `error`)
/// loaded, without throwing; `reason`, if given, gets `loaded_text(record)` or why not.
template <class Library, class LoadedText>
bool library_available(const Library& (*library)(), std::string* reason, LoadedText loaded_text) {
  try {
    const Library& lib = library();
    if (reason) *reason = lib.loaded ? loaded_text(lib) : lib.error;
    return lib.loaded;
  } catch (const std::exception& e) {  // bad_alloc; the loader itself does not throw
    if (reason) *reason = e.what();
    return false;
  }
}

}  // namespace softik::cuda
