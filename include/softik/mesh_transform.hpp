// Placing a body in the scene, and several bodies in one mesh.
//
// A transform maps a point p of the body's own frame to the scene's frame:
//   x = t + R (s p)
// with a rotation R (proper: R^T R = I, det R = +1), a uniform scale s > 0 and a translation t.
// A proper rotation and a positive scale keep every cell's orientation (det J > 0 stays > 0)
// and every surface's winding, so a valid mesh stays valid.
//
// Rotations are given as
//   - an axis and an angle (degrees), Rodrigues' formula:
//       R = I + sin(a) [k]x + (1 - cos(a)) [k]x^2,   k = axis / |axis|;
//   - Euler angles [a_x, a_y, a_z] (degrees) about the fixed x, then y, then z axes:
//       R = R_z(a_z) R_y(a_y) R_x(a_x).
// Source: Murray, Li & Sastry, "A Mathematical Introduction to Robotic Manipulation" (1994),
// section 2.2 (exponential coordinates; fixed-angle parameterisation).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "softik/mesh.hpp"

namespace softik {

struct Transform {
  std::array<std::array<Real, 3>, 3> rotation{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};  ///< R, row-major
  std::array<Real, 3> translation{0, 0, 0};                                        ///< t
  Real scale = 1;                                                                  ///< s > 0

  bool is_identity() const;
  /// x = t + R (s p).
  std::array<Real, 3> apply(const std::array<Real, 3>& p) const;
  /// R v: a direction (unit vectors stay unit).
  std::array<Real, 3> rotate(const std::array<Real, 3>& v) const;
};

/// R from an axis (any non-zero length) and an angle in degrees; throws softik::Error naming
/// `what` for a zero or non-finite axis or a non-finite angle.
std::array<std::array<Real, 3>, 3> rotation_axis_angle(const std::array<Real, 3>& axis, Real degrees,
                                                       const std::string& what = "rotation");
/// R = R_z(a_z) R_y(a_y) R_x(a_x) from angles in degrees; throws for a non-finite angle.
std::array<std::array<Real, 3>, 3> rotation_euler_xyz(const std::array<Real, 3>& degrees,
                                                      const std::string& what = "rotation");

/// Throws softik::Error naming `what` unless the transform is finite, its scale > 0 and its
/// rotation proper (orthonormal to 1e-9, determinant +1).
void check_transform(const Transform& transform, const std::string& what);

/// Applies x = t + R (s p) to every point of a coordinate array (3 per point).
void transform_points(const Transform& transform, std::vector<Real>& X);
/// ... to the mesh's rest coordinates (its cells, groups and orientation are unchanged).
void transform_mesh(const Transform& transform, Mesh& mesh);

/// One body of a merged mesh: its mesh (already placed) and its name.
struct NamedMesh {
  std::string name;
  Mesh mesh;
};
/// Where each body's nodes and cells start in a merged mesh (offsets, and the ends as the last
/// entry: body b owns nodes [node_begin[b], node_begin[b + 1])).
struct MeshParts {
  std::vector<int> node_begin, cell_begin;
  int body_of_node(int node) const;
};
/// The bodies as one mesh: nodes and cells appended in order, node indices shifted, every
/// group renamed "<body>/<group>", and a cell group and a node group "<body>" holding all of
/// the body's cells and nodes. The bodies must share the dimension and the cell type (a mesh
/// holds one cell type); names must be unique and non-empty. Throws softik::Error otherwise.
Mesh merge_meshes(const std::vector<NamedMesh>& bodies, MeshParts* parts = nullptr);

}  // namespace softik
