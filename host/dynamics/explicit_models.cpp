// The bodies an explicit integrator can move (include/softik/explicit_dynamics.hpp): node
// networks and FEM bodies with lumped mass, with gravity, nodal loads and pressures P(t).
#include <algorithm>
#include <cmath>

#include "softik/error.hpp"
#include "softik/explicit_dynamics.hpp"
#include "softik/surface.hpp"

namespace softik {
namespace {

void check_loads(const ExplicitLoads& loads, int num_dofs) {
  SOFTIK_CHECK(loads.nodal.empty() || loads.nodal.size() == static_cast<size_t>(num_dofs),
               "explicit dynamics: " << loads.nodal.size() << " nodal load entries for " << num_dofs << " DOFs");
  for (size_t i = 0; i < loads.nodal.size(); ++i)
    SOFTIK_CHECK(std::isfinite(loads.nodal[i]), "explicit dynamics: nodal load of DOF " << i << " is not finite");
  for (int i = 0; i < 3; ++i)
    SOFTIK_CHECK(std::isfinite(loads.gravity[static_cast<size_t>(i)]), "explicit dynamics: gravity is not finite");
  validate(loads.gravity_over_time, "gravity over_time");
  for (const ExplicitPressure& p : loads.pressures) {
    SOFTIK_CHECK(std::isfinite(p.load.pressure),
                 "pressure '" << p.load.name << "': value " << p.load.pressure << " is not finite");
    SOFTIK_CHECK(p.load.embedding.empty(), "pressure '" << p.load.name
                                                        << "': embedded surfaces are not supported in "
                                                           "explicit dynamics; give the surface over the body's nodes");
    validate(p.over_time, "pressure '" + p.load.name + "' over_time");
  }
}

// Checks each pressure surface over `nodes` and stores it wound out of its cavity.
void check_pressure_surfaces(const Mesh& nodes, ExplicitLoads& loads, std::vector<std::string>* notes) {
  for (ExplicitPressure& p : loads.pressures) {
    SurfaceReport report;
    p.load.surface = check_surface(nodes, p.load.surface, p.load.name, p.load.closed, true, &report);
    if (report.flipped && notes)
      notes->push_back("pressure '" + p.load.name + "': the surface was wound into its cavity; its " +
                       std::to_string(report.flipped) + " faces were reversed");
  }
}

void add_external(const ExplicitLoads& loads, const Mesh& nodes, Real t, const std::vector<Real>& x,
                  const std::vector<Real>& gravity_per_unit, std::vector<Real>& f) {
  const Real g_factor = loads.gravity_over_time(t);
  for (size_t i = 0; i < f.size(); ++i)
    f[i] += g_factor * gravity_per_unit[i] * loads.gravity[i % 3] + (loads.nodal.empty() ? 0 : loads.nodal[i]);
  for (const ExplicitPressure& p : loads.pressures)
    add_pressure_forces(p.load, p.load.pressure * p.over_time(t), nodes, x, f);
}

Real load_potential(const ExplicitLoads& loads, const Mesh& nodes, Real t, const std::vector<Real>& x,
                    const std::vector<Real>& gravity_per_unit) {
  Real work = 0;
  const Real g_factor = loads.gravity_over_time(t);
  for (size_t i = 0; i < x.size(); ++i)
    work += (g_factor * gravity_per_unit[i] * loads.gravity[i % 3] + (loads.nodal.empty() ? 0 : loads.nodal[i])) * x[i];
  for (const ExplicitPressure& p : loads.pressures)
    work += pressure_work(p.load, p.load.pressure * p.over_time(t), nodes, x);
  return -work;
}

void zero_fixed(const std::vector<char>& fixed, std::vector<Real>& f) {
  for (size_t i = 0; i < f.size(); ++i)
    if (fixed[i]) f[i] = 0;
}

}  // namespace

NodeNetworkModel::NodeNetworkModel(const NodeNetwork& network, std::vector<char> fixed_dofs, ExplicitLoads loads,
                                   int num_threads, Backend backend)
    : forces_(network, num_threads, backend), fixed_(std::move(fixed_dofs)), loads_(std::move(loads)) {
  const int n = 3 * network.num_nodes();
  if (fixed_.empty()) fixed_.assign(static_cast<size_t>(n), 0);
  SOFTIK_CHECK(fixed_.size() == static_cast<size_t>(n),
               "node network: " << fixed_.size() << " fixed-DOF flags for " << n << " DOFs (3 per node)");
  check_loads(loads_, n);
  nodes_ = node_mesh(network);
  check_pressure_surfaces(nodes_, loads_, &notes_);
  mass_.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) mass_[static_cast<size_t>(i)] = network.mass[static_cast<size_t>(i / 3)];
}

void NodeNetworkModel::forces(Real t, const std::vector<Real>& x, const std::vector<Real>& v,
                              std::vector<Real>& f) const {
  f.assign(x.size(), 0);
  forces_.add_forces(x.data(), v.data(), f.data());
  add_external(loads_, nodes_, t, x, mass_, f);
  zero_fixed(fixed_, f);
}

