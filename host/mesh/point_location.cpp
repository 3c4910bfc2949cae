// Point location (point_location.hpp): a bucket grid of cell bounding boxes, the inverse of the
// element map per candidate cell, and the nearest point of a cell for points outside the mesh.
#include "softik/point_location.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "host/mesh/element_dispatch.hpp"
#include "softik/error.hpp"

namespace softik {

namespace {

using fem::Vec3;

constexpr Real kRefTol = 1e-12;  // containment tolerance in reference coordinates
constexpr Real kInf = std::numeric_limits<Real>::infinity();

// Triangles and tetrahedra, linear or quadratic: located through the affine map of their
// corners (nodes 0..dim), exact for a straight-sided Tet10 (mid-nodes at the edge midpoints);
// on a curved Tet10 the reference coordinates are those of the straight cell with its corners.
template <class E>
constexpr bool is_simplex = E::num_nodes == E::dim + 1 || std::is_same<E, fem::Tet10>::value;

template <int d>
using VecD = fem::VecD<d>;

// Closest point to p on the segment [a, b].
template <int d>
VecD<d> closest_on_segment(const VecD<d>& p, const VecD<d>& a, const VecD<d>& b) {
  const VecD<d> ab = b - a;
  const Real t = std::clamp((p - a).dot(ab) / ab.squaredNorm(), Real(0), Real(1));
  return a + t * ab;
}

// Closest point to p on the triangle (a, b, c): the Voronoi regions of its vertices, edges and
// interior in turn (Ericson, Real-Time Collision Detection, 2005, section 5.1.5).
Vec3 closest_on_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 ab = b - a, ac = c - a;
  const Real d1 = ab.dot(p - a), d2 = ac.dot(p - a);
  if (d1 <= 0 && d2 <= 0) return a;
  const Real d3 = ab.dot(p - b), d4 = ac.dot(p - b);
  if (d3 >= 0 && d4 <= d3) return b;
  const Real vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return a + (d1 / (d1 - d3)) * ab;
  const Real d5 = ab.dot(p - c), d6 = ac.dot(p - c);
  if (d6 >= 0 && d5 <= d6) return c;
  const Real vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return a + (d2 / (d2 - d6)) * ac;
  const Real va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) return b + ((d4 - d3) / ((d4 - d3) + (d5 - d6))) * (c - b);
  return a + ab * (vb / (va + vb + vc)) + ac * (vc / (va + vb + vc));
}

// x(xi) - p = sum_a N_a(xi) X_a - p.
template <class E>
VecD<E::dim> residual(const fem::NodeMatrix<E>& X, const typename E::Xi& xi, const VecD<E::dim>& p) {
  return X.transpose() * E::N(xi) - p;
}

// Simplex: xi = J^-1 (p - X_0) with J = [X_1 - X_0, ..., X_d - X_0] (the map is affine).
template <class E>
fem::MatD<E::dim> simplex_jacobian(const fem::NodeMatrix<E>& X) {
  fem::MatD<E::dim> J;
  for (int k = 0; k < E::dim; ++k) J.col(k) = (X.row(k + 1) - X.row(0)).transpose();
  return J;
}

// Reference coordinates xi of p in the cell and the margin by which p is inside it: the
// smallest barycentric coordinate (simplex) or 1 - max|xi_i| (cube); -inf when Newton fails.
template <class E>
Real inverse_map(const fem::NodeMatrix<E>& X, const VecD<E::dim>& p, typename E::Xi& xi) {
  if constexpr (is_simplex<E>) {
    xi = simplex_jacobian<E>(X).inverse() * (p - X.row(0).transpose());
    return std::min(Real(1) - xi.sum(), xi.minCoeff());
  } else {
    // Newton on x(xi) = p from the centre: J dxi = -(x(xi) - p), J = sum_a X_a dN_a/dxi.
    const Real scale = (X.colwise().maxCoeff() - X.colwise().minCoeff()).norm();
    xi.setZero();
    for (int it = 0; it < 40; ++it) {
      const VecD<E::dim> r = residual<E>(X, xi, p);
      if (r.norm() <= 1e-14 * scale) break;
      const fem::MatD<E::dim> J = X.transpose() * E::dN(xi);
      xi -= J.partialPivLu().solve(r);
      if (!xi.allFinite() || xi.cwiseAbs().maxCoeff() > 4) return -kInf;  // far outside or diverging
    }
    if (residual<E>(X, xi, p).norm() > 1e-12 * scale) return -kInf;
    return Real(1) - xi.cwiseAbs().maxCoeff();
  }
}

