// The free-motion contact loop (issue 15, docs/method.md 9.1) against mechanics: a block at rest on the
// floor carries its weight in normal contact forces; on an incline it sticks for tan(theta) < mu
// and slides with acceleration g (sin(theta) - mu cos(theta)) otherwise; Signorini's conditions
// and the friction cone hold at every step's solution; a moving obstacle pushes the body.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <memory>

#include "softik/dynamics.hpp"
#include "softik/error.hpp"
#include "softik/mesh_generator.hpp"
#include "tests/mesh_helpers.hpp"

namespace softik {
namespace {

constexpr Real kG = 9.81, kBlockRho = 1000, kSide = 0.1;

struct RestingBlock {
  Mesh mesh;
  std::unique_ptr<Assembler> assembler;
  std::unique_ptr<LinearSolver> solver;
};

/// A free cube of side kSide on [0, kSide]^2 x [0, kSide] (its bottom face on z = 0).
RestingBlock make_block(CellType type, Real young) {
  RestingBlock b;
  b.mesh = box_mesh(type, {3, 3, 3}, {kSide, kSide, kSide});
  AssemblyOptions options;
  options.formulation = Formulation::LinearSmallStrain;
  b.assembler = std::make_unique<Assembler>(
      b.mesh, std::vector<Material>{fem::LinearElastic::from_young_poisson(young, 0.3)}, std::vector<char>{}, options);
  b.solver = make_linear_solver();
  return b;
}

Obstacle floor_plane(Real mu) {
  Obstacle floor;
  floor.name = "floor";
  floor.shape = ObstacleShape::Plane;
  floor.normal = Vec3r::UnitZ();
  floor.friction = mu;
  return floor;
}

/// The loads of a body of density kBlockRho under the gravity g.
DynamicLoads weight_of(const Assembler& assembler, const std::array<Real, 3>& g) {
  DynamicLoads loads;
  loads.nodal = {{gravity_load(assembler, kBlockRho, g), {}}};
  return loads;
}

/// Time steps of dt of a body of density kBlockRho on floor_plane(mu).
DynamicsOptions on_floor(Real dt, Real mu) {
  DynamicsOptions options;
  options.density = kBlockRho;
  options.dt = dt;
  options.contact.obstacles = {floor_plane(mu)};
  return options;
}

/// A block resting on the floor (mu = 0.5) in steps of 0.05 s, its contacts solved to 1e-15.
DynamicsOptions resting_on_floor() {
  DynamicsOptions options = on_floor(0.05, 0.5);
  options.contact.tolerance = 1e-15;
  options.contact.solver.max_iterations = 20000;
  return options;
}

/// Signorini (lambda_n >= 0, gap >= 0, lambda_n gap = 0) and Coulomb (|lambda_t| <= mu lambda_n,
/// sticking where inside the cone, opposing the slip where on it) at the last step's solution.
void expect_contact_laws(const DynamicSolver& dyn, Real force_tol, Real length_tol) {
  const std::vector<Real>& l = dyn.contact_forces();
  const std::vector<Real>& d = dyn.contact_deltas();
  for (size_t k = 0; k < dyn.contacts().size(); ++k) {
    const Real mu = dyn.contacts()[k].friction;
    const Real ln = l[3 * k], lt = std::hypot(l[3 * k + 1], l[3 * k + 2]);
    const Real gap = d[3 * k], slip = std::hypot(d[3 * k + 1], d[3 * k + 2]);
    EXPECT_GE(ln, -force_tol) << "contact " << k;
    EXPECT_GE(gap, -length_tol) << "contact " << k;
    EXPECT_LE(std::min(std::abs(ln), std::abs(gap) / length_tol * force_tol), force_tol)
        << "complementarity, contact " << k;
    EXPECT_LE(lt, mu * ln + force_tol) << "friction cone, contact " << k;
    if (lt < mu * ln - force_tol) {
      EXPECT_LE(slip, length_tol) << "sticking contact " << k << " slips";
    }
    if (slip > length_tol) {  // sliding: the friction force opposes the slip
      EXPECT_LE(l[3 * k + 1] * d[3 * k + 1] + l[3 * k + 2] * d[3 * k + 2], -0.999 * lt * slip) << "contact " << k;
    }
  }
}

TEST(DynamicsContact, ABlockAtRestOnTheFloorCarriesItsWeight) {
  for (CellType type : {CellType::Hex8, CellType::Tet4}) {
    RestingBlock b = make_block(type, 1e5);
    DynamicSolver dyn(*b.assembler, *b.solver, weight_of(*b.assembler, {0, 0, -kG}), resting_on_floor());
    EXPECT_TRUE(dyn.warnings().empty());
    DynamicStepReport r;
    for (int s = 0; s < 60; ++s) {
      r = dyn.step();
      expect_contact_laws(dyn, 1e-7, 1e-10);
    }
    const Real weight = kBlockRho * kSide * kSide * kSide * kG;
    EXPECT_TRUE(r.contact_solve.converged) << r.contact_solve.residual;
    EXPECT_NEAR(r.normal_force, weight, 1e-8 * weight) << cell_type_name(type);
    EXPECT_NEAR(r.contact_force.z(), weight, 1e-8 * weight);
    EXPECT_NEAR(r.contact_force.x(), 0.0, 1e-8 * weight);
    EXPECT_LE(r.max_penetration, 1e-10);
    EXPECT_GT(r.active_contacts, 3);
  }
}

TEST(DynamicsContact, SymmetryPlanesOnTheFloorAreNotContactRows) {
  // A quarter model: the xmin face held in x and the ymin face in y (symmetry planes). Their
  // bottom nodes touch the floor with a fixed tangential component: those rows move no free DOF
  // and must carry no force, while the normal rows carry the quarter's weight.
  RestingBlock b = make_block(CellType::Hex8, 1e5);
  std::vector<char> fixed(static_cast<size_t>(b.mesh.num_dofs()), 0);
  for (int n : b.mesh.node_groups.at("xmin")) fixed[3 * static_cast<size_t>(n)] = 1;
  for (int n : b.mesh.node_groups.at("ymin")) fixed[3 * static_cast<size_t>(n) + 1] = 1;
  AssemblyOptions ao;
  ao.formulation = Formulation::LinearSmallStrain;
  const Assembler assembler(b.mesh, {fem::LinearElastic::from_young_poisson(1e5, 0.3)}, fixed, ao);
  DynamicSolver dyn(assembler, *b.solver, weight_of(assembler, {0, 0, -kG}), resting_on_floor());
  DynamicStepReport r;
  for (int s = 0; s < 40; ++s) {
    r = dyn.step();
    expect_contact_laws(dyn, 1e-7, 1e-10);
  }
  ASSERT_TRUE(r.contact_solve.converged);
  const Real weight = kBlockRho * kSide * kSide * kSide * kG;
  EXPECT_NEAR(r.contact_force.z(), weight, 1e-8 * weight);
  for (size_t k = 0; k < dyn.contacts().size(); ++k) {
    const ContactPoint& c = dyn.contacts()[k];
    for (int row = 0; row < 3; ++row) {
      const Vec3r dir = row == 0 ? c.normal : row == 1 ? c.t1 : c.t2;
      bool moves = false;
      for (int i = 0; i < 3; ++i) moves = moves || (dir[i] != 0 && !fixed[3 * static_cast<size_t>(c.node) + i]);
      if (!moves) {
        EXPECT_EQ(dyn.contact_forces()[3 * k + row], 0.0) << "contact " << k << " row " << row;
      }
    }
  }
}

/// Mean x velocity of the nodes after `steps` steps on a floor with friction mu under gravity
/// tilted by theta (the incline seen from its own frame); also the velocity `span` steps before.
void slide(Real theta, Real mu, int steps, int span, Real* v_end, Real* v_before, Real dt) {
  RestingBlock b = make_block(CellType::Hex8, 1e7);
  DynamicSolver dyn(*b.assembler, *b.solver, weight_of(*b.assembler, {kG * std::sin(theta), 0, -kG * std::cos(theta)}),
                    on_floor(dt, mu));
  auto mean_vx = [&] {
    Real s = 0;
    for (int n = 0; n < b.mesh.num_nodes(); ++n) s += dyn.velocities()[3 * static_cast<size_t>(n)];
    return s / b.mesh.num_nodes();
  };
  for (int s = 0; s < steps; ++s) {
    if (s == steps - span) *v_before = mean_vx();
    const DynamicStepReport r = dyn.step();
    ASSERT_TRUE(r.contact_solve.converged) << "step " << s << " residual " << r.contact_solve.residual;
    expect_contact_laws(dyn, 1e-6, 1e-9);
  }
  *v_end = mean_vx();
}

TEST(DynamicsContact, ABlockOnAnInclineSlidesWithCoulombsAcceleration) {
  const Real mu = 0.3, theta = std::atan(0.5), dt = 0.01;  // tan(theta) = 0.5 > mu
  Real v_end = 0, v_before = 0;
  slide(theta, mu, 40, 20, &v_end, &v_before, dt);
  const Real a = (v_end - v_before) / (20 * dt), expected = kG * (std::sin(theta) - mu * std::cos(theta));
  std::printf("incline: a = %.6f, g (sin - mu cos) = %.6f\n", a, expected);
  EXPECT_NEAR(a, expected, 0.01 * expected);
}

TEST(DynamicsContact, ABlockOnAnInclineSticksBelowTheFrictionAngle) {
  const Real mu = 0.3, theta = std::atan(0.2);  // tan(theta) = 0.2 < mu
  Real v_end = 0, v_before = 0;
  slide(theta, mu, 40, 20, &v_end, &v_before, 0.01);
  // Without friction it would reach g sin(theta) t = 0.77 m/s after 0.4 s.
  EXPECT_LE(std::abs(v_end), 1e-6);
}

TEST(DynamicsContact, AMovingWallPushesTheBlock) {
  // A frictionless wall at x = -0.01 moving in +x at 0.1 m/s from t = 0.1 pushes a free block
  // (no gravity) ahead of it: the block ends up moving with the wall, never through it.
  RestingBlock b = make_block(CellType::Hex8, 1e6);
  Obstacle wall;
  wall.name = "wall";
  wall.shape = ObstacleShape::Plane;
  wall.center = Vec3r(-0.01, 0, 0);
  wall.normal = Vec3r::UnitX();
  wall.path_times = {0.0, 0.1, 1.1};
  wall.path_offsets = {Vec3r::Zero(), Vec3r::Zero(), Vec3r(0.1, 0, 0)};
  DynamicsOptions options;
  options.density = kBlockRho;
  options.dt = 0.01;
  options.contact.obstacles = {wall};
  DynamicSolver dyn(*b.assembler, *b.solver, {}, options);
  for (int s = 0; s < 60; ++s) {
    dyn.step();
    expect_contact_laws(dyn, 1e-6, 1e-9);
    const Real wall_x = -0.01 + wall.offset(dyn.time()).x();
    for (int n = 0; n < b.mesh.num_nodes(); ++n) EXPECT_GE(dyn.positions()[3 * static_cast<size_t>(n)], wall_x - 1e-9);
  }
  // After t = 0.2 the wall has advanced 0.01 and touches; by 0.6 the block moves with it.
  Real vx = 0;
  for (int n = 0; n < b.mesh.num_nodes(); ++n) vx += dyn.velocities()[3 * static_cast<size_t>(n)];
  EXPECT_NEAR(vx / b.mesh.num_nodes(), 0.1, 0.01);
}

TEST(DynamicsContact, RefusesBadContactInputAndWarnsOfInterpenetration) {
  RestingBlock b = make_block(CellType::Tet4, 1e5);
  auto error_of = [&](const DynamicsOptions& o) -> std::string {
    try {
      DynamicSolver dyn(*b.assembler, *b.solver, {}, o);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  DynamicsOptions o;
  o.contact.obstacles = {floor_plane(-0.2)};
  EXPECT_NE(error_of(o).find("floor"), std::string::npos) << error_of(o);
  o.contact.obstacles = {floor_plane(0.2)};
  o.contact.contact_distance = 0.5;  // larger than the 0.033 elements
  EXPECT_NE(error_of(o).find("smallest element"), std::string::npos) << error_of(o);
  o.contact.contact_distance = 0;
  o.contact.obstacles.front().center = Vec3r(0, 0, 0.02);  // the floor cuts the block's bottom layer
  DynamicSolver dyn(*b.assembler, *b.solver, {}, o);
  ASSERT_EQ(dyn.warnings().size(), 1u);
  EXPECT_NE(dyn.warnings().front().find("interpenetrating"), std::string::npos) << dyn.warnings().front();
  EXPECT_NE(dyn.warnings().front().find("floor"), std::string::npos);
  // The steps push the nodes out instead of blowing up.
  for (int s = 0; s < 5; ++s) dyn.step();
  for (int n = 0; n < b.mesh.num_nodes(); ++n) EXPECT_GE(dyn.positions()[3 * static_cast<size_t>(n) + 2], 0.02 - 1e-9);
}

}  // namespace
}  // namespace softik

namespace softik {
namespace {

TEST(DynamicsContact, ABlockStackedOnAnotherRestsOnItBetweenParts) {
  // Two 0.05 m cubes of one mesh (separate parts), the upper one 0.005 above the lower one,
  // which stands on the floor: the upper one falls onto the lower one and both come to rest.
  // The forces between the parts carry the upper cube's weight; the floor carries both.
  const std::vector<Real> xy = {0, 0.025, 0.05};
  const std::vector<Real> z = {0, 0.025, 0.05, 0.055, 0.08, 0.105};
  std::vector<char> keep(2 * 2 * 5, 1);
  for (int j = 0; j < 2; ++j)
    for (int i = 0; i < 2; ++i) keep[static_cast<size_t>(i + 2 * (j + 2 * 2))] = 0;  // the gap layer
  const Mesh mesh = make_tensor_grid({xy, xy, z}, CellType::Hex8, keep);
  AssemblyOptions ao;
  ao.formulation = Formulation::LinearSmallStrain;
  const Assembler assembler(mesh, {fem::LinearElastic::from_young_poisson(1e5, 0.3)}, {}, ao);
  auto solver = make_linear_solver();
  DynamicsOptions options = on_floor(0.02, 0.5);
  options.contact.between_parts = true;
  options.contact.body_friction = 0.5;
  options.contact.solver.max_iterations = 20000;
  DynamicSolver dyn(assembler, *solver, weight_of(assembler, {0, 0, -kG}), options);
  EXPECT_TRUE(dyn.warnings().empty());
  for (int s = 0; s < 80; ++s) {
    const DynamicStepReport r = dyn.step();
    expect_contact_laws(dyn, 1e-7, 1e-9);
    ASSERT_TRUE(r.contact_solve.converged) << "step " << s << ": residual " << r.contact_solve.residual;
  }
  const Real cube_weight = kBlockRho * 0.05 * 0.05 * 0.05 * kG;
  // The vertical resultant of the contact forces (normal and friction: the deformed faces tilt).
  Real on_floor = 0, between = 0;
  for (size_t k = 0; k < dyn.contacts().size(); ++k) {
    const ContactPoint& c = dyn.contacts()[k];
    const Real* l = &dyn.contact_forces()[3 * k];
    (c.obstacle >= 0 ? on_floor : between) += l[0] * c.normal.z() + l[1] * c.t1.z() + l[2] * c.t2.z();
  }
  EXPECT_NEAR(on_floor, 2 * cube_weight, 1e-8 * cube_weight);
  EXPECT_NEAR(between, cube_weight, 1e-8 * cube_weight);
  // The upper cube's bottom rests on the lower cube's top (z = 0.05 less its compression): the
  // nodes of the upper (slave) surface stay on the lower (master) faces; the lower's nodes are
  // not constrained (one-pass contact), so the extremes of the two deformed faces may overlap by
  // their bulge, far below the 5 mm the upper cube fell.
  Real lowest_upper = 1;
  for (int n = 0; n < mesh.num_nodes(); ++n)
    if (mesh.X[3 * static_cast<size_t>(n) + 2] > 0.054)
      lowest_upper = std::min(lowest_upper, dyn.positions()[3 * static_cast<size_t>(n) + 2]);
  Real highest_lower = 0;
  for (int n = 0; n < mesh.num_nodes(); ++n)
    if (mesh.X[3 * static_cast<size_t>(n) + 2] < 0.051)
      highest_lower = std::max(highest_lower, dyn.positions()[3 * static_cast<size_t>(n) + 2]);
  EXPECT_NEAR(lowest_upper, highest_lower, 1e-4);
  EXPECT_LT(highest_lower, 0.05);
}

}  // namespace
}  // namespace softik
