// What the core asks of a device backend's assembly (docs/architecture.md, "The CUDA backend"):
// the core never includes a CUDA header; the CUDA backend implements this interface and registers
// its factories in the device backend's table (host/exec/device_backend.hpp). Assembler holds one when
// AssemblyOptions::backend is Backend::Cuda, or when it was made with a DeviceAssemblyFactory
// (AssemblerWithDevice: a batch's designs assembled together, host/batch/design_batch.hpp).
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <vector>

#include "softik/assembly.hpp"
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
  virtual const Real* device_K_values() const = 0;                        ///< nnz values in device memory
  /// False when the passes run on the host (a batch's CPU twin): device_K_values() is then null
  /// and K always goes to the solver from the host.
  virtual bool on_device() const { return true; }
};

/// Makes the DeviceAssembly of an Assembler being constructed (its mesh, pattern, slots and
/// materials are set; the DeviceAssembly must not call back into it beyond those accessors).
using DeviceAssemblyFactory = std::function<std::unique_ptr<DeviceAssembly>(const Assembler&)>;

namespace assembly {
/// An Assembler whose DeviceAssembly comes from `device` (whatever its backend) instead of the
/// backend's own: the batch runner lets the designs of one mesh share one assembly launch this
/// way (build_scene_with_device, host/scene/build/scene_build.hpp).
struct AssemblerWithDevice {
  static std::unique_ptr<Assembler> make(const Mesh& mesh, std::vector<Material> materials,
                                         std::vector<char> fixed_dofs, AssemblyOptions options,
                                         const DeviceAssemblyFactory& device);
};
}  // namespace assembly

/// Assembles D designs of one mesh topology (the same cells, free DOFs, formulation and law; their
/// own rest positions and materials) together: the CUDA backend in one launch over designs x cells
/// (cuda/assembly/design_engine.cu), the CPU twin one design after another with each design's
/// own host Assembler (host/batch/design_batch.cpp). Called by one thread at a time.
class DesignAssemblyEngine {
 public:
  virtual ~DesignAssemblyEngine() = default;
  virtual int num_designs() const = 0;
  /// One pass over every design at once; x[d] is design d's positions (num_dofs), or null for a
  /// design that is not assembled now (it keeps its last positions). failures[d] (resized to D)
  /// receives a posted design's error (inverted cell, non-finite position); the others are
  /// null. Throws only for a failure of the whole pass (the device).
  virtual void assemble(const std::vector<const std::vector<Real>*>& x, bool energy, bool force, bool stiffness,
                        std::vector<std::exception_ptr>& failures) = 0;
  /// Design d's results of the last pass that requested them.
  virtual Real energy(int d) const = 0;
  virtual void download_force(int d, std::vector<Real>& force) const = 0;
  virtual void download_K_values(int d, std::vector<Real>& K_values) const = 0;
  virtual const Real* device_K_values(int d) const = 0;  ///< null on the host
  virtual bool on_device() const = 0;
};

}  // namespace softik