// Nearest point of the cell to p (p outside): its reference coordinates xi and the distance.
// Simplex: exact, the closest point over the faces (Tet4) or edges (Tri3). Cube: minimise
// f(xi) = |x(xi) - p|^2 / 2 over [-1, 1]^dim by projected Gauss-Newton (variables held at a
// bound by the gradient g = J^T r are fixed, step (J^T J)^-1 g on the others, clamped, halved
// until f decreases); xi holds the start on entry.
template <class E>
Real nearest_in_cell(const fem::NodeMatrix<E>& X, const VecD<E::dim>& p, typename E::Xi& xi) {
  constexpr int d = E::dim;
  if constexpr (is_simplex<E>) {
    VecD<d> best_q = X.row(0).transpose();
    Real best = kInf;
    for (int skip = 0; skip <= d; ++skip) {  // the face (edge) opposite node `skip`
      VecD<d> v[d];
      for (int a = 0, k = 0; a <= d; ++a)
        if (a != skip) v[k++] = X.row(a).transpose();
      VecD<d> q;
      if constexpr (d == 3) {
        q = closest_on_triangle(p, v[0], v[1], v[2]);
      } else {
        q = closest_on_segment<d>(p, v[0], v[1]);
      }
      if ((q - p).norm() < best) {
        best = (q - p).norm();
        best_q = q;
      }
    }
    xi = simplex_jacobian<E>(X).inverse() * (best_q - X.row(0).transpose());
    return best;
  } else {
    const auto clamp = [](const typename E::Xi& s) { return typename E::Xi(s.cwiseMax(-1.0).cwiseMin(1.0)); };
    xi = xi.allFinite() ? clamp(xi) : typename E::Xi(E::Xi::Zero());
    VecD<d> r = residual<E>(X, xi, p);
    Real f = r.squaredNorm();
    for (int it = 0; it < 100; ++it) {
      const fem::MatD<d> J = X.transpose() * E::dN(xi);
      VecD<d> g = J.transpose() * r;
      fem::MatD<d> H = J.transpose() * J;
      bool any_free = false;
      for (int i = 0; i < d; ++i) {
        if ((xi[i] <= -1 && g[i] > 0) || (xi[i] >= 1 && g[i] < 0)) {
          H.row(i).setZero();
          H.col(i).setZero();
          H(i, i) = 1;
          g[i] = 0;
        } else {
          any_free = true;
        }
      }
      if (!any_free) break;
      const typename E::Xi step = -H.partialPivLu().solve(g);
      Real t = 1, moved = 0;
      for (int halving = 0; halving < 40; ++halving, t /= 2) {
        const typename E::Xi trial = clamp(xi + t * step);
        const VecD<d> rt = residual<E>(X, trial, p);
        if (rt.squaredNorm() < f) {
          moved = (trial - xi).norm();
          xi = trial;
          r = rt;
          f = rt.squaredNorm();
          break;
        }
      }
      if (moved < 1e-15) break;
    }
    return std::sqrt(f);
  }
}

// PointLocator::nearest_impl's phases. The locator's members are private: nearest_impl passes
// them in as a BucketGrid, and its box_distance as a callable.

