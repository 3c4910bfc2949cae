#include <algorithm>
#include <map>
#include <vector>

#include "softik/error.hpp"
#include "softik/mesh.hpp"

namespace softik {

namespace {
// Local faces, wound outward for a positively oriented cell (VTK ordering).
constexpr int kTetFaces[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
// Tet10: the Tet4 faces with their edges' mid-nodes (0,1)->4, (1,2)->5, (0,2)->6, (0,3)->7,
// (1,3)->8, (2,3)->9, in the Tri6 order (corners, then edges (0,1), (1,2), (2,0) of the face).
constexpr int kTet10Faces[4][6] = {{0, 2, 1, 6, 5, 4}, {0, 1, 3, 4, 8, 7}, {0, 3, 2, 7, 9, 6}, {1, 2, 3, 5, 9, 8}};
constexpr int kHexFaces[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};

template <size_t K>
void collect(const Mesh& mesh, const int (*faces)[K], int num_faces, std::vector<std::array<int, K>>& out) {
  std::map<std::array<int, K>, std::pair<int, std::array<int, K>>> seen;  // sorted key -> (count, wound face)
  for (int c = 0; c < mesh.num_cells(); ++c) {
    const int* nodes = mesh.cell(c);
    for (int f = 0; f < num_faces; ++f) {
      std::array<int, K> face;
      for (size_t k = 0; k < K; ++k) face[k] = nodes[faces[f][k]];
      std::array<int, K> key = face;
      std::sort(key.begin(), key.end());
      auto& entry = seen[key];
      if (entry.first++ == 0) entry.second = face;
    }
  }
  for (const auto& [key, entry] : seen)
    if (entry.first == 1) out.push_back(entry.second);
}
}  // namespace

SurfaceGroup boundary_surface(const Mesh& mesh) {
  SurfaceGroup s;
  switch (mesh.cell_type) {
    case CellType::Tet4:
      collect<3>(mesh, kTetFaces, 4, s.triangles);
      break;
    case CellType::Hex8:
      collect<4>(mesh, kHexFaces, 6, s.quads);
      break;
    case CellType::Tet10:
      collect<6>(mesh, kTet10Faces, 4, s.triangles6);
      break;
    default:
      SOFTIK_CHECK(false,
                   "boundary_surface needs a 3D mesh (Tet4, Hex8 or Tet10), got " << cell_type_name(mesh.cell_type));
  }
  return s;
}

}  // namespace softik
