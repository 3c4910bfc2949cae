// Warnings of build_scene (scene_build.cpp) about what a scene asks for but probably does not
// mean; each is pushed to BuiltScene::warnings, located in the scene file.
#pragma once

#include <string>

#include "softik/loads.hpp"
#include "softik/mesh.hpp"
#include "softik/scene.hpp"

namespace softik::scene_detail {

/// The CSV table grows by one row per step (frame, path point, inverse step): a warning before the
/// run when it would pass this size.
constexpr double kCsvWarnBytes = 1e9;

/// An obstacle whose surface lies inside the body's cells (at the start and at every row of its
/// path) is never touched: contact keeps the body's boundary nodes (or contact.nodes) out of
/// obstacles, and none can reach it. Needs out.mesh, out.obstacles and out.contact_nodes built;
/// `diagonal`: the mesh's bounding-box diagonal.
void warn_obstacles_inside(const Scene& scene, BuiltScene& out, Real diagonal);

/// An embedded cavity (`load`, from the file of `p`, whose own vertices are `cavity`) whose vertices
/// lie outside the mesh within `embed_tolerance` moves them with the nearest point of their cell:
/// warns with the vertices moved, the largest move and the change of the rest volume.
void warn_projected_vertices(const PressureLoad& load, const ScenePressure& p, const std::string& what,
                             const Mesh& cavity, Real embed_tolerance, Real diagonal, BuiltScene& out);

/// Bodies (bodies:) that overlap at t = 0: a node of one inside a cell of another, deeper than
/// 1e-9 x `diagonal` below its boundary; one warning per pair, naming both bodies, the number of
/// such nodes and the deepest (scene_body_overlap.cpp). Needs out.mesh and out.parts.
void warn_overlapping_bodies(const Scene& scene, BuiltScene& out, Real diagonal);

/// Warns when the run's CSV table would exceed kCsvWarnBytes: its rows (the steps the scene asks
/// for, and the rest state) x its columns x ~16 bytes a value (digits, sign, exponent, comma).
void warn_csv_size(const Scene& scene, BuiltScene& out);

}  // namespace softik::scene_detail