/// A PointLocator's bucket grid, as nearest_impl's phases read it.
struct BucketGrid {
  const Mesh& mesh;
  const std::array<Real, 3>& lo;  ///< grid origin per axis
  const std::array<Real, 3>& h;   ///< bucket size per axis
  const std::array<int, 3>& n;    ///< buckets per axis
  const std::vector<int>& bucket_start;
  const std::vector<int>& bucket_cells;
  size_t bucket_of(int i, int j, int k) const {
    return static_cast<size_t>(i) + n[0] * (j + static_cast<size_t>(n[1]) * k);
  }
};

/// The PointLocation of reference coordinates xi in `cell`, at `distance` from the point.
template <class E>
PointLocation make_location(const Mesh& mesh, int cell, const typename E::Xi& xi, Real distance) {
  PointLocation loc;
  loc.cell = cell;
  loc.num_weights = E::num_nodes;
  loc.distance = distance;
  static_assert(E::num_nodes <= PointLocation::kMaxNodes, "PointLocation holds too few nodes");
  Eigen::Matrix<Real, E::num_nodes, 1> w = E::N(xi);
  // The nearest point of a linear cell: weights >= 0 up to round-off; make them exactly so. (A
  // quadratic cell's weights are negative at its corners' neighbourhoods inside the cell too.)
  if (E::order == 1 && distance > 0) {
    w = w.cwiseMax(0.0);
    w /= w.sum();
  }
  for (int a = 0; a < E::num_nodes; ++a) {
    loc.weights[static_cast<size_t>(a)] = w[a];
    loc.nodes[static_cast<size_t>(a)] = mesh.cell(cell)[a];
  }
  return loc;
}

/// 1. The cells of p's bucket (b) that contain p; the one containing it with the largest margin
/// goes into best_cell, best_xi. Returns that margin (-inf: none tried).
template <class E, class BoxDistance>
Real containing_cell(const BucketGrid& grid, const BoxDistance& box_distance, size_t b, const std::array<Real, 3>& p,
                     const VecD<E::dim>& P, int& best_cell, typename E::Xi& best_xi) {
  Real best_margin = -kInf;
  typename E::Xi xi;
  for (int k = grid.bucket_start[b]; k < grid.bucket_start[b + 1] && best_margin < 0; ++k) {
    const int c = grid.bucket_cells[static_cast<size_t>(k)];
    if (box_distance(c, p) > 0) continue;
    const Real margin = inverse_map<E>(detail::cell_coordinates<E>(grid.mesh, grid.mesh.X.data(), 3, c), P, xi);
    if (margin > best_margin) {
      best_margin = margin;
      best_cell = c;
      best_xi = xi;
    }
  }
  return best_margin;
}

/// Any cell not seen yet lies beyond a face of the visited block [lo, hi] of buckets: the
/// distance from p to the nearest such face (inf: the block is the whole grid).
template <int d>
Real unvisited_bound(const BucketGrid& grid, const int lo[3], const int hi[3], const std::array<Real, 3>& p) {
  Real bound = kInf;
  for (int a = 0; a < d; ++a) {
    if (lo[a] > 0)
      bound = std::min(bound, std::max(Real(0), p[static_cast<size_t>(a)] - (grid.lo[a] + lo[a] * grid.h[a])));
    if (hi[a] < grid.n[a] - 1)
      bound = std::min(bound, std::max(Real(0), grid.lo[a] + (hi[a] + 1) * grid.h[a] - p[static_cast<size_t>(a)]));
  }
  return bound;
}

