// The device backend's implementations of the core's interfaces, in one table: the core asks
// device_backend() and never tests SOFTIK_HAVE_CUDA. With the CUDA backend the table is
// cuda/device_backend.cu's; without it, host/exec/no_device_backend.cpp's device_backend()
// returns null (CMake compiles one of the two). Each factory's interface is declared where the
// core uses it: DeviceAssembly and DesignAssemblyEngine in host/assembly/device_assembly.hpp,
// PressureEvaluator in host/loads/pressure_evaluator.hpp, DeviceNetworkForces in
// host/network/device_network.hpp, LinearSolver in include/softik/linear_solver.hpp.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "softik/config.hpp"

namespace softik {

class Assembler;
class DeviceAssembly;
class DesignAssemblyEngine;
class PressureEvaluator;
struct PressureLoad;
struct Mesh;
class DeviceNetworkForces;
struct VolumeCellTable;
class LinearSolver;
enum class LinearSolverKind;

struct DeviceBackend {
  const char* name;  ///< "cuda"
  /// True when a device can be used; otherwise false and, if given, `reason` says why. Never throws.
  bool (*device_available)(std::string* reason);
  /// The DeviceAssembly of an Assembler being constructed (its mesh, pattern, slots and materials set).
  std::unique_ptr<DeviceAssembly> (*make_assembly)(const Assembler& host);
  /// One engine for designs of one topology (the caller checked it).
  std::unique_ptr<DesignAssemblyEngine> (*make_design_engine)(const std::vector<const Assembler*>& designs);
  std::unique_ptr<PressureEvaluator> (*make_pressure_evaluator)(const PressureLoad& load, const Mesh& mesh);
  /// NetworkForces' node -> incidence tables copied to the device (extra empty: springs only).
  std::unique_ptr<DeviceNetworkForces> (*make_network_forces)(const std::vector<int>& first,
                                                              const std::vector<int>& other,
                                                              const std::vector<Real>& spring,
                                                              const std::vector<Real>& extra,
                                                              const VolumeCellTable& cells);
  /// The GPU linear solver of `kind` (is_gpu_solver(kind)); each throws from analyze() when no
  /// device is usable, and the cuDSS one at once when the build has no cuDSS.
  std::unique_ptr<LinearSolver> (*make_linear_solver)(LinearSolverKind kind);
  bool cudss_built;  ///< the build found cuDSS's header (SOFTIK_WITH_CUDSS)
  /// Whether libcudss.so.1 loads and has a compatible version (loaded on the first call). Never throws.
  bool (*cudss_library_available)(std::string* reason);
};

/// The device backend of this build, or null when softik was built without one.
const DeviceBackend* device_backend();

}  // namespace softik
