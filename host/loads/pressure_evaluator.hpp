// A pressure load evaluated on a backend (per-triangle pressure on the
// GPU with the CUDA backend). The CPU evaluator calls loads.hpp's functions; the CUDA backend's
// (cuda/loads/device_pressure.cu) runs the same per-triangle bodies (pressure_kernel.hpp)
// with the exec::Cuda policy. The static solver, the inverse solver's external loads and the
// pressure actuators and volume effectors evaluate their surfaces through one of these, chosen
// by the Assembler's backend (docs/architecture.md, "One kernel body for every backend").
#pragma once

#include <memory>
#include <vector>

#include "softik/backend.hpp"
#include "softik/loads.hpp"

namespace softik {

class PressureEvaluator {
 public:
  virtual ~PressureEvaluator() = default;
  /// surface_volume at x.
  virtual Real volume(const std::vector<Real>& x) = 0;
  /// add_pressure_forces: f += P J at x (at the rest positions for a dead load).
  virtual void add_forces(Real P, const std::vector<Real>& x, std::vector<Real>& f) = 0;
  /// pressure_jacobian at x.
  virtual std::vector<Real> jacobian(const std::vector<Real>& x) = 0;
};

/// The evaluator of `load` on `backend` (the load and mesh are copied where needed; the CUDA one
/// needs a device and throws otherwise, as the Assembler does).
std::unique_ptr<PressureEvaluator> make_pressure_evaluator(const PressureLoad& load, const Mesh& mesh, Backend backend);

}  // namespace softik
