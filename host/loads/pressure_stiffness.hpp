// add_pressure_stiffness (loads.hpp) with the CSR slot of every face entry looked up once: a
// Newton solve adds the load stiffness of the same surface to the same pattern at every
// iteration, and the binary search of each entry's slot (81 per triangle) cost as much as the
// face matrices themselves (bench/RESULTS.md, "The stiffness from S and CC").
#pragma once

#include <vector>

#include "host/loads/pressure_kernel.hpp"
#include "softik/loads.hpp"

namespace softik::detail {

class PressureStiffness {
 public:
  /// The load's faces and, per entry, its slot in `pattern` (free_dof_index as in
  /// add_pressure_stiffness). The load, mesh and free_dof_index must outlive this object.
  PressureStiffness(const PressureLoad& load, const Mesh& mesh, const CsrPattern& pattern,
                    const std::vector<int>& free_dof_index);

  /// add_pressure_stiffness(load, P, mesh, pattern, free_dof_index, x, scale, K_values).
  long add(Real P, const std::vector<Real>& x, Real scale, std::vector<Real>& K_values) const;

 private:
  /// Calls fn(r, c, w, row, col) for every entry of face t's matrix that reaches a free row and
  /// column: local row r and column c of the face matrix, w the vertex map's weight product.
  template <class Fn>
  void for_each_entry(const int* v, int nv, Fn&& fn) const;

  const PressureLoad& load_;
  const Mesh& mesh_;
  const std::vector<int>& free_;
  int nnz_ = 0;
  assembly::TriangleList list_;
  std::vector<int> slots_;  ///< per entry in for_each_entry's order over the faces; -1: not in the pattern
};

}  // namespace softik::detail
