// The averaged dilatations (include/softik/fem/dilatation.hpp): the bulk term each law hands
// over really carries its bulk modulus, a homogeneous state is the plain element's, an
// inhomogeneous one is not, the average nodal pressure couples the stiffness's second ring and
// stays bitwise reproducible, and bad combinations are refused with the fix. (Force and tangent
// by finite differences: test_assembly_derivatives.cpp's *Mean cases; the Lame solution at
// nu = 0.499: test_lame.cpp.)
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <set>
#include <string>
#include <type_traits>

#include "softik/error.hpp"
#include "softik/linear_solver.hpp"
#include "softik/loads.hpp"
#include "softik/scene.hpp"
#include "softik/static_solver.hpp"
#include "tests/assembly_cases.hpp"
#include "tests/mesh_helpers.hpp"
#include "tests/relative_l2.hpp"
#include "tests/scene_test_support.hpp"

namespace softik {
namespace {

/// The laws with a bulk term at nu = 0.499 (E = 1): the bulk modulus is ~170x the shear modulus.
std::vector<std::pair<std::string, Material>> split_laws() {
  const Real E = 1.0, nu = 0.499, mu = E / (2 * (1 + nu)), K = E / (3 * (1 - 2 * nu));
  return {{"LinearElastic", fem::LinearElastic::from_young_poisson(E, nu)},
          {"NeoHookean", fem::NeoHookean::from_young_poisson(E, nu)},
          {"NeoHookeanD1", fem::NeoHookeanD1::from_young_poisson(E, nu)},
          {"StableNeoHookean", fem::StableNeoHookean::from_young_poisson(E, nu)},
          {"MooneyRivlin", fem::MooneyRivlin::from_constants(0.3 * mu, 0.2 * mu, 2.0 / K, fem::Volumetric::D1Form)},
          {"Yeoh", fem::Yeoh::from_constants(0.5 * mu, 0.05 * mu, 0.01 * mu, 2.0 / K, fem::Volumetric::LogSquared)},
          {"Ogden", fem::Ogden<3>::from_constants({0.6 * mu, 0.5 * mu, -0.1 * mu}, {1.3, 5.0, -2.0}, 2.0 / K,
                                                  fem::Volumetric::D1Form)},
          {"ArrudaBoyce", fem::ArrudaBoyce::from_constants(mu, 2.5, 2.0 / K, fem::Volumetric::JSquaredLog)}};
}

// Under a small dilatation F = (1 + s) I the energy's curvature in s is 9 K_eff. The whole law
// has K_eff = the bulk modulus; what remains after removing the bulk term, psi - U(m), must be
// as soft as the shear modulus (else the averaged element would still lock).
TEST(Dilatation, TheBulkTermCarriesTheBulkModulus) {
  const Real e = 1e-4;
  for (const auto& [name, law] : split_laws()) {
    std::visit(
        [&, name = name](const auto& m) {
          using M = std::decay_t<decltype(m)>;
          ASSERT_TRUE(fem::BulkSplit<M>::available) << name;
          const fem::Mat9 C = m.dPdF(fem::Mat3::Identity());
          const Real mu = C(fem::flat(0, 1), fem::flat(0, 1)), K = C(fem::flat(0, 0), fem::flat(1, 1)) + 2 * mu / 3;
          const auto psi = [&](Real s) { return m.psi((1 + s) * fem::Mat3::Identity()); };
          const auto remainder = [&](Real s) {
            fem::Mat3 dmdF;
            const fem::Mat3 F = (1 + s) * fem::Mat3::Identity();
            return m.psi(F) - fem::BulkSplit<M>::term(m, fem::volume_measure<M>(F, dmdF)).U;
          };
          // Second differences: 9 K_eff = d2/ds2 (a linear term, as the stable neo-Hookean
          // law's remainder has at rest, balanced by U'(1), does not count).
          const Real whole = (psi(e) - 2 * psi(0) + psi(-e)) / (9 * e * e);
          const Real rest = (remainder(e) - 2 * remainder(0) + remainder(-e)) / (9 * e * e);
          std::printf("%-17s K %.4g, psi - U: K_eff %.4g (mu %.4g)\n", name.c_str(), whole, rest, mu);
          EXPECT_NEAR(whole, K, 1e-3 * K) << name;
          EXPECT_LE(std::abs(rest), mu) << name;
        },
        law);
  }
  EXPECT_FALSE(fem::BulkSplit<fem::SaintVenantKirchhoff>::available);
}

// The split itself, at finite dilatations F = s I (s = 0.7, 1.3): psi - U(m) is what the law
// has beside its bulk term, known in closed form: nothing for the decoupled laws (their
// isochoric part vanishes under pure dilatation, whichever volumetric form U is), mu/2 (I1 - 3)
// - mu log J for NeoHookean, the mu_ terms and the constant psi0 for StableNeoHookean,
// mu eps:eps for LinearElastic. A wrong form of U (D1Form for LogSquared, say) fails here.
TEST(Dilatation, TheSplitLeavesExactlyTheNonBulkPartAtFiniteDilatation) {
  for (const auto& [name, law] : split_laws()) {
    for (Real s : {0.7, 1.3}) {
      std::visit(
          [&, name = name](const auto& m) {
            using M = std::decay_t<decltype(m)>;
            const fem::Mat3 F = s * fem::Mat3::Identity();
            fem::Mat3 dmdF;
            const Real remainder = m.psi(F) - fem::BulkSplit<M>::term(m, fem::volume_measure<M>(F, dmdF)).U;
            Real expected = 0;
            if constexpr (std::is_same<M, fem::LinearElastic>::value) {
              expected = 3 * m.mu * (s - 1) * (s - 1);
            } else if constexpr (std::is_same<M, fem::NeoHookean>::value) {
              expected = 0.5 * m.mu * (3 * s * s - 3) - m.mu * std::log(s * s * s);
            } else if constexpr (std::is_same<M, fem::StableNeoHookean>::value) {
              const Real mu_ = m.energy_mu(), l_ = m.energy_lambda(), a = m.alpha(), Ic = 3 * s * s;
              expected = 0.5 * mu_ * (Ic - 3) - 0.5 * mu_ * std::log(Ic + 1) -
                         (0.5 * l_ * (1 - a) * (1 - a) - 0.5 * mu_ * std::log(4.0));
            }
            EXPECT_NEAR(remainder, expected, 1e-12 * (std::abs(m.psi(F)) + 1)) << name << " s = " << s;
          },
          law);
    }
  }
}

// Under a homogeneous deformation every volume ratio is det F, so both averages give the plain
// element's energy and forces; under an inhomogeneous one they must differ (else the option
// would not reach the kernels).
TEST(Dilatation, HomogeneousStateIsThePlainElementAndOthersAreNot) {
  for (CellType type : {CellType::Tet4, CellType::Hex8, CellType::Tet10})
    for (fem::Dilatation mode : {fem::Dilatation::CellMean, fem::Dilatation::NodalMean}) {
      const Mesh mesh = testing::small_box(type);
      const Material law = fem::NeoHookean::from_young_poisson(1000, 0.45);
      AssemblyOptions plain, averaged;
      plain.formulation = averaged.formulation = Formulation::Hyperelastic;
      averaged.dilatation = mode;
      if (!testing::dilatation_applies(type, averaged)) continue;
      const Assembler a(mesh, {law}, {}, plain), b(mesh, {law}, {}, averaged);
      std::vector<Real> x = mesh.rest_positions();
      Eigen::Matrix3d F;
      F << 1.2, 0.1, 0.0, -0.05, 0.9, 0.1, 0.02, 0.0, 1.1;
      for (int n = 0; n < mesh.num_nodes(); ++n) {
        const Eigen::Vector3d y = F * Eigen::Vector3d(mesh.X[3 * n], mesh.X[3 * n + 1], mesh.X[3 * n + 2]);
        for (int i = 0; i < 3; ++i) x[static_cast<size_t>(n) * 3 + i] = y[i];
      }
      const std::string what =
          std::string(cell_type_name(type)) + (mode == fem::Dilatation::CellMean ? " cell" : " nodal");
      EXPECT_NEAR(a.energy(x), b.energy(x), 1e-12 * a.energy(x)) << what;
      EXPECT_LE(relative_l2(b.force(x), a.force(x)), 1e-11) << what;
      const std::vector<Real> y = testing::deformed_state(mesh, 0.15, 0.3, 5);
      EXPECT_GT(relative_l2(b.force(y), a.force(y)), 1e-3) << what;
    }
}

// The average nodal pressure couples two nodes that share no cell but a neighbour: the pattern
// grows to the second ring and those entries are non-zero.
TEST(Dilatation, NodalMeanCouplesTheSecondRing) {
  const Mesh mesh = testing::small_box(CellType::Tet4);
  const Material law = fem::NeoHookean::from_young_poisson(1000, 0.45);
  AssemblyOptions plain, nodal;
  plain.formulation = nodal.formulation = Formulation::Hyperelastic;
  nodal.dilatation = fem::Dilatation::NodalMean;
  const Assembler a(mesh, {law}, {}, plain), b(mesh, {law}, {}, nodal);
  EXPECT_GT(b.pattern().nnz(), a.pattern().nnz());
  const std::vector<Real> x = testing::deformed_state(mesh, 0.1, 0.2, 3);
  const Eigen::MatrixXd K = Eigen::MatrixXd(b.stiffness(x));
  std::vector<std::set<int>> ring(static_cast<size_t>(mesh.num_nodes()));
  for (int c = 0; c < mesh.num_cells(); ++c)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) ring[static_cast<size_t>(mesh.cell(c)[i])].insert(mesh.cell(c)[j]);
  int second_ring_pairs = 0;
  for (int p = 0; p < mesh.num_nodes(); ++p)
    for (int q = 0; q < mesh.num_nodes(); ++q) {
      if (ring[static_cast<size_t>(p)].count(q)) continue;
      bool shared = false;
      for (int r : ring[static_cast<size_t>(p)]) shared = shared || ring[static_cast<size_t>(r)].count(q) > 0;
      if (!shared) continue;
      ++second_ring_pairs;
      EXPECT_GT((K.block<3, 3>(3 * p, 3 * q).norm()), 1e-8 * K.norm()) << "nodes " << p << " and " << q;
    }
  EXPECT_GT(second_ring_pairs, 0);
}

// The second-ring term through the slot tables with fixed DOFs (their slots are -1): the
// tangent over the free DOFs is the Jacobian of minus the force there, by central differences.
TEST(Dilatation, NodalMeanTangentWithFixedDofsIsTheForceJacobian) {
  const Mesh mesh = testing::small_box(CellType::Tet4);
  AssemblyOptions o;
  o.formulation = Formulation::Hyperelastic;
  o.dilatation = fem::Dilatation::NodalMean;
  const Assembler a(mesh, {fem::NeoHookean::from_young_poisson(1000, 0.49)},
                    fix_nodes(mesh, mesh.node_groups.at("xmin")), o);
  const std::vector<Real> x = testing::deformed_state(mesh, 0.1, 0.3, 8);
  const Eigen::MatrixXd K = Eigen::MatrixXd(a.stiffness(x));
  const std::vector<int>& free = a.free_dof_index();
  Eigen::MatrixXd fd = Eigen::MatrixXd::Zero(K.rows(), K.cols());
  const Real h = 1e-6;
  for (size_t k = 0; k < x.size(); ++k) {
    if (free[k] < 0) continue;
    std::vector<Real> xp = x, xm = x;
    xp[k] += h;
    xm[k] -= h;
    const std::vector<Real> fp = a.force(xp), fm = a.force(xm);
    for (size_t r = 0; r < x.size(); ++r)
      if (free[r] >= 0) fd(free[r], free[k]) = -(fp[r] - fm[r]) / (2 * h);
  }
  ASSERT_LT(a.num_free_dofs(), static_cast<int>(x.size()));
  EXPECT_LE((fd - K).norm() / K.norm(), 1e-6);
}

TEST(Dilatation, NodalMeanIsBitwiseIdenticalForAnyThreadCount) {
  const Mesh mesh = testing::small_box(CellType::Tet4);
  AssemblyOptions one, two;
  one.formulation = two.formulation = Formulation::Hyperelastic;
  one.dilatation = two.dilatation = fem::Dilatation::NodalMean;
  one.num_threads = 1;
  two.num_threads = 2;
  one.block_size = two.block_size = 4;  // several blocks per colour
  const Material law = fem::MooneyRivlin::from_young_poisson(1000, 0.49);
  const Assembler a(mesh, {law}, {}, one), b(mesh, {law}, {}, two);
  const std::vector<Real> x = testing::deformed_state(mesh, 0.1, 0.2, 4);
  std::vector<Real> fa, fb, Ka, Kb;
  Real ea = 0, eb = 0;
  a.assemble(x, &ea, &fa, &Ka);
  b.assemble(x, &eb, &fb, &Kb);
  EXPECT_EQ(ea, eb);
  EXPECT_EQ(fa, fb);
  EXPECT_EQ(Ka, Kb);
}

using testing::error_of;

TEST(Dilatation, BadCombinationsAreRefusedWithTheFix) {
  const Mesh mesh = testing::small_box(CellType::Tet4);
  AssemblyOptions o;
  o.formulation = Formulation::Hyperelastic;
  o.dilatation = fem::Dilatation::NodalMean;
  std::string m = error_of([&] { Assembler(mesh, {fem::SaintVenantKirchhoff::from_young_poisson(1, 0.3)}, {}, o); });
  EXPECT_NE(m.find("needs a law with a bulk term, and SaintVenantKirchhoff has none"), std::string::npos) << m;
  o.formulation = Formulation::Corotational;
  o.dilatation = fem::Dilatation::CellMean;
  m = error_of([&] { Assembler(mesh, {fem::LinearElastic::from_young_poisson(1, 0.3)}, {}, o); });
  EXPECT_NE(m.find("not the corotational one"), std::string::npos) << m;
  o.formulation = Formulation::Hyperelastic;
  o.dilatation = fem::Dilatation::CellMean;
  m = error_of([&] { Assembler(mesh, {fem::NeoHookean::from_young_poisson(1, 0.3)}, {}, o); });
  EXPECT_NE(m.find("CellMean on Tet4 cells is the plain element"), std::string::npos) << m;
  EXPECT_NE(m.find("use NodalMean"), std::string::npos) << m;
  o.dilatation = fem::Dilatation::NodalMean;
  m = error_of(
      [&] { Assembler(testing::small_box(CellType::Hex8), {fem::NeoHookean::from_young_poisson(1, 0.3)}, {}, o); });
  EXPECT_NE(m.find("not of Hex8 cells: use CellMean"), std::string::npos) << m;
}

// A state where the cells around the nodes are inverted on average: the log J bulk term is
// undefined there and the error names the node; the inversion-tolerant law assembles it.
TEST(Dilatation, InvertedNeighbourhoodNamesTheNode) {
  const Mesh mesh = testing::small_box(CellType::Tet4);
  std::vector<Real> x = mesh.rest_positions();
  for (size_t k = 2; k < x.size(); k += 3) x[k] = -x[k];  // mirrored in z: every cell inverted
  AssemblyOptions o;
  o.formulation = Formulation::Hyperelastic;
  o.dilatation = fem::Dilatation::NodalMean;
  const Assembler nh(mesh, {fem::NeoHookean::from_young_poisson(1, 0.3)}, {}, o);
  const std::string m = error_of([&] { nh.force(x); });
  EXPECT_NE(m.find("the cells around node 0 are inverted on average"), std::string::npos) << m;
  EXPECT_NE(m.find("take smaller load steps"), std::string::npos) << m;
  const Assembler snh(mesh, {fem::StableNeoHookean::from_young_poisson(1, 0.3)}, {}, o);
  const std::vector<Real> f = snh.force(x);
  for (Real v : f) EXPECT_TRUE(std::isfinite(v));
}

// Convergence under refinement at nu = 0.49: a cantilever 4 x 1 x 1, clamped at x = 0, bending
// under its own weight (neo-Hookean, tip deflection about 2.5% of the length). The three
// locking-free elements converge to the same tip deflection: Tet10 and Hex8 agree within 2% on
// their finest meshes (1.4%; their Richardson extrapolations, 0.1009 and 0.1012, within 0.3%),
// and the Tet4 (which, with constant strain per cell, bends slowly even
// without locking) approaches that value, its error more than halving at each refinement.
// Measured: Tet4 nodal mean 0.0519, 0.0793, 0.0934; Hex8 cell mean 0.0921, 0.0974, 0.0996;
// Tet10 cell mean 0.1153, 0.1021, 0.1010; plain Tet4 at n = 8: 0.0598 (locked).
Real cantilever_tip(CellType type, int n, fem::Dilatation dilatation) {
  const Mesh mesh = box_mesh(type, {4 * n, n, n}, {4.0, 1.0, 1.0});
  AssemblyOptions o;
  o.formulation = Formulation::Hyperelastic;
  o.dilatation = dilatation;
  const Assembler a(mesh, {fem::NeoHookean::from_young_poisson(1000, 0.49)},
                    fix_nodes(mesh, mesh.node_groups.at("xmin")), o);
  const std::vector<Real> f = gravity_load(a, 1.0, {0, 0, -0.26});
  std::vector<Real> x = mesh.rest_positions();
  auto solver = make_linear_solver();
  solve_static(a, *solver, f, x);
  Real tip = 0;
  const std::vector<int>& end = mesh.node_groups.at("xmax");
  for (int node : end) tip += x[3 * static_cast<size_t>(node) + 2] - mesh.X[3 * static_cast<size_t>(node) + 2];
  tip /= static_cast<Real>(end.size());
  std::printf("nu = 0.49 cantilever %s %s n = %d (%d cells): tip u_z %.6f\n", cell_type_name(type),
              dilatation == fem::Dilatation::Pointwise  ? "plain"
              : dilatation == fem::Dilatation::CellMean ? "cell mean"
                                                        : "nodal mean",
              n, mesh.num_cells(), tip);
  return tip;
}

TEST(Dilatation, LockingFreeElementsConvergeToTheSameCantileverDeflection) {
  struct Sequence {
    CellType type;
    fem::Dilatation dilatation;
    std::vector<int> levels;
    std::vector<Real> tips;
  };
  std::vector<Sequence> sequences = {{CellType::Tet4, fem::Dilatation::NodalMean, {2, 4, 8}, {}},
                                     {CellType::Hex8, fem::Dilatation::CellMean, {2, 4, 8}, {}},
                                     {CellType::Tet10, fem::Dilatation::CellMean, {1, 2, 4}, {}}};
  for (Sequence& s : sequences)
    for (int n : s.levels) s.tips.push_back(cantilever_tip(s.type, n, s.dilatation));
  const std::vector<Real>& tet10 = sequences[2].tips;
  const Real reference = tet10.back();
  EXPECT_LT(std::abs(tet10[2] - tet10[1]), 0.2 * std::abs(tet10[1] - tet10[0]));
  EXPECT_NEAR(sequences[1].tips.back(), reference, 0.02 * std::abs(reference));  // Hex8 (measured 1.4%)
  for (int k : {0, 1}) {  // Tet4 and Hex8: the error to the reference more than halves per level
    const std::vector<Real>& tips = sequences[static_cast<size_t>(k)].tips;
    for (size_t level = 0; level + 1 < tips.size(); ++level)
      EXPECT_GT(std::abs(tips[level] - reference), 2 * std::abs(tips[level + 1] - reference))
          << cell_type_name(sequences[static_cast<size_t>(k)].type) << " level " << level;
  }
  const Real plain = cantilever_tip(CellType::Tet4, 8, fem::Dilatation::Pointwise);
  EXPECT_GT(std::abs(plain - reference), 4 * std::abs(sequences[0].tips.back() - reference));
}

const std::string kDilatationScene = R"(mesh:
  generator: {type: box, size: [0.04, 0.01, 0.01], cells: [4, 1, 1], cell_type: tet4}
materials:
  - {law: neo_hookean, young: 1.0e5, poisson: 0.49}
fixed:
  - group: xmin
)";

