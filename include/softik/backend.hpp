// Where the mechanics run: the CPU backend (host/) or the CUDA backend (cuda/). Both call the
// same include/softik/fem/ element and material functions, so they produce the same numbers to
// round-off (docs/gpu.md, "CPU = GPU").
//
//   AssemblyOptions options;  options.backend = Backend::Cuda;   // GPU force + stiffness
//   auto solver = make_linear_solver(choose_linear_solver(Backend::Cuda, assembler.num_free_dofs()));
#pragma once

#include <string>

namespace softik {

enum class Backend {
  Cpu,   ///< host assembly (softik's host threads over coloured cell blocks)
  Cuda,  ///< GPU assembly (the CUDA backend, cuda/); needs a CUDA build and a device
};

/// "cpu" or "cuda".
const char* backend_name(Backend backend);
/// The inverse of backend_name; throws softik::Error naming the accepted values otherwise.
Backend parse_backend(const std::string& name);
/// Whether this build contains the CUDA backend (SOFTIK_CUDA found nvcc).
bool cuda_backend_built();
namespace cuda {
/// True when a CUDA device can be used; otherwise false and, if given, `reason` says why (built
/// without the CUDA backend, no driver, no device, ...). Never throws.
bool device_available(std::string* reason = nullptr);
}  // namespace cuda

/// Throws softik::Error unless `backend` can run here: for Cuda, a CUDA build and a usable
/// device (the message says which is missing and how to get it, or to use --backend cpu).
void require_backend(Backend backend);

}  // namespace softik
