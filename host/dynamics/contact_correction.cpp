// DynamicSolver, the constraint half of a step (docs/method.md 9.1, [17]): detection, the violation
// at the free positions, the compliance W = H A^-1 H^T with the tangent A of the free motion, the
// frictional contact solve and the correction x = x_free + A^-1 H^T lambda (dynamics.hpp, contact.hpp).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>
#include <sstream>
#include <tuple>

#include "host/contact/contact_setup.hpp"
#include "host/contact/contact_solvers.hpp"
#include "host/contact/initial_penetration.hpp"
#include "host/dynamics/dynamic_solver_impl.hpp"
#include "softik/error.hpp"
#include "softik/mesh.hpp"

namespace softik {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

/// The connected component of every node (through shared cells); unused nodes get their own.
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

}  // namespace

void DynamicSolver::Impl::setup_contact() {
  ContactOptions& c = options.contact;
  if (c.obstacles.empty() && !c.between_parts) return;
  const Mesh& mesh = assembler.mesh();
  contact::prepare_contact_options(mesh, c, size);
  contact_nodes = contact::contact_candidate_nodes(mesh, assembler.free_dof_index(), c.nodes);
  if (!c.between_parts) return;
  node_part = node_parts(mesh);
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
  for (const auto& t : triangles) triangle_part.push_back(node_part[static_cast<size_t>(t[0])]);
  // Mean boundary edge length per part: the finer part's nodes are tested against the coarser
  // part's triangles (one pass; see slave_of).
  const int parts = 1 + *std::max_element(node_part.begin(), node_part.end());
  std::vector<Real> edge_sum(static_cast<size_t>(parts), 0.0), edge_count(static_cast<size_t>(parts), 0.0);
  for (const auto& t : triangles)
    for (int j = 0; j < 3; ++j) {
      const size_t a = static_cast<size_t>(t[static_cast<size_t>(j)]),
                   b = static_cast<size_t>(t[static_cast<size_t>((j + 1) % 3)]);
      Real d2 = 0;
      for (int k = 0; k < 3; ++k)
        d2 += (mesh.X[3 * a + k] - mesh.X[3 * b + k]) * (mesh.X[3 * a + k] - mesh.X[3 * b + k]);
      edge_sum[static_cast<size_t>(node_part[a])] += std::sqrt(d2);
      edge_count[static_cast<size_t>(node_part[a])] += 1;
    }
  part_edge.resize(static_cast<size_t>(parts));
  for (size_t k = 0; k < part_edge.size(); ++k) part_edge[k] = edge_count[k] > 0 ? edge_sum[k] / edge_count[k] : 0;
  proximity = std::make_unique<SurfaceProximity>(std::move(triangles), std::move(triangle_part));
  proximity_nodes =
      c.nodes.empty() ? contact_nodes : contact::contact_candidate_nodes(mesh, assembler.free_dof_index(), {});
  for (int n : proximity_nodes) proximity_node_part.push_back(node_part[static_cast<size_t>(n)]);
}

bool DynamicSolver::Impl::slave_of(int node_part_id, int triangle_part_id) const {
  const Real a = part_edge[static_cast<size_t>(node_part_id)], b = part_edge[static_cast<size_t>(triangle_part_id)];
  if (std::abs(a - b) > 1e-6 * std::max(a, b)) return a < b;
  return node_part_id > triangle_part_id;
}

bool DynamicSolver::Impl::has_contact() const { return !options.contact.obstacles.empty() || proximity != nullptr; }

void DynamicSolver::Impl::warn_initial_penetration() {
  if (!has_contact()) return;
  const ContactOptions& c = options.contact;
  std::vector<ContactPoint> found = detect_obstacle_contacts(c.obstacles, t, contact_nodes, x, c.contact_distance, 0.0);
  if (proximity) {
    const std::vector<ContactPoint> body =
        proximity->detect(proximity_nodes, proximity_node_part, x, c.contact_distance, 0.0, c.body_friction);
    found.insert(found.end(), body.begin(), body.end());
  }
  const std::string w =
      contact::initial_penetration_warning(found, c.obstacles, 1e-9 * size, "the first steps push them out");
  if (!w.empty()) warnings.push_back(w);
}