/// 2. Outside every cell: rings of buckets at Chebyshev index distance R = 0, 1, ... around
/// p's bucket (centre) until no unvisited bucket can hold a cell nearer than the best so far.
/// The nearest cell goes into best_cell, best_xi (kept when none is nearer than inf); returns its
/// distance.
template <class E, class BoxDistance>
Real nearest_outside(const BucketGrid& grid, const BoxDistance& box_distance, const int centre[3],
                     const std::array<Real, 3>& p, const VecD<E::dim>& P, int& best_cell, typename E::Xi& best_xi) {
  Real best_distance = kInf;
  typename E::Xi xi;
  for (int R = 0;; ++R) {
    int lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
      lo[a] = std::max(0, centre[a] - R);
      hi[a] = std::min(grid.n[a] - 1, centre[a] + R);
    }
    const auto visit = [&](int i, int j, int k) {
      const size_t bb = grid.bucket_of(i, j, k);
      for (int m = grid.bucket_start[bb]; m < grid.bucket_start[bb + 1]; ++m) {
        const int c = grid.bucket_cells[static_cast<size_t>(m)];
        if (box_distance(c, p) >= best_distance) continue;
        const fem::NodeMatrix<E> X = detail::cell_coordinates<E>(grid.mesh, grid.mesh.X.data(), 3, c);
        const Real dist = inverse_map<E>(X, P, xi) >= -kRefTol ? Real(0) : nearest_in_cell<E>(X, P, xi);
        if (dist < best_distance) {
          best_distance = dist;
          best_cell = c;
          best_xi = xi;
        }
      }
    };
    for (int k = lo[2]; k <= hi[2]; ++k)
      for (int j = lo[1]; j <= hi[1]; ++j) {
        if (std::abs(k - centre[2]) == R || std::abs(j - centre[1]) == R) {  // a whole row of the shell
          for (int i = lo[0]; i <= hi[0]; ++i) visit(i, j, k);
        } else {  // the row crosses the block: its two ends
          if (centre[0] - R >= 0) visit(centre[0] - R, j, k);
          if (centre[0] + R < grid.n[0]) visit(centre[0] + R, j, k);
        }
      }
    const Real bound = unvisited_bound<E::dim>(grid, lo, hi, p);
    if (best_distance <= bound || bound == kInf) break;
  }
  return best_distance;
}

}  // namespace

