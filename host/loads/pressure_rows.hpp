// A pressure surface's volume and sparse Jacobian dV/dx on the host, for the constraint rows of
// the inverse step (a pressure actuator, a volume effector): the DOFs the surface reaches are
// collected once, so a call costs O(faces), not O(num_dofs). The values are those of
// surface_volume and pressure_jacobian (loads.hpp) bit for bit: the same per-triangle bodies
// (pressure_kernel.hpp), in the same order, into the same zeroed DOF slots.
// The rows are evaluated here whatever the Assembler's backend: the positions x of the inverse
// step are host data, and on the GPU the two copies of all DOFs that a device evaluation needs
// cost more than the faces (the cavity actuator's rows at 100.6k tets on an H200's host: 0.60 ms
// per step on the device, 0.27 ms here; bench/RESULTS.md, "GPU on an H200: the inverse step's host work").
#pragma once

#include <utility>
#include <vector>

#include "host/loads/pressure_kernel.hpp"
#include "softik/loads.hpp"

namespace softik::detail {

class PressureRows {
 public:
  /// Checks the load against the mesh once (as surface_volume does, with its messages); keeps
  /// copies of the load and, for a dead load, of the rest positions (no reference to the mesh).
  PressureRows(const PressureLoad& load, const Mesh& mesh);

  /// surface_volume(load, mesh, x).
  Real volume(const std::vector<Real>& x) const;
  /// The entries of pressure_jacobian(load, mesh, x) that are not exactly zero, by ascending DOF
  /// (into J, replaced), and returns volume(x).
  Real volume_and_jacobian(const std::vector<Real>& x, std::vector<std::pair<int, Real>>& J) const;

 private:
  void check_size(const std::vector<Real>& x) const;

  PressureLoad load_;
  int num_dofs_ = 0;
  std::vector<Real> X_;  ///< the rest positions of a dead load (its Jacobian is taken there)
  assembly::TriangleList list_;
  std::vector<int> dofs_;            ///< the DOFs the faces reach, ascending
  mutable std::vector<Real> dense_;  ///< num_dofs zeros between calls (only dofs_ are written)
  mutable std::vector<Real> face_volume_;
};

}  // namespace softik::detail
