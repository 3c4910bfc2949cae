// Host-side table from the runtime CellType to the compile-time element trait
// (docs/architecture.md, "One kernel body for every backend"): the one place that lists the
// element traits; every backend reaches its per-element code through it.
#pragma once

#include "softik/error.hpp"
#include "softik/fem/kinematics.hpp"
#include "softik/mesh.hpp"

namespace softik::detail {

template <class E>
struct ElementTag {
  using type = E;
};

/// Calls f(ElementTag<E>{}) for the trait E matching `type`.
template <class Fn>
decltype(auto) dispatch_element(CellType type, Fn&& f) {
  switch (type) {
    case CellType::Edge2:
      return f(ElementTag<fem::Edge2>{});
    case CellType::Tri3:
      return f(ElementTag<fem::Tri3>{});
    case CellType::Quad4:
      return f(ElementTag<fem::Quad4>{});
    case CellType::Tet4:
      return f(ElementTag<fem::Tet4>{});
    case CellType::Hex8:
      return f(ElementTag<fem::Hex8>{});
    case CellType::Tet10:
      return f(ElementTag<fem::Tet10>{});
  }
  SOFTIK_CHECK(false, "unknown cell type " << static_cast<int>(type));
}

/// Rest coordinates of cell c as the trait's node matrix.
template <class E>
fem::NodeMatrix<E> cell_coordinates(const Mesh& mesh, const Real* x, int stride, int c) {
  fem::NodeMatrix<E> X;
  const int* nodes = mesh.cell(c);
  for (int a = 0; a < E::num_nodes; ++a)
    for (int i = 0; i < E::dim; ++i) X(a, i) = x[static_cast<size_t>(nodes[a]) * stride + i];
  return X;
}

}  // namespace softik::detail