PointLocator::PointLocator(const Mesh& mesh) : mesh_(&mesh), dim_(mesh.dim) {
  SOFTIK_CHECK(mesh.cell_type != CellType::Edge2,
               "PointLocator: Edge2 (1D) meshes are not supported; locate points in Tri3/Quad4/Tet4/Hex8/Tet10 meshes");
  SOFTIK_CHECK(mesh.dim == cell_dimension(mesh.cell_type), "PointLocator: mesh dimension "
                                                               << mesh.dim << " does not match its "
                                                               << cell_type_name(mesh.cell_type) << " cells");
  const int num_cells = mesh.num_cells(), npc = nodes_per_cell(mesh.cell_type);
  SOFTIK_CHECK(num_cells > 0, "PointLocator: the mesh has no cells");

  // Cell bounding boxes and the mesh's bounding box.
  cell_box_.assign(6 * static_cast<size_t>(num_cells), 0);
  std::array<Real, 3> lo{kInf, kInf, kInf}, hi{-kInf, -kInf, -kInf};
  for (int c = 0; c < num_cells; ++c) {
    Real* box = &cell_box_[6 * static_cast<size_t>(c)];
    for (int a = 0; a < 3; ++a) {
      box[a] = kInf;
      box[3 + a] = -kInf;
    }
    for (int k = 0; k < npc; ++k)
      for (int a = 0; a < dim_; ++a) {
        const Real v = mesh.X[3 * static_cast<size_t>(mesh.cell(c)[k]) + a];
        SOFTIK_CHECK(std::isfinite(v), "PointLocator: node " << mesh.cell(c)[k] << " has a non-finite coordinate " << a
                                                             << "; validate() the mesh first");
        box[a] = std::min(box[a], v);
        box[3 + a] = std::max(box[3 + a], v);
      }
    for (int a = 0; a < dim_; ++a) {
      lo[a] = std::min(lo[a], box[a]);
      hi[a] = std::max(hi[a], box[3 + a]);
    }
  }
  Real diag2 = 0, volume = 1;
  for (int a = 0; a < dim_; ++a) {
    diag2 += (hi[a] - lo[a]) * (hi[a] - lo[a]);
    volume *= hi[a] - lo[a];
  }
  slack_ = 1e-12 * std::sqrt(diag2);
  for (int c = 0; c < num_cells; ++c)
    for (int a = 0; a < dim_; ++a) {
      cell_box_[6 * static_cast<size_t>(c) + a] -= slack_;
      cell_box_[6 * static_cast<size_t>(c) + 3 + a] += slack_;
    }

  // Buckets of edge s with (volume / s^dim) ~ num_cells, at most 1000 per axis.
  const Real s = volume > 0 ? std::pow(volume / num_cells, Real(1) / dim_) : std::sqrt(diag2) + 1;
  for (int a = 0; a < 3; ++a) {
    lo_[a] = a < dim_ ? lo[a] - slack_ : 0;
    const Real extent = a < dim_ ? hi[a] - lo[a] + 2 * slack_ : 0;
    n_[a] = a < dim_ ? static_cast<int>(std::clamp(std::ceil(extent / s), Real(1), Real(1000))) : 1;
    h_[a] = extent > 0 ? extent / n_[a] : 1;
  }
  const size_t num_buckets = static_cast<size_t>(n_[0]) * n_[1] * n_[2];
  const auto for_each_bucket = [&](int c, auto&& f) {
    const Real* box = &cell_box_[6 * static_cast<size_t>(c)];
    int b0[3], b1[3];
    for (int a = 0; a < 3; ++a) {
      b0[a] = a < dim_ ? bucket_index(a, box[a]) : 0;
      b1[a] = a < dim_ ? bucket_index(a, box[3 + a]) : 0;
    }
    for (int k = b0[2]; k <= b1[2]; ++k)
      for (int j = b0[1]; j <= b1[1]; ++j)
        for (int i = b0[0]; i <= b1[0]; ++i) f(static_cast<size_t>(i) + n_[0] * (j + static_cast<size_t>(n_[1]) * k));
  };
  bucket_start_.assign(num_buckets + 1, 0);
  for (int c = 0; c < num_cells; ++c) for_each_bucket(c, [&](size_t b) { ++bucket_start_[b + 1]; });
  for (size_t b = 0; b < num_buckets; ++b) bucket_start_[b + 1] += bucket_start_[b];
  bucket_cells_.resize(static_cast<size_t>(bucket_start_[num_buckets]));
  std::vector<int> fill(bucket_start_.begin(), bucket_start_.end() - 1);
  for (int c = 0; c < num_cells; ++c)
    for_each_bucket(c, [&](size_t b) { bucket_cells_[static_cast<size_t>(fill[b]++)] = c; });
}

int PointLocator::bucket_index(int axis, Real v) const {
  const Real t = std::floor((v - lo_[axis]) / h_[axis]);
  return t <= 0 ? 0 : (t >= n_[axis] - 1 ? n_[axis] - 1 : static_cast<int>(t));
}

Real PointLocator::box_distance(int cell, const std::array<Real, 3>& p) const {
  const Real* box = &cell_box_[6 * static_cast<size_t>(cell)];
  Real d2 = 0;
  for (int a = 0; a < dim_; ++a) {
    const Real out = std::max({Real(0), box[a] - p[a], p[a] - box[3 + a]});
    d2 += out * out;
  }
  return std::sqrt(d2);
}

