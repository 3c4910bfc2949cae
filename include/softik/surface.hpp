// Checking a cavity / pressure surface before it is loaded (pressure_load.hpp conventions).
#pragma once

#include <string>

#include "softik/mesh.hpp"

namespace softik {

/// What check_surface() found.
struct SurfaceReport {
  bool closed = false;     ///< no boundary edges (every edge shared by exactly two faces)
  int num_triangles = 0;   ///< triangles after splitting quads (a,b,c),(a,c,d)
  int boundary_edges = 0;  ///< edges used by exactly one face
  int flipped = 0;         ///< faces reversed to make the surface wind out of the cavity
  double volume = 0;       ///< enclosed (signed) volume of the returned surface
};

/// Checks a cavity/pressure surface of `mesh` (coordinates mesh.X, 3 per node) and returns it
/// wound by the convention of pressure_load.hpp: winding normals point OUT of the cavity,
/// so the signed volume sum p1.(p2 x p3)/6 is positive. Throws softik::Error naming the
/// surface `name`, the offending face or edge and the fix on: an empty surface, out-of-range
/// node indices, degenerate faces (repeated node, zero area), inconsistent winding (an edge
/// used twice in the same direction), non-manifold edges (shared by more than two faces),
/// boundary edges when `require_closed`, and (closed surfaces only) a volume of ~0 or a
/// negative volume when !allow_flip. With allow_flip a negative surface is returned with
/// every face reversed and report->flipped set (the caller should warn).
/// Faces are numbered triangles first (0..T-1), then quads (T..T+Q-1).
SurfaceGroup check_surface(const Mesh& mesh, const SurfaceGroup& surface, const std::string& name, bool require_closed,
                           bool allow_flip, SurfaceReport* report = nullptr);

}  // namespace softik
