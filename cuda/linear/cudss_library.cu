// Opens libcudss.so.1 at run time and resolves the cuDSS functions (cudss_library.hpp).
#ifdef SOFTIK_HAVE_CUDSS
#include "cuda/linear/cudss_library.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "cuda/linear/cudss_solver.hpp"
#include "cuda/linear/runtime_library.hpp"

namespace softik::cuda {

namespace {

struct CudssLibrary {
  CudssApi api;
  bool loaded = false;
  std::string path;   ///< the file that was loaded
  std::string error;  ///< why it was not, when !loaded
};

/// The folder of the running executable ("" when /proc/self/exe cannot be read).
std::string executable_folder() {
  std::vector<char> buffer(4096);
  const ssize_t length = readlink("/proc/self/exe", buffer.data(), buffer.size() - 1);
  if (length <= 0) return {};
  const std::string path(buffer.data(), static_cast<std::size_t>(length));
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

CudssLibrary load_cudss_library() {
  CudssLibrary lib;
  std::vector<std::string> candidates;
  if (const char* file = std::getenv("SOFTIK_CUDSS_LIBRARY"); file != nullptr && *file != '\0')
    candidates.emplace_back(file);
  candidates.emplace_back("libcudss.so.1");  // LD_LIBRARY_PATH, the executable's RUNPATH, ld.so.cache
  const std::string folder = executable_folder();
  if (!folder.empty()) {
    candidates.push_back(folder + "/lib/libcudss.so.1");
    candidates.push_back(folder + "/../lib/libcudss.so.1");
  }
#ifdef SOFTIK_CUDSS_LIBRARY_PATH
  candidates.emplace_back(SOFTIK_CUDSS_LIBRARY_PATH);  // found by CMake at configure time
#endif
  void* handle = open_first_library(candidates, "libcudss.so.1", lib.path, lib.error);
  if (handle == nullptr) return lib;
#define SOFTIK_CUDSS_RESOLVE(fn)                                                                                  \
  lib.api.fn = reinterpret_cast<decltype(&::fn)>(dlsym(handle, #fn));                                             \
  if (lib.api.fn == nullptr) {                                                                                    \
    lib.error = lib.path + " has no function " #fn ": it is not a cuDSS " + std::to_string(CUDSS_VERSION_MAJOR) + \
                ".x library";                                                                                     \
    return lib;                                                                                                   \
  }
  SOFTIK_CUDSS_FUNCTIONS(SOFTIK_CUDSS_RESOLVE)
#undef SOFTIK_CUDSS_RESOLVE
  // The enums of cudss_data_types.h (data and config parameters) have moved between minor
  // versions before 1.0: the library must be at least the header's version, same major.
  int major = -1, minor = -1, patch = -1;
  if (lib.api.cudssGetProperty(MAJOR_VERSION, &major) != CUDSS_STATUS_SUCCESS ||
      lib.api.cudssGetProperty(MINOR_VERSION, &minor) != CUDSS_STATUS_SUCCESS ||
      lib.api.cudssGetProperty(PATCH_LEVEL, &patch) != CUDSS_STATUS_SUCCESS) {
    lib.error = lib.path + ": cudssGetProperty failed";
    return lib;
  }
  if (major != CUDSS_VERSION_MAJOR || minor < CUDSS_VERSION_MINOR) {
    std::ostringstream s;
    s << lib.path << " is cuDSS " << major << "." << minor << "." << patch << ", but softik was compiled against cuDSS "
      << CUDSS_VERSION_MAJOR << "." << CUDSS_VERSION_MINOR << "." << CUDSS_VERSION_PATCH
      << " (same major version and at least that minor version needed)";
    lib.error = s.str();
    return lib;
  }
  lib.loaded = true;
  return lib;
}

const CudssLibrary& cudss_library() {
  static const CudssLibrary lib = load_cudss_library();  // thread-safe, once
  return lib;
}

}  // namespace

const CudssApi& require_cudss() {
  const CudssLibrary& lib = cudss_library();
  SOFTIK_CHECK(lib.loaded, "the GPU linear solver 'cuDSS' cannot run: "
                               << lib.error
                               << "\nInstall cuDSS with scripts/setup.sh (PyPI nvidia-cudss-cu13), or set "
                                  "SOFTIK_CUDSS_LIBRARY to the file libcudss.so.1, or add its folder to "
                                  "LD_LIBRARY_PATH (it also needs CUDA 13's libcublas.so.13 and libnvrtc.so.13: "
                                  "LD_LIBRARY_PATH=/usr/local/cuda/lib64); or use 'cuda-dense' (up to ~20k free "
                                  "DOFs) or 'cuda-pcg'");
  return lib.api;
}

const char* cudss_status_name(cudssStatus_t status) {
  switch (status) {
    case CUDSS_STATUS_SUCCESS:
      return "CUDSS_STATUS_SUCCESS";
    case CUDSS_STATUS_NOT_INITIALIZED:
      return "CUDSS_STATUS_NOT_INITIALIZED";
    case CUDSS_STATUS_ALLOC_FAILED:
      return "CUDSS_STATUS_ALLOC_FAILED (out of device or host memory: use a coarser mesh, or 'cuda-pcg')";
    case CUDSS_STATUS_INVALID_VALUE:
      return "CUDSS_STATUS_INVALID_VALUE";
    case CUDSS_STATUS_NOT_SUPPORTED:
      return "CUDSS_STATUS_NOT_SUPPORTED";
    case CUDSS_STATUS_EXECUTION_FAILED:
      return "CUDSS_STATUS_EXECUTION_FAILED";
    case CUDSS_STATUS_INTERNAL_ERROR:
      return "CUDSS_STATUS_INTERNAL_ERROR";
    case CUDSS_STATUS_IR_FAILED:
      return "CUDSS_STATUS_IR_FAILED";
    default:
      return "unknown cuDSS status (see cudss_data_types.h)";
  }
}

bool cudss_library_available(std::string* reason) {
  return library_available(&cudss_library, reason,
                           [](const CudssLibrary& lib) { return "cuDSS loaded from " + lib.path; });
}

}  // namespace softik::cuda

#endif  // SOFTIK_HAVE_CUDSS
