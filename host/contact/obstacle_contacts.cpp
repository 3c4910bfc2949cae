// detect_obstacle_contacts() (contact.hpp): node-obstacle proximity.
#include <cmath>
#include <memory>
#include <vector>

#include "host/contact/mesh_obstacle.hpp"
#include "softik/contact.hpp"
#include "softik/error.hpp"

namespace softik {

namespace {

void check_distances(Real contact_distance, Real alarm_distance) {
  SOFTIK_CHECK(std::isfinite(contact_distance) && contact_distance >= 0,
               "contact detection: the contact distance is " << contact_distance << "; give a finite value >= 0");
  SOFTIK_CHECK(std::isfinite(alarm_distance) && alarm_distance >= 0,
               "contact detection: the alarm distance is " << alarm_distance << "; give a finite value >= 0");
}

Vec3r node_point(const std::vector<Real>& x, int node) {
  SOFTIK_CHECK(node >= 0 && 3 * size_t(node) + 2 < x.size(),
               "contact detection: node " << node << " is outside the " << x.size() / 3
                                          << " nodes of the positions; give node indices of the mesh");
  const Vec3r p(x[3 * size_t(node)], x[3 * size_t(node) + 1], x[3 * size_t(node) + 2]);
  SOFTIK_CHECK(p.allFinite(), "contact detection: node " << node << " has a non-finite position; the motion diverged");
  return p;
}

}  // namespace

// A node gives a contact when d < contact_distance + alarm_distance, with gap = d - contact_distance.
// Mesh obstacles get their BVH once per call; a node outside the mesh's box grown by the
// threshold cannot be that close and is skipped without a query.
std::vector<ContactPoint> detect_obstacle_contacts(const std::vector<Obstacle>& obstacles, Real t,
                                                   const std::vector<int>& nodes, const std::vector<Real>& x,
                                                   Real contact_distance, Real alarm_distance) {
  check_distances(contact_distance, alarm_distance);
  const Real threshold = contact_distance + alarm_distance;
  std::vector<std::unique_ptr<contact::MeshDistance>> meshes(obstacles.size());
  std::vector<Vec3r> offsets(obstacles.size());
  for (size_t k = 0; k < obstacles.size(); ++k) {
    offsets[k] = obstacles[k].offset(t);
    if (obstacles[k].shape == ObstacleShape::TriangleMesh) {
      SOFTIK_CHECK(!obstacles[k].triangles.empty(),
                   "obstacle '" << obstacles[k].name << "' (mesh): no triangles; give a closed surface");
      meshes[k] = std::make_unique<contact::MeshDistance>(obstacles[k]);
    }
  }
  std::vector<ContactPoint> contacts;
  for (int node : nodes) {
    const Vec3r p = node_point(x, node);
    for (size_t k = 0; k < obstacles.size(); ++k) {
      ObstacleDistance d;
      if (meshes[k]) {
        const Vec3r q = p - offsets[k];
        if (meshes[k]->bounds().dist2(q) >= threshold * threshold) continue;
        d = meshes[k]->distance(q);
      } else {
        d = distance_to_obstacle(obstacles[k], t, p);
      }
      if (!(d.distance < threshold)) continue;
      ContactPoint c;
      c.node = node;
      c.obstacle = int(k);
      c.normal = d.normal;
      tangent_frame(c.normal, c.t1, c.t2);
      c.gap = d.distance - contact_distance;
      c.friction = obstacles[k].friction;
      contacts.push_back(c);
    }
  }
  return contacts;
}

}  // namespace softik