TEST(Dilatation, SceneKeyReachesTheAssemblerAndBadValuesNameTheLine) {
  const Scene scene = parse_scene_string(kDilatationScene + "dilatation: nodal_mean\n", "scene.yaml");
  EXPECT_EQ(scene.dilatation, fem::Dilatation::NodalMean);
  const BuiltScene built = build_scene(scene);
  EXPECT_EQ(built.assembler->options().dilatation, fem::Dilatation::NodalMean);
  EXPECT_EQ(parse_scene_string(kDilatationScene, "scene.yaml").dilatation, fem::Dilatation::Pointwise);
  struct Bad {
    std::string text, token, words;
  };
  std::vector<Bad> bad = {
      {kDilatationScene + "dilatation: nodal\n", "nodal",
       "dilatation: expected one of: pointwise, cell_mean, nodal_mean"},
      {"mesh: {generator: {type: box, cell_type: hex8}}\nformulation: corotational\nmaterials: [{law: linear, lambda: "
       "1, mu: 1}]\ndilatation: cell_mean\n",
       "cell_mean", "needs formulation: hyperelastic or linear, not corotational"},
      {"mesh: {generator: {type: box}}\nmaterials: [{law: saint_venant_kirchhoff, lambda: 1, mu: 1}]\ndilatation: "
       "nodal_mean\n",
       "nodal_mean", "uses 'saint_venant_kirchhoff', whose lambda term is not a function of the volume"},
  };
  for (const Bad& b : bad) {
    const std::string m = error_of([&] { parse_scene_string(b.text, "scene.yaml"); });
    EXPECT_EQ(m.rfind("scene.yaml:" + position_of(b.text, b.token) + ":", 0), 0u) << m;
    EXPECT_NE(m.find(b.words), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace softik