Real NodeNetworkModel::potential_energy(Real t, const std::vector<Real>& x) const {
  return forces_.energy(x.data()) + load_potential(loads_, nodes_, t, x, mass_);
}

ExplicitModel::Bounds NodeNetworkModel::frequency_bounds(const std::vector<Real>& x) const {
  std::vector<Real> stiffness, dashpot;
  forces_.node_bounds(x.data(), stiffness, dashpot);
  Bounds b;
  for (int n = 0; n < forces_.network().num_nodes(); ++n) {
    if (fixed_[3 * static_cast<size_t>(n)] && fixed_[3 * static_cast<size_t>(n) + 1] &&
        fixed_[3 * static_cast<size_t>(n) + 2])
      continue;
    const Real m = forces_.network().mass[static_cast<size_t>(n)];
    // Block Gershgorin: omega^2 <= (||K_ii|| + sum_j ||K_ij||) / m_i, the row bound of node_bounds
    // (2 sum_l ||H_l|| over the links, plus the volume cells' rows).
    const Real w2 = stiffness[static_cast<size_t>(n)] / m;
    if (w2 > b.omega_squared) b.omega_squared = w2, b.node = n;
    b.damping_rate = std::max(b.damping_rate, 2 * dashpot[static_cast<size_t>(n)] / m);
  }
  return b;
}

void NodeNetworkModel::check_state(const std::vector<Real>& x) const { forces_.check_state(x.data()); }

FemExplicitModel::FemExplicitModel(const Assembler& assembler, Real density, ExplicitLoads loads)
    : assembler_(assembler), loads_(std::move(loads)) {
  SOFTIK_CHECK(std::isfinite(density) && density > 0,
               "explicit FEM: density " << density << " must be positive (an explicit step divides by the mass)");
  SOFTIK_CHECK(assembler.mesh().dim == 3, "explicit FEM: the mesh must be 3D");
  const int n = assembler.num_dofs();
  check_loads(loads_, n);
  check_pressure_surfaces(assembler.mesh(), loads_, nullptr);
  X_ = assembler.mesh().rest_positions();
  mass_ = assembler.lumped_mass(density);
  for (int i = 0; i < n; ++i)
    SOFTIK_CHECK(mass_[static_cast<size_t>(i)] > 0, "explicit FEM: node "
                                                        << i / 3 << " has lumped mass " << mass_[static_cast<size_t>(i)]
                                                        << "; every node must belong to a cell of positive volume");
  gravity_share_ = gravity_load(assembler, density, {1, 1, 1});  // rho integral(N_a dV) per DOF
  fixed_.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) fixed_[static_cast<size_t>(i)] = assembler.free_dof_index()[static_cast<size_t>(i)] < 0;
}

void FemExplicitModel::forces(Real t, const std::vector<Real>& x, const std::vector<Real>& /*v*/,
                              std::vector<Real>& f) const {
  assembler_.assemble(x, nullptr, &f, nullptr);
  add_external(loads_, assembler_.mesh(), t, x, gravity_share_, f);
  zero_fixed(fixed_, f);
}

Real FemExplicitModel::potential_energy(Real t, const std::vector<Real>& x) const {
  return assembler_.energy(x) + load_potential(loads_, assembler_.mesh(), t, x, gravity_share_);
}

ExplicitModel::Bounds FemExplicitModel::frequency_bounds(const std::vector<Real>& x) const {
  std::vector<Real> K(static_cast<size_t>(assembler_.pattern().nnz()));
  assembler_.assemble(x, nullptr, nullptr, &K);
  const CsrPattern& pattern = assembler_.pattern();
  std::vector<int> dof_of_row(static_cast<size_t>(pattern.rows));
  for (size_t i = 0; i < assembler_.free_dof_index().size(); ++i)
    if (assembler_.free_dof_index()[i] >= 0)
      dof_of_row[static_cast<size_t>(assembler_.free_dof_index()[i])] = static_cast<int>(i);
  Bounds b;
  for (int r = 0; r < pattern.rows; ++r) {
    Real row = 0;  // Gershgorin: every eigenvalue of M^-1 K is <= max_r sum_j |K_rj| / m_r
    for (int s = pattern.row_ptr[static_cast<size_t>(r)]; s < pattern.row_ptr[static_cast<size_t>(r) + 1]; ++s)
      row += std::abs(K[static_cast<size_t>(s)]);
    const int dof = dof_of_row[static_cast<size_t>(r)];
    const Real w2 = row / mass_[static_cast<size_t>(dof)];
    if (w2 > b.omega_squared) b.omega_squared = w2, b.node = dof / 3;
  }
  return b;
}

void FemExplicitModel::check_state(const std::vector<Real>& x) const {
  for (size_t i = 0; i < x.size(); ++i)
    SOFTIK_CHECK_NUMERICAL(std::isfinite(x[i]), "explicit FEM: DOF "
                                                    << i << " (node " << i / 3
                                                    << ") is not finite: the motion blew up; reduce the time step");
}

}  // namespace softik
