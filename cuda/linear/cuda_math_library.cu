// Opens cuBLAS, cuSOLVER and cuSPARSE at run time and resolves their functions
// (cuda_math_library.hpp).
#include "cuda/linear/cuda_math_library.hpp"

#include <dlfcn.h>

#include <exception>
#include <string>
#include <vector>

#include "cuda/linear/runtime_library.hpp"
#include "softik/error.hpp"

#define SOFTIK_CUDA_MATH_STRING2(x) #x
#define SOFTIK_CUDA_MATH_STRING(x) SOFTIK_CUDA_MATH_STRING2(x)

namespace softik::cuda {

namespace {

struct CudaMathLibrary {
  CudaMathApi api;
  bool loaded = false;
  std::string files;  ///< the files loaded
  std::string error;  ///< why not, when !loaded
};

/// Opens the library of soname `soname` (the loader's search: LD_LIBRARY_PATH, the RUNPATH,
/// ld.so.cache; then the toolkit folder found at configure time). Null with `error` set if neither.
void* open_library(const std::string& soname, std::string& path, std::string& error) {
  std::vector<std::string> candidates{soname};
#ifdef SOFTIK_CUDA_MATH_LIBRARY_DIR
  candidates.push_back(std::string(SOFTIK_CUDA_MATH_LIBRARY_DIR) + "/" + soname);
#endif
  return open_first_library(candidates, soname, path, error);
}

CudaMathLibrary load_cuda_math() {
  CudaMathLibrary lib;
  const std::string cublas = "libcublas.so." SOFTIK_CUDA_MATH_STRING(CUBLAS_VER_MAJOR);
  const std::string cusolver = "libcusolver.so." SOFTIK_CUDA_MATH_STRING(CUSOLVER_VER_MAJOR);
  const std::string cusparse = "libcusparse.so." SOFTIK_CUDA_MATH_STRING(CUSPARSE_VER_MAJOR);
  std::string path;
#define SOFTIK_CUDA_MATH_RESOLVE(fn)                                                                \
  lib.api.fn = reinterpret_cast<decltype(&::fn)>(dlsym(handle, SOFTIK_CUDA_MATH_STRING(fn)));       \
  if (lib.api.fn == nullptr) {                                                                      \
    lib.error = path + " has no function " SOFTIK_CUDA_MATH_STRING(fn) ": it is not the library " \
                       "of the CUDA toolkit softik was compiled with"; \
    return lib;                                                                                     \
  }
  for (const std::string* soname : {&cublas, &cusolver, &cusparse}) {
    void* handle = open_library(*soname, path, lib.error);
    if (handle == nullptr) return lib;
    if (soname == &cublas) {
      SOFTIK_CUBLAS_FUNCTIONS(SOFTIK_CUDA_MATH_RESOLVE)
    } else if (soname == &cusolver) {
      SOFTIK_CUSOLVER_FUNCTIONS(SOFTIK_CUDA_MATH_RESOLVE)
    } else {
      SOFTIK_CUSPARSE_FUNCTIONS(SOFTIK_CUDA_MATH_RESOLVE)
    }
    lib.files += (lib.files.empty() ? "" : ", ") + path;
  }
#undef SOFTIK_CUDA_MATH_RESOLVE
  lib.loaded = true;
  return lib;
}

const CudaMathLibrary& cuda_math_library() {
  static const CudaMathLibrary lib = load_cuda_math();  // thread-safe, once
  return lib;
}

}  // namespace

const CudaMathApi& cuda_math() {
  const CudaMathLibrary& lib = cuda_math_library();
  SOFTIK_CHECK(lib.loaded, "the GPU linear solvers cannot run: "
                               << lib.error
                               << "\nThey need the CUDA toolkit's cuBLAS, cuSOLVER and cuSPARSE libraries of the "
                                  "version softik was built with: add their folder to LD_LIBRARY_PATH (usually "
                                  "/usr/local/cuda/lib64), or use the CPU solvers ('cholmod', 'eigen')");
  return lib.api;
}

bool cuda_math_available(std::string* reason) {
  return library_available(&cuda_math_library, reason,
                           [](const CudaMathLibrary& lib) { return "loaded " + lib.files; });
}

}  // namespace softik::cuda
