// Parametric meshes of soft pneumatic actuators, for examples, tests, benchmarks and
// design sweeps. Each is a structured grid of Hex8 cells (or each hex split into six Tet4 as in
// make_box, conforming) on the bounding box, from which the cells inside the cavities are removed.
// Every generated mesh has:
//   - node groups "xmin" .. "zmax" (nodes on the outer bounding-box faces, as make_box) and
//     surface groups of the same names (the outer faces, normals out of the body),
//   - surface group(s) "cavity" (or "cavity0", "cavity1", ... for several), the internal faces
//     bounding the cavity, wound so that normals point OUT of the cavity into the material
//     (pressure_load.hpp convention: closed, consistent, positive enclosed volume),
//   - node group(s) of the same names holding the cavity wall nodes (sorted, none on the outer
//     faces),
//   - cell group "body" (all cells).
// Lengths in the user's unit (metres recommended).
// Grid: along each axis the grid planes include 0, the body size and every cavity wall; each
// interval between these is split into ceil(interval / cell_size) equal cells. Cavity walls are
// therefore exactly where the parameters put them (the enclosed volumes are the analytic box
// volumes) and no cell edge exceeds cell_size; cells are graded where intervals are not
// multiples of cell_size. Every wall (cavity to outside, cavity to cavity) must be at least
// cell_size thick, else softik::Error names the parameter; so do non-positive or non-finite
// sizes, cavities outside the body and overlapping or touching cavities.
#pragma once

#include <array>
#include <vector>

#include "softik/mesh.hpp"

namespace softik {

/// A pneumatic finger: a beam [0, length] x [0, width] x [0, height] (base at x = 0) with one
/// internal box cavity running along x from `base_wall` to length - `tip_wall`, offset toward
/// the z = 0 face: the wall below it is `bottom_wall` thick, above it `top_wall` (top_wall >
/// bottom_wall makes the thin bottom side stretch more: the finger bends toward +z when inflated).
/// Side walls (y) are `side_wall` thick.
struct FingerSpec {
  Real length = 0.10, width = 0.02, height = 0.02;
  Real base_wall = 0.01, tip_wall = 0.01, side_wall = 0.004, bottom_wall = 0.004, top_wall = 0.008;
  Real cell_size = 0.002;  ///< target edge length of the grid
  CellType cell_type = CellType::Tet4;
};
Mesh make_finger(const FingerSpec& spec);

/// A bellows / accordion: `chambers` hollow box chambers stacked along x, joined by a central
/// channel into ONE cavity, separated by walls `wall` thick; outer cross-section width x height,
/// each chamber `chamber_length` long with a (width - 2 side_wall) x (height - 2 side_wall)
/// hollow; channel cross-section `channel` x `channel`, centred in y and z, through each
/// separating wall. Along x: end_wall, chamber, wall, chamber, ..., chamber, end_wall, so the
/// length is 2 end_wall + chambers chamber_length + (chambers - 1) wall and the cavity volume
/// chambers chamber_length (width - 2 side_wall)(height - 2 side_wall) + (chambers - 1) wall
/// channel^2. The rim of the separating walls around the channel, (min(width, height) -
/// 2 side_wall - channel) / 2, must be at least one cell. Base at x = 0 (fix "xmin"); inflation
/// elongates it along +x.
struct BellowsSpec {
  int chambers = 4;
  Real width = 0.03, height = 0.03, chamber_length = 0.012, wall = 0.004, side_wall = 0.004;
  Real end_wall = 0.004, channel = 0.008;
  Real cell_size = 0.002;
  CellType cell_type = CellType::Tet4;
};
Mesh make_bellows(const BellowsSpec& spec);

/// A block with several independent box cavities: box [0,size] with cavities given by their
/// min corner and extent; surface/node groups "cavity0", "cavity1", ... in that order (none: a
/// plain block). Cavities must lie inside the body and be at least one cell apart (Chebyshev
/// distance: the largest gap along one axis).
struct MultiCavitySpec {
  std::array<Real, 3> size{0.06, 0.03, 0.03};
  std::vector<std::array<Real, 6>> cavities;  ///< {x0, y0, z0, dx, dy, dz} each
  Real cell_size = 0.002;
  CellType cell_type = CellType::Tet4;
};
Mesh make_multi_cavity_block(const MultiCavitySpec& spec);

/// A ball of `radius` about `center`: a cube grid of cells^3 Hex8 (or six Tet4 each) mapped
/// onto the ball by the spherified-cube map p = r (x sqrt(1 - y^2/2 - z^2/2 + y^2 z^2/3), ...)
/// of [-1, 1]^3 (its boundary lands exactly on the sphere). Cell group "ball", node group "ball".
struct BallSpec {
  std::array<Real, 3> center{0, 0, 0};
  Real radius = 0.02;
  int cells = 6;  ///< along each axis of the cube (>= 2)
  CellType cell_type = CellType::Hex8;
};
Mesh make_ball(const BallSpec& spec);

/// A pneumatic gripper over a ball, for grasping scenes: `fingers` copies of make_finger(finger)
/// hanging down around the vertical axis (the finger's x runs down -z from its base at
/// z = tip_height + finger.length; its bending side, +z of the finger, faces the axis, at
/// `radius` from it), spread evenly starting at angle 0 (+x), and a ball (make_ball) resting on
/// z = 0 on the axis. One mesh, separate parts: cell groups "finger0", "finger1", ... and "ball";
/// node groups "base" (every finger's clamped face), "ball"; surface and node groups
/// "cavity0", "cavity1", ... (each finger's cavity, wound to inflate); "body" = all cells.
/// Fingers that would overlap each other or the ball are refused with the parameter to change.
struct GripperSpec {
  int fingers = 3;
  FingerSpec finger;        ///< cell_type and cell_size apply to the ball's cells too (size only roughly)
  Real radius = 0.025;      ///< from the vertical axis to each finger's inner (bending) face
  Real tip_height = 0.004;  ///< of the fingertips above z = 0
  Real ball_radius = 0.02;
  int ball_cells = 6;
};
Mesh make_gripper(const GripperSpec& spec);

}  // namespace softik
