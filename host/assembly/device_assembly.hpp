// What the core asks of a device backend's assembly (docs/architecture.md, "The CUDA backend"):
// the core never includes a CUDA header; the CUDA backend implements this interface and defines
// make_device_assembly in cuda/assembly/device_assembler.cu. Assembler holds one when
// AssemblyOptions::backend is Backend::Cuda.
#pragma once

#include <memory>
#include <vector>

#include "softik/config.hpp"

namespace softik {

class Assembler;

class DeviceAssembly {
 public:
  virtual ~DeviceAssembly() = default;
  /// Uploads x (num_dofs, checked finite) and runs one pass for the requested outputs;
  /// synchronous; throws as the CPU Assembler does (non-finite position, inverted cell).
  virtual void assemble_from_host(const std::vector<Real>& x, bool energy, bool force, bool stiffness) = 0;
  /// Results of the last pass that requested them.
  virtual Real energy() const = 0;
  virtual void download_force(std::vector<Real>& force) const = 0;        ///< resized to num_dofs
  virtual void download_K_values(std::vector<Real>& K_values) const = 0;  ///< resized to nnz
  virtual const Real* device_K_values() const = 0;  ///< nnz values in device memory
};

#ifdef SOFTIK_HAVE_CUDA
/// The CUDA backend's DeviceAssembly for `host` (cuda/assembly/device_assembler.cu).
std::unique_ptr<DeviceAssembly> make_device_assembly(const Assembler& host);
#endif

}  // namespace softik
