#include "host/contact/contact_detection.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>

#include "host/contact/contact_setup.hpp"
#include "host/contact/initial_penetration.hpp"

namespace softik::contact {

std::vector<int> node_parts(const Mesh& mesh) {
  std::vector<int> parent(static_cast<size_t>(mesh.num_nodes()));
  std::iota(parent.begin(), parent.end(), 0);
  auto root = [&](int n) {
    while (parent[static_cast<size_t>(n)] != n)
      n = parent[static_cast<size_t>(n)] = parent[static_cast<size_t>(parent[static_cast<size_t>(n)])];
    return n;
  };
  const int npc = nodes_per_cell(mesh.cell_type);
  for (int c = 0; c < mesh.num_cells(); ++c)
    for (int i = 1; i < npc; ++i) parent[static_cast<size_t>(root(mesh.cell(c)[i]))] = root(mesh.cell(c)[0]);
  std::vector<int> part(parent.size());
  std::map<int, int> id;
  for (int n = 0; n < mesh.num_nodes(); ++n)
    part[static_cast<size_t>(n)] = id.emplace(root(n), static_cast<int>(id.size())).first->second;
  return part;
}

void ContactDetection::setup(const Mesh& mesh, const std::vector<int>& free_dof_index, ContactOptions& c, Real size) {
  if (c.obstacles.empty() && !c.between_parts) return;
  prepare_contact_options(mesh, c, size);
  nodes_ = contact_candidate_nodes(mesh, free_dof_index, c.nodes);
  if (!c.between_parts) return;
  node_part_ = node_parts(mesh);
  const SurfaceGroup boundary = boundary_surface(mesh);
  std::vector<std::array<int, 3>> triangles = boundary.triangles;
  for (const auto& q : boundary.quads) {
    triangles.push_back({q[0], q[1], q[2]});
    triangles.push_back({q[0], q[2], q[3]});
  }
  // A Tet10 face as its four flat sub-triangles between corners and mid-nodes (the facets the
  // other part's nodes are kept out of).
  for (const auto& t : boundary.triangles6) {
    triangles.push_back({t[0], t[3], t[5]});
    triangles.push_back({t[3], t[1], t[4]});
    triangles.push_back({t[5], t[4], t[2]});
    triangles.push_back({t[3], t[4], t[5]});
  }
  std::vector<int> triangle_part;
  for (const auto& t : triangles) triangle_part.push_back(node_part_[static_cast<size_t>(t[0])]);
  // Mean boundary edge length per part: the finer part's nodes are tested against the coarser
  // part's triangles (one pass; see slave_of).
  const int parts = 1 + *std::max_element(node_part_.begin(), node_part_.end());
  std::vector<Real> edge_sum(static_cast<size_t>(parts), 0.0), edge_count(static_cast<size_t>(parts), 0.0);
  for (const auto& t : triangles)
    for (int j = 0; j < 3; ++j) {
      const size_t a = static_cast<size_t>(t[static_cast<size_t>(j)]),
                   b = static_cast<size_t>(t[static_cast<size_t>((j + 1) % 3)]);
      Real d2 = 0;
      for (int k = 0; k < 3; ++k)
        d2 += (mesh.X[3 * a + k] - mesh.X[3 * b + k]) * (mesh.X[3 * a + k] - mesh.X[3 * b + k]);
      edge_sum[static_cast<size_t>(node_part_[a])] += std::sqrt(d2);
      edge_count[static_cast<size_t>(node_part_[a])] += 1;
    }
  part_edge_.resize(static_cast<size_t>(parts));
  for (size_t k = 0; k < part_edge_.size(); ++k) part_edge_[k] = edge_count[k] > 0 ? edge_sum[k] / edge_count[k] : 0;
  proximity_ = std::make_unique<SurfaceProximity>(std::move(triangles), std::move(triangle_part));
  proximity_nodes_ = c.nodes.empty() ? nodes_ : contact_candidate_nodes(mesh, free_dof_index, {});
  for (int n : proximity_nodes_) proximity_node_part_.push_back(node_part_[static_cast<size_t>(n)]);
}

bool ContactDetection::slave_of(int node_part_id, int triangle_part_id) const {
  const Real a = part_edge_[static_cast<size_t>(node_part_id)], b = part_edge_[static_cast<size_t>(triangle_part_id)];
  if (std::abs(a - b) > 1e-6 * std::max(a, b)) return a < b;
  return node_part_id > triangle_part_id;
}

std::vector<ContactPoint> ContactDetection::pairs(const ContactOptions& c, Real t, const std::vector<Real>& x,
                                                  const std::vector<int>& nodes, const std::vector<int>& part_nodes,
                                                  Real alarm) const {
  std::vector<ContactPoint> found = detect_obstacle_contacts(c.obstacles, t, nodes, x, c.contact_distance, alarm);
  if (proximity_ && !part_nodes.empty()) {
    std::vector<int> parts;
    for (int n : part_nodes) parts.push_back(node_part_[static_cast<size_t>(n)]);
    const std::vector<ContactPoint> body =
        proximity_->detect(part_nodes, parts, x, c.contact_distance, alarm, c.body_friction);
    for (const ContactPoint& p : body)
      if (slave_of(node_part_[static_cast<size_t>(p.node)], node_part_[static_cast<size_t>(p.triangle[0])]))
        found.push_back(p);
  }
  return found;
}

Vec3r ContactDetection::free_violation(const ContactOptions& c, const ContactPoint& p, Real t, Real h,
                                       const std::vector<Real>& x, const std::vector<Real>& x_free) {
  Vec3r u;
  for (int i = 0; i < 3; ++i)
    u[i] = x_free[3 * static_cast<size_t>(p.node) + i] - x[3 * static_cast<size_t>(p.node) + i];
  if (p.obstacle >= 0) {
    const Obstacle& o = c.obstacles[static_cast<size_t>(p.obstacle)];
    u -= o.offset(t + h) - o.offset(t);
  } else {
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 3; ++i) {
        const size_t v = static_cast<size_t>(p.triangle[static_cast<size_t>(j)]);
        u[i] -= p.barycentric[static_cast<size_t>(j)] * (x_free[3 * v + i] - x[3 * v + i]);
      }
  }
  return Vec3r(p.gap + p.normal.dot(u), p.t1.dot(u), p.t2.dot(u));
}

