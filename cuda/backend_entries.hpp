// The CUDA backend's entry points (private to cuda/): each defined in the file its comment
// names, and gathered into the one table the core sees by cuda/device_backend.cu.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "host/exec/device_backend.hpp"
#include "softik/linear_solver.hpp"

namespace softik {

std::unique_ptr<DeviceAssembly> make_device_assembly(const Assembler& host);  // cuda/assembly/device_assembler.cu
std::unique_ptr<DesignAssemblyEngine> make_device_design_engine(
    const std::vector<const Assembler*>& designs);  // cuda/assembly/design_engine.cu
std::unique_ptr<PressureEvaluator> make_device_pressure_evaluator(
    const PressureLoad& load,
    const Mesh& mesh);  // cuda/loads/device_pressure.cu
std::unique_ptr<DeviceNetworkForces> make_device_network_forces(
    const std::vector<int>& first, const std::vector<int>& other, const std::vector<Real>& spring,
    const std::vector<Real>& extra, const VolumeCellTable& cells);  // cuda/network/device_network.cu
std::unique_ptr<LinearSolver> make_cuda_dense_solver();             // cuda/linear/cuda_dense_solver.cu
std::unique_ptr<LinearSolver> make_cuda_pcg_solver();               // cuda/linear/cuda_pcg_solver.cu
std::unique_ptr<LinearSolver> make_cusolversp_solver();             // cuda/linear/cusolversp_solver.cu
bool have_cudss();                                                  // cuda/linear/cudss_solver.cu
std::unique_ptr<LinearSolver> make_cudss_solver();  // cuda/linear/cudss_solver.cu (throws without cuDSS)

namespace cuda {
bool device_usable(std::string* reason);            // cuda/exec/device.cu
bool cudss_library_available(std::string* reason);  // cuda/linear/cudss_solver.cu or cudss_library.cu
}  // namespace cuda

}  // namespace softik
