// The CUDA backend's table of the core's interfaces (host/exec/device_backend.hpp): the one place
// where the core meets the CUDA backend's implementations.
#include "cuda/backend_entries.hpp"
#include "softik/linear_solver.hpp"

namespace softik {

namespace {

std::unique_ptr<LinearSolver> make_gpu_linear_solver(LinearSolverKind kind) {
  switch (kind) {
    case LinearSolverKind::CudaDense:
      return make_cuda_dense_solver();
    case LinearSolverKind::CudaPcg:
      return make_cuda_pcg_solver();
    case LinearSolverKind::CusolverSpCholesky:
      return make_cusolversp_solver();
    default:
      return make_cudss_solver();
  }
}

}  // namespace

const DeviceBackend* device_backend() {
  static const DeviceBackend table{"cuda",
                                   cuda::device_usable,
                                   make_device_assembly,
                                   make_device_design_engine,
                                   make_device_pressure_evaluator,
                                   make_device_network_forces,
                                   make_gpu_linear_solver,
                                   have_cudss(),
                                   cuda::cudss_library_available};
  return &table;
}

}  // namespace softik
