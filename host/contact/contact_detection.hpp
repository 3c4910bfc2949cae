// What can touch in a body and which pairs touch within a time step (docs/method.md 9.1): the
// candidate nodes against the obstacles, and with between_parts the parts (connected components)
// against each other's boundary triangles, one pass per pair of parts. The dynamic solver's
// free-motion contact loop and its control step find their pairs here.
#pragma once

#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "softik/contact.hpp"
#include "softik/mesh.hpp"

namespace softik::contact {

/// The connected component of every node (through shared cells); unused nodes get their own.
std::vector<int> node_parts(const Mesh& mesh);

class ContactDetection {
 public:
  /// Validates and completes `options` for `mesh` (prepare_contact_options), takes the candidate
  /// nodes (those with a free DOF, free_dof_index) and, with between_parts, the parts and their
  /// boundary triangles. Nothing to do without obstacles or between_parts.
  void setup(const Mesh& mesh, const std::vector<int>& free_dof_index, ContactOptions& options, Real size);

  /// Anything can touch (obstacles, or parts).
  bool active(const ContactOptions& options) const { return !options.obstacles.empty() || proximity_ != nullptr; }
  /// The candidate nodes (with a free DOF) against the obstacles.
  const std::vector<int>& nodes() const { return nodes_; }
  /// The nodes tested against the other parts' triangles (between_parts; else empty).
  const std::vector<int>& part_nodes() const { return proximity_nodes_; }

  /// The pairs of `nodes` with the obstacles at time t and of `part_nodes` with the other parts'
  /// triangles (one pass, slave_of) at positions x, within the alarm distance `alarm`.
  std::vector<ContactPoint> pairs(const ContactOptions& options, Real t, const std::vector<Real>& x,
                                  const std::vector<int>& nodes, const std::vector<int>& part_nodes, Real alarm) const;

  /// A pair's free violation (normal, t1, t2) after a step from x at time t of length h to x_free:
  /// its gap at the start carried along its frame by the node's motion relative to what it
  /// touches, delta_free = (gap + n . u_rel, t1 . u_rel, t2 . u_rel).
  static Vec3r free_violation(const ContactOptions& options, const ContactPoint& p, Real t, Real h,
                              const std::vector<Real>& x, const std::vector<Real>& x_free);

  /// The pairs that may touch within the step (detected at the start x, where the surfaces do not
  /// interpenetrate, within the alarm distance plus the largest motion of the step; kept when
  /// their free violation is within the alarm distance) and their free violations.
  std::vector<ContactPoint> near_pairs(const ContactOptions& options, Real t, Real h, const std::vector<Real>& x,
                                       const std::vector<Real>& x_free, std::vector<Vec3r>& free_delta) const;

  /// The candidate nodes that penetrate (gap < -tolerance) at x_new, time t, and have no pair in
  /// `known` ((node, obstacle or -1)): against an obstacle into `nodes`, against another part
  /// into `part_nodes`; each sorted, without repeats.
  void penetrating_nodes(const ContactOptions& options, Real t, const std::vector<Real>& x_new, Real tolerance,
                         const std::set<std::pair<int, int>>& known, std::vector<int>& nodes,
                         std::vector<int>& part_nodes) const;

  /// Every contact that already interpenetrates at x (time t): a warning naming the nodes and the
  /// depth, with `advice`; empty when none does (depth within 1e-9 x size).
  std::string initial_penetration_warning(const ContactOptions& options, Real t, const std::vector<Real>& x, Real size,
                                          const char* advice) const;

 private:
  /// Contact between parts is one pass (two passes give near-equal rows for matching surfaces,
  /// a near-singular W): a node of one part is tested against the triangles of another when its
  /// part is the finer (smaller mean boundary edge), or for equal sizes the later part.
  bool slave_of(int node_part_id, int triangle_part_id) const;

  std::vector<int> nodes_;                       ///< candidate nodes (with a free DOF)
  std::vector<int> node_part_;                   ///< part (connected component) of every mesh node
  std::unique_ptr<SurfaceProximity> proximity_;  ///< between_parts only
  std::vector<int> proximity_nodes_, proximity_node_part_;
  std::vector<Real> part_edge_;  ///< mean boundary edge length per part
};

}  // namespace softik::contact