template <class E>
PointLocation PointLocator::nearest_impl(const std::array<Real, 3>& p) const {
  constexpr int d = E::dim;
  VecD<d> P;
  for (int a = 0; a < d; ++a) P[a] = p[static_cast<size_t>(a)];
  const BucketGrid grid{*mesh_, lo_, h_, n_, bucket_start_, bucket_cells_};
  const auto box = [this](int cell, const std::array<Real, 3>& q) { return box_distance(cell, q); };
  int centre[3] = {0, 0, 0};
  for (int a = 0; a < d; ++a) centre[a] = bucket_index(a, p[static_cast<size_t>(a)]);
  int best_cell = -1;
  typename E::Xi best_xi = E::center();
  const size_t b = grid.bucket_of(centre[0], centre[1], centre[2]);
  if (containing_cell<E>(grid, box, b, p, P, best_cell, best_xi) >= -kRefTol)
    return make_location<E>(*mesh_, best_cell, best_xi, 0);
  const Real best_distance = nearest_outside<E>(grid, box, centre, p, P, best_cell, best_xi);
  return make_location<E>(*mesh_, best_cell, best_xi, best_distance);
}

PointLocation PointLocator::nearest(const std::array<Real, 3>& p) const {
  return detail::dispatch_element(mesh_->cell_type, [&](auto tag) -> PointLocation {
    using E = typename decltype(tag)::type;
    if constexpr (E::dim == 1) {
      detail::throw_error(ErrorKind::Unsupported, __FILE__, __LINE__, "PointLocator: Edge2 meshes are not supported");
    } else {
      return nearest_impl<E>(p);
    }
  });
}

PointLocation PointLocator::locate(const std::array<Real, 3>& p, Real tolerance) const {
  SOFTIK_CHECK(std::isfinite(tolerance) && tolerance >= 0,
               "locate_point: tolerance = " << tolerance << " must be a finite length >= 0");
  for (int a = 0; a < dim_; ++a)
    SOFTIK_CHECK(std::isfinite(p[static_cast<size_t>(a)]),
                 "locate_point: point (" << p[0] << ", " << p[1] << ", " << p[2] << ") has a non-finite coordinate");
  const PointLocation loc = nearest(p);
  SOFTIK_CHECK(loc.distance <= tolerance + slack_,
               "locate_point: point (" << p[0] << ", " << p[1] << ", " << p[2] << ") lies outside the mesh at distance "
                                       << loc.distance << " from the nearest cell (" << loc.cell
                                       << "), more than the tolerance " << tolerance
                                       << ": move the point into the body or raise the tolerance");
  return loc;
}

PointLocation locate_point(const Mesh& mesh, const std::array<Real, 3>& p, Real tolerance) {
  return PointLocator(mesh).locate(p, tolerance);
}

SurfaceEmbedding embed_surface(const Mesh& mesh, const std::vector<Real>& vertex_X, Real tolerance) {
  SOFTIK_CHECK(!vertex_X.empty() && vertex_X.size() % 3 == 0,
               "embed_surface: vertex_X has " << vertex_X.size()
                                              << " entries; need 3 per vertex (x, y, z), at least one vertex");
  const PointLocator locator(mesh);
  SurfaceEmbedding e;
  e.nodes_per_vertex = nodes_per_cell(mesh.cell_type);
  e.vertex_X = vertex_X;
  const size_t num_vertices = vertex_X.size() / 3;
  e.nodes.reserve(num_vertices * static_cast<size_t>(e.nodes_per_vertex));
  e.weights.reserve(num_vertices * static_cast<size_t>(e.nodes_per_vertex));
  for (size_t v = 0; v < num_vertices; ++v) {
    PointLocation loc;
    try {
      loc = locator.locate({vertex_X[3 * v], vertex_X[3 * v + 1], vertex_X[3 * v + 2]}, tolerance);
    } catch (const Error& err) {
      SOFTIK_CHECK(false, "embed_surface: vertex " << v << ": " << err.what());
    }
    for (int a = 0; a < e.nodes_per_vertex; ++a) {
      e.nodes.push_back(loc.nodes[static_cast<size_t>(a)]);
      e.weights.push_back(loc.weights[static_cast<size_t>(a)]);
    }
  }
  return e;
}

}  // namespace softik
