// Structured meshes of thick-walled cylinders and spheres, for verification against Lame's
// analytic solutions (tests/loads/test_lame.cpp) and as user-facing benchmark geometries.
//
// Both are symmetry sectors: a quarter of a cylinder (0 <= theta <= pi/2) and an octant of a
// spherical shell (x, y, z >= 0), so that symmetry boundary conditions on the cut planes
// (u_x = 0 on "x0", u_y = 0 on "y0", u_z = 0 on "z0") reproduce the full body.
//
// Every node lies exactly on its analytic surface (inner radius a, outer radius b, the symmetry
// planes); faces between nodes are straight (Hex8: bilinear, Tet4: flat), so the meshed domain
// is the polyhedral interpolant of the curved one. Cells are positively oriented (validate()
// passes). Tet4 meshes split each hex into six tets around its main diagonal (Kuhn subdivision,
// as make_box) on grids whose logical axes increase in the same physical direction across every
// shared face, so the tet meshes are conforming (no hanging faces), seams of the sphere included.
//
// Surface group "inner" is the inner wall, wound in the pressure_load.hpp convention: the
// winding normal points from the fluid into the material, i.e. AWAY from the axis (cylinder)
// or the centre (sphere). A positive pressure on it inflates the shell. Hex8 meshes give quads,
// Tet4 meshes triangles (the quads split along the same diagonal as the cells). Tet10 meshes are
// the Tet4 mesh made quadratic (to_tet10) with each mid-node at the middle of its edge in
// cylindrical/spherical coordinates, so the curved walls' mid-nodes lie on them: the quadratic
// faces follow the walls to second order, and the inner surface is quadratic triangles.
// Lengths are in the user's unit (metres recommended).
#pragma once

#include "softik/mesh.hpp"

namespace softik {

/// A quarter of a thick-walled cylinder about the z axis: a <= r <= b, 0 <= theta <= pi/2,
/// 0 <= z <= t, mapped from a structured (r, theta, z) grid with nr x nt x nz cells.
/// Radial cell sizes grow geometrically from the inner to the outer wall with
/// (outermost / innermost) = radial_grading (1: uniform).
/// Node groups: "inner" (r = a), "outer" (r = b), "x0" (theta = pi/2, the plane x = 0),
/// "y0" (theta = 0, the plane y = 0), "zmin" (z = 0), "zmax" (z = t).
/// Surface group: "inner" (see the file comment). Cell type Hex8, Tet4 or Tet10.
Mesh make_thick_cylinder_quarter(Real a, Real b, Real t, int nr, int nt, int nz, CellType type,
                                 Real radial_grading = 1);

/// An octant of a thick spherical shell a <= |X| <= b, x, y, z >= 0, without degenerate cells at
/// the poles: the octant of the unit cube's surface {max(x, y, z) = 1} is split into its three
/// square faces x = 1, y = 1, z = 1, each gridded with n x n cells (equiangular: the grid lines
/// are equally spaced in angle, X = tan(pi/4 s)), projected radially onto the sphere, and
/// extruded from r = a to r = b in nr layers (graded as the cylinder). Nodes on the patch seams
/// are shared. 3 n^2 nr cells (Hex8; six times as many Tet4).
/// Node groups: "inner", "outer", "x0", "y0", "z0" (the nodes on the planes x = 0, y = 0, z = 0).
/// Surface group: "inner" (see the file comment).
Mesh make_thick_sphere_octant(Real a, Real b, int nr, int n, CellType type, Real radial_grading = 1);

}  // namespace softik
