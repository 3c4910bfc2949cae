// Point location in a volume (or 2D) mesh: the cell that contains a point and the point's
// shape-function weights in it, for embedding a separately drawn surface (SurfaceEmbedding,
// below: a pressure load's surface, loads.hpp), markers and effectors.
//
// Conventions
//   - A point p lies in cell c when its reference coordinates xi (x(xi) = sum_a N_a(xi) X_a = p)
//     lie in the reference cell: barycentric coordinates >= 0 for Tri3/Tet4 (the map is affine,
//     solved exactly), xi in [-1, 1]^dim for Quad4/Hex8 (the bilinear/trilinear map is inverted by
//     Newton's method from the centre), both up to 1e-12 in reference units. A Tet10 is located
//     through its corners (exact when its edges are straight; on a curved cell xi is that of
//     the straight cell with the same corners).
//   - The weights are w_a = N_a(xi) (fem/element_traits.hpp): sum_a w_a = 1 and
//     sum_a w_a X_{nodes[a]} = p, so a field u is interpolated as u(p) = sum_a w_a u_{nodes[a]}.
//   - A point outside every cell is clamped to the nearest cell when its distance to that cell
//     is at most `tolerance` (plus 1e-12 of the mesh's bounding-box diagonal, for round-off):
//     the weights are then those of the nearest point of the cell (all >= 0 for linear cells)
//     and `distance` says
//     how far p is from it. Farther away, softik::Error names the point and the distance.
//   - 2D meshes (Tri3/Quad4) use (x, y) only; p[2] is ignored. Edge2 meshes are not supported.
// Search: a uniform grid of buckets over the mesh's bounding box (about one cell per bucket);
// each bucket lists the cells whose bounding boxes overlap it. A query tests the cells of the
// point's bucket, and only when none contains the point searches outward ring by ring for the
// nearest cell, so a query costs O(1) cells on well-shaped meshes.
#pragma once

#include <array>
#include <vector>

#include "softik/mesh.hpp"

namespace softik {

/// Where the vertices of a surface (a PressureLoad's, loads.hpp) sit in the volume mesh. Empty
/// (the default): the surface's indices ARE mesh nodes. Otherwise vertex v of the surface is the point
/// x_v = sum_k weights[v*npv + k] * x[nodes[v*npv + k]] (barycentric/trilinear weights in the
/// cell that contains it, npv = nodes_per_vertex), and its forces are spread back with the same
/// weights (a separately drawn cavity mapped into the volume, as in the example of [7], docs/method.md).
struct SurfaceEmbedding {
  int nodes_per_vertex = 0;
  std::vector<int> nodes;
  std::vector<Real> weights;
  std::vector<Real> vertex_X;  ///< rest positions of the vertices (3 per vertex), for reports
  bool empty() const { return nodes_per_vertex == 0; }
  int num_vertices() const { return nodes_per_vertex ? static_cast<int>(nodes.size()) / nodes_per_vertex : 0; }
};

struct PointLocation {
  int cell = -1;                          ///< the containing (or, clamped, the nearest) cell
  static constexpr int kMaxNodes = 10;    ///< nodes of the largest cell (Tet10)
  std::array<Real, kMaxNodes> weights{};  ///< w_a = N_a(xi), a < num_weights
  int num_weights = 0;                    ///< nodes per cell
  std::array<int, kMaxNodes> nodes{};     ///< the cell's nodes, in its local order (weights[a] belongs to nodes[a])
  Real distance = 0;                      ///< 0 inside the cell; else the distance from p to the cell
};

/// The bucket grid of a mesh, built once (O(cells)) and queried many times. The mesh (valid:
/// see validate()) must outlive the locator and stay unchanged. Queries are const and
/// thread-safe.
class PointLocator {
 public:
  explicit PointLocator(const Mesh& mesh);

  /// The cell containing p (distance 0), or the nearest cell with the weights of p's nearest
  /// point in it (distance > 0, weights >= 0 for linear cells). Never throws.
  PointLocation nearest(const std::array<Real, 3>& p) const;

  /// nearest(p), throwing softik::Error (naming p, the nearest cell and the distance) when the
  /// distance exceeds `tolerance` (+ 1e-12 of the bounding-box diagonal).
  PointLocation locate(const std::array<Real, 3>& p, Real tolerance) const;

 private:
  const Mesh* mesh_;
  int dim_;
  std::array<Real, 3> lo_{}, h_{};  ///< grid origin and bucket size per axis
  std::array<int, 3> n_{};          ///< buckets per axis (1 on unused axes)
  Real slack_ = 0;                  ///< 1e-12 of the bounding-box diagonal
  std::vector<int> bucket_start_;   ///< CSR: cells of bucket b are bucket_cells_[start[b] .. start[b+1])
  std::vector<int> bucket_cells_;
  std::vector<Real> cell_box_;  ///< per cell: min xyz, max xyz (padded by slack_)

  int bucket_index(int axis, Real v) const;
  template <class E>
  PointLocation nearest_impl(const std::array<Real, 3>& p) const;
  Real box_distance(int cell, const std::array<Real, 3>& p) const;
};

/// One-off location (builds a PointLocator; for many points build one and call locate()).
PointLocation locate_point(const Mesh& mesh, const std::array<Real, 3>& p, Real tolerance);

/// Embeds the vertices of a surface (vertex_X: rest positions, 3 per vertex) in the mesh, one
/// locate() per vertex: nodes_per_vertex = nodes per cell (4 for Tet4, 8 for Hex8), nodes and
/// weights of each vertex's cell, vertex_X copied. Throws softik::Error naming the vertex when
/// one lies farther than `tolerance` from the mesh.
SurfaceEmbedding embed_surface(const Mesh& mesh, const std::vector<Real>& vertex_X, Real tolerance);

}  // namespace softik
