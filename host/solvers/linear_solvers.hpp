// Constructors of the LinearSolver implementations (private to host/).
#pragma once

#include <memory>
#include <string>

#include "softik/linear_solver.hpp"

namespace softik {
std::unique_ptr<LinearSolver> make_eigen_ldlt_solver();
#ifdef SOFTIK_HAVE_CHOLMOD
std::unique_ptr<LinearSolver> make_cholmod_solver();
#endif
#ifdef SOFTIK_HAVE_CUDA
// GPU solvers (cuda/); each throws softik::Error from analyze() when no CUDA device is usable.
std::unique_ptr<LinearSolver> make_cuda_dense_solver();      // cuda/solvers/cuda_dense_solver.cu
std::unique_ptr<LinearSolver> make_cuda_pcg_solver();        // cuda/solvers/cuda_pcg_solver.cu
std::unique_ptr<LinearSolver> make_cusolversp_solver();      // cuda/solvers/cusolversp_solver.cu
bool have_cudss();                                           // cuda/solvers/cudss_solver.cu
namespace cuda {
bool cudss_library_available(std::string* reason);          // cuda/solvers/cudss_solver.cu or cudss_library.cu
}  // namespace cuda
std::unique_ptr<LinearSolver> make_cudss_solver();           // cuda/solvers/cudss_solver.cu (throws without cuDSS)
#endif
}  // namespace softik