std::vector<ContactPoint> DynamicSolver::Impl::pairs_at_start(const std::vector<int>& nodes,
                                                              const std::vector<int>& part_nodes, Real alarm) const {
  const ContactOptions& c = options.contact;
  std::vector<ContactPoint> found = detect_obstacle_contacts(c.obstacles, t, nodes, x, c.contact_distance, alarm);
  if (proximity && !part_nodes.empty()) {
    std::vector<int> parts;
    for (int n : part_nodes) parts.push_back(node_part[static_cast<size_t>(n)]);
    const std::vector<ContactPoint> body =
        proximity->detect(part_nodes, parts, x, c.contact_distance, alarm, c.body_friction);
    for (const ContactPoint& p : body)
      if (slave_of(node_part[static_cast<size_t>(p.node)], node_part[static_cast<size_t>(p.triangle[0])]))
        found.push_back(p);
  }
  return found;
}

Vec3r DynamicSolver::Impl::free_violation(const ContactPoint& p, Real h, const std::vector<Real>& x_free) const {
  // The node's motion over the step relative to what it touches, and the pair's free violation:
  // delta_free = (gap + n . u_rel, t1 . u_rel, t2 . u_rel).
  Vec3r u;
  for (int i = 0; i < 3; ++i)
    u[i] = x_free[3 * static_cast<size_t>(p.node) + i] - x[3 * static_cast<size_t>(p.node) + i];
  if (p.obstacle >= 0) {
    const Obstacle& o = options.contact.obstacles[static_cast<size_t>(p.obstacle)];
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

std::vector<ContactPoint> DynamicSolver::Impl::near_pairs(Real h, const std::vector<Real>& x_free,
                                                          std::vector<Vec3r>& free_delta) const {
  const ContactOptions& c = options.contact;
  // Pairs are found at the start of the step, where the surfaces do not interpenetrate (at the
  // free positions a node may have passed through a thin part, and its closest face would be
  // the wrong one), within the alarm distance plus the largest motion of the step; their gaps
  // are then carried to the free positions along the pair's normal.
  Real motion = 0;
  for (size_t k = 0; k < x.size(); ++k) motion = std::max(motion, std::abs(x_free[k] - x[k]));
  for (const Obstacle& o : c.obstacles) motion += (o.offset(t + h) - o.offset(t)).norm();
  const std::vector<ContactPoint> found = pairs_at_start(
      contact_nodes, proximity ? proximity_nodes : std::vector<int>{}, c.alarm_distance + 2 * std::sqrt(3.0) * motion);
  // Pairs still farther apart than the alarm distance after the free motion cannot touch within
  // the step and are dropped.
  std::vector<ContactPoint> near;
  free_delta.clear();
  for (const ContactPoint& p : found) {
    const Vec3r d = free_violation(p, h, x_free);
    if (d[0] > c.alarm_distance) continue;
    near.push_back(p);
    free_delta.push_back(d);
  }
  return near;
}

std::vector<int> DynamicSolver::Impl::match_previous(const std::vector<ContactPoint>& near) const {
  auto key = [](const ContactPoint& p) {
    return std::make_tuple(p.node, p.obstacle, p.triangle[0], p.triangle[1], p.triangle[2]);
  };
  std::map<std::tuple<int, int, int, int, int>, int> previous;
  for (size_t k = 0; k < contacts.size() && 3 * k + 3 <= lambda.size(); ++k)
    previous[key(contacts[k])] = static_cast<int>(k);
  std::vector<int> out;
  for (const ContactPoint& p : near) {
    const auto it = previous.find(key(p));
    out.push_back(it == previous.end() ? -1 : it->second);
  }
  return out;
}

DynamicSolver::Impl::Compliance DynamicSolver::Impl::compliance(const Matrix& B) const {
  Compliance c;
  const Eigen::Index nfree = B.rows(), nb = B.cols();
  c.W.resize(nb, nb);
  // Forward solves only with a Cholesky factor: W = Z^T Z, Z = L^-1 P H^T.
  c.half = solver.has_cholesky_factor();
  if (c.half && nb > 0) {
    solver.forward_gram(B.data(), static_cast<int>(nfree), static_cast<int>(nb), c.W.data());
  } else if (nb > 0) {
    c.Y.resize(nfree, nb);
    solver.solve(B.data(), c.Y.data(), static_cast<int>(nb));
    c.W = B.transpose() * c.Y;
    c.W = 0.5 * (c.W + c.W.transpose()).eval();
  }
  // With the cables' low-rank stiffness (Woodbury, dynamic_solver_impl.hpp): W_t = W - G M G^T,
  // G = H A^-1 U.
  if (low_rank_Y.cols() > 0 && nb > 0) {
    c.G_HU = B.transpose() * low_rank_Y;
    c.W -= c.G_HU * low_rank_M * c.G_HU.transpose();
    c.W = 0.5 * (c.W + c.W.transpose()).eval();
  }
  return c;
}

DynamicSolver::Impl::Vector DynamicSolver::Impl::correction(const Compliance& c, const Vector& coefficients) const {
  Vector dx = Vector::Zero(assembler.num_free_dofs());
  if (coefficients.size() == 0) return dx;
  if (c.half)
    solver.backward_combination(coefficients.data(), dx.data());  // P^T L^-T (Z c)
  else
    dx = c.Y * coefficients;
  if (c.G_HU.size() > 0) dx -= low_rank_Y * (low_rank_M * (c.G_HU.transpose() * coefficients));
  return dx;
}

void DynamicSolver::Impl::correct(Real h, std::vector<Real>& x_free, DynamicStepReport& report) {
  const ContactOptions& c = options.contact;
  const std::vector<int>& free = assembler.free_dof_index();
  const int nfree = assembler.num_free_dofs();
  auto clock = Clock::now();
  std::vector<Vec3r> free_delta;
  std::vector<ContactPoint> near = near_pairs(h, x_free, free_delta);
  report.seconds_detection += seconds_since(clock);
  const int nc = static_cast<int>(near.size());
  // A cut step's sub-steps: the largest counts and penetration, the last forces.
  report.contacts = std::max(report.contacts, nc);
  report.active_contacts = 0;
  report.normal_force = 0;
  report.contact_force.setZero();
  // Warm start from the previous step's forces of the same pair.
  const std::vector<int> before = match_previous(near);
  Vector lambda_next = Vector::Zero(3 * nc);
  for (int k = 0; k < nc; ++k)
    if (before[static_cast<size_t>(k)] >= 0)  // the normal force only: the frame may have turned
      lambda_next[3 * k] = lambda[3 * static_cast<size_t>(before[static_cast<size_t>(k)])];
  contacts = std::move(near);
  lambda.assign(static_cast<size_t>(3 * nc), 0.0);
  deltas.assign(static_cast<size_t>(3 * nc), 0.0);
  if (nc == 0) return;
  // delta_free and B = H^T (nfree x 3nc, column-major).
  clock = Clock::now();
  Vector delta_free(3 * nc);
  Matrix B = Matrix::Zero(nfree, 3 * nc);
  std::vector<Real> mu(static_cast<size_t>(nc));
  std::vector<std::pair<int, Real>> entries;
  for (int k = 0; k < nc; ++k) {
    const ContactPoint& p = contacts[static_cast<size_t>(k)];
    mu[static_cast<size_t>(k)] = p.friction;
    delta_free.segment<3>(3 * k) = free_delta[static_cast<size_t>(k)];
    for (int r = 0; r < 3; ++r) {
      entries.clear();
      contact::append_contact_row(p, r, entries);
      for (const auto& [dof, value] : entries) {
        const int row = free[static_cast<size_t>(dof)];
        if (row >= 0) B(row, 3 * k + r) += value;
      }
    }
  }
  // W = H A^-1 H^T over the rows that can carry a force: a row that moves no free DOF (a node
  // whose normal or tangent component is fixed: a symmetry plane, a roller) and the tangent rows
  // of a frictionless pair have lambda = 0, so only the other ("live") columns of H^T are solved
  // for (a third of the work without friction). Dead rows get W_rr = 1, no coupling and
  // delta_free_r = 0, which makes the solver's lambda_r 0.
  std::vector<int> live;
  for (int r = 0; r < 3 * nc; ++r)
    if (B.col(r).squaredNorm() > 0 && (r % 3 == 0 || mu[static_cast<size_t>(r / 3)] > 0)) live.push_back(r);
  const int nb = static_cast<int>(live.size());
  Matrix B_live(nfree, nb);
  for (int j = 0; j < nb; ++j) B_live.col(j) = B.col(live[static_cast<size_t>(j)]);
  const Compliance compliance_live = compliance(B_live);
  const Matrix& W_live = compliance_live.W;
  contact::check_step_compliance(W_live, "dynamics contact");  // a Numerical error: the step is cut and retried
  Matrix W = Matrix::Zero(3 * nc, 3 * nc);
  Vector delta_solve = Vector::Zero(3 * nc);
  std::vector<char> is_live(static_cast<size_t>(3 * nc), 0);
  for (int i = 0; i < nb; ++i) {
    const int r = live[static_cast<size_t>(i)];
    is_live[static_cast<size_t>(r)] = 1;
    delta_solve[r] = delta_free[r];
    for (int j = 0; j < nb; ++j) W(r, live[static_cast<size_t>(j)]) = W_live(i, j);
  }
  // A dead row's W_rr is a live diagonal of the same scale (its pair's normal one, else the mean
  // live one), since the solver measures each pair's residual in units of 1 / max diag.
  const Real mean_diag = nb > 0 ? W_live.diagonal().mean() : Real(1);
  for (int r = 0; r < 3 * nc; ++r)
    if (!is_live[static_cast<size_t>(r)])
      W(r, r) = is_live[static_cast<size_t>(r - r % 3)] ? W(r - r % 3, r - r % 3) : mean_diag;
  report.seconds_compliance += seconds_since(clock);
  clock = Clock::now();
  const ContactSolverReport solve = solve_frictional_contact(W, delta_solve, mu, lambda_next, c.solver);
  report.seconds_contact_solve += seconds_since(clock);
  if (report.contact_solves == 0) {
    report.contact_solve = solve;
  } else {
    report.contact_solve.converged = report.contact_solve.converged && solve.converged;
    report.contact_solve.iterations += solve.iterations;
    report.contact_solve.residual = std::max(report.contact_solve.residual, solve.residual);
  }
  ++report.contact_solves;
  // Correction x = x_free + A^-1 H^T lambda, and delta = delta_free + H dx for every row (the
  // dead rows' gap and slip too, which W above does not hold).
  Vector lambda_live(nb);
  for (int j = 0; j < nb; ++j) lambda_live[j] = lambda_next[live[static_cast<size_t>(j)]];
  const Vector dx = correction(compliance_live, lambda_live);
  for (size_t k = 0; k < x_free.size(); ++k)
    if (free[k] >= 0) x_free[k] += dx[free[k]];
  const Vector delta = delta_free + B.transpose() * dx;
  for (size_t r = 0; r < lambda.size(); ++r) {
    lambda[r] = lambda_next[static_cast<Eigen::Index>(r)];
    deltas[r] = delta[static_cast<Eigen::Index>(r)];
  }
  record_contacts(h, x_free, report);
}

void DynamicSolver::Impl::record_contacts(Real h, const std::vector<Real>& x_new, DynamicStepReport& report) const {
  const ContactOptions& c = options.contact;
  for (size_t k = 0; k < contacts.size(); ++k) {
    const ContactPoint& p = contacts[k];
    const Real* l = lambda.data() + 3 * k;
    if (l[0] > 0) ++report.active_contacts;
    report.normal_force += l[0];
    report.contact_force += l[0] * p.normal + l[1] * p.t1 + l[2] * p.t2;
    // The penetration at the corrected positions: an analytic obstacle's true distance (curved
    // shapes differ from the linearised delta), else the linearised gap.
    Real gap = deltas[3 * k];
    if (p.obstacle >= 0 && c.obstacles[static_cast<size_t>(p.obstacle)].shape != ObstacleShape::TriangleMesh) {
      const Vec3r at(x_new[3 * static_cast<size_t>(p.node)], x_new[3 * static_cast<size_t>(p.node) + 1],
                     x_new[3 * static_cast<size_t>(p.node) + 2]);
      gap = distance_to_obstacle(c.obstacles[static_cast<size_t>(p.obstacle)], t + h, at).distance - c.contact_distance;
    }
    report.max_penetration = std::max(report.max_penetration, -gap);
  }
}

}  // namespace softik