std::vector<ContactPoint> ContactDetection::near_pairs(const ContactOptions& c, Real t, Real h,
                                                       const std::vector<Real>& x, const std::vector<Real>& x_free,
                                                       std::vector<Vec3r>& free_delta) const {
  // At the free positions a node may have passed through a thin part, and its closest face would
  // be the wrong one: pairs are found at the start of the step, their gaps carried to x_free.
  Real motion = 0;
  for (size_t k = 0; k < x.size(); ++k) motion = std::max(motion, std::abs(x_free[k] - x[k]));
  for (const Obstacle& o : c.obstacles) motion += (o.offset(t + h) - o.offset(t)).norm();
  const std::vector<ContactPoint> found =
      pairs(c, t, x, nodes_, proximity_nodes_, c.alarm_distance + 2 * std::sqrt(3.0) * motion);
  // Pairs still farther apart than the alarm distance after the free motion cannot touch within
  // the step and are dropped.
  std::vector<ContactPoint> near;
  free_delta.clear();
  for (const ContactPoint& p : found) {
    const Vec3r d = free_violation(c, p, t, h, x, x_free);
    if (d[0] > c.alarm_distance) continue;
    near.push_back(p);
    free_delta.push_back(d);
  }
  return near;
}

void ContactDetection::penetrating_nodes(const ContactOptions& c, Real t, const std::vector<Real>& x_new,
                                         Real tolerance, const std::set<std::pair<int, int>>& known,
                                         std::vector<int>& nodes, std::vector<int>& part_nodes) const {
  nodes.clear();
  part_nodes.clear();
  for (const ContactPoint& p : detect_obstacle_contacts(c.obstacles, t, nodes_, x_new, c.contact_distance, 0))
    if (p.gap < -tolerance && !known.count({p.node, p.obstacle})) nodes.push_back(p.node);
  if (proximity_)
    for (const ContactPoint& p :
         proximity_->detect(proximity_nodes_, proximity_node_part_, x_new, c.contact_distance, 0, c.body_friction))
      if (p.gap < -tolerance && !known.count({p.node, -1}) &&
          slave_of(node_part_[static_cast<size_t>(p.node)], node_part_[static_cast<size_t>(p.triangle[0])]))
        part_nodes.push_back(p.node);
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  std::sort(part_nodes.begin(), part_nodes.end());
  part_nodes.erase(std::unique(part_nodes.begin(), part_nodes.end()), part_nodes.end());
}

std::string ContactDetection::initial_penetration_warning(const ContactOptions& c, Real t, const std::vector<Real>& x,
                                                          Real size, const char* advice) const {
  std::vector<ContactPoint> found = detect_obstacle_contacts(c.obstacles, t, nodes_, x, c.contact_distance, 0.0);
  if (proximity_) {
    const std::vector<ContactPoint> body =
        proximity_->detect(proximity_nodes_, proximity_node_part_, x, c.contact_distance, 0.0, c.body_friction);
    found.insert(found.end(), body.begin(), body.end());
  }
  return contact::initial_penetration_warning(found, c.obstacles, 1e-9 * size, advice);
}

}  // namespace softik::contact
