// Cantilever beams under a tip load converge to the beam-theory deflection as the mesh is
// refined (linear small-strain formulation, Poisson ratio 0 so that beam theory is exact up to
// shear deformation). Reference: Euler-Bernoulli P L^3 / (3 E I) plus the Timoshenko shear term
// P L / (k G A), k = 5/6 for a rectangular section (the shear term is 0.6% of the total here).
#include <gtest/gtest.h>

#include <Eigen/SparseCholesky>
#include <cmath>

#include "softik/assembly.hpp"
#include "softik/mesh_generator.hpp"
#include "tests/mesh_helpers.hpp"

namespace softik {
namespace {

constexpr Real kLength = 1.0, kHeight = 0.1, kBeamYoung = 1e4, kLoad = 1e-3;

Real beam_theory_deflection() {
  const Real I = kHeight * kHeight * kHeight * kHeight / 12.0, A = kHeight * kHeight, G = kBeamYoung / 2.0;
  return kLoad * kLength * kLength * kLength / (3 * kBeamYoung * I) + kLoad * kLength / (5.0 / 6.0 * G * A);
}

/// Tip deflection (mean z displacement of the loaded end) of a clamped beam with n cells
/// through the height and 10 n along the length.
Real tip_deflection(CellType type, int n) {
  const Mesh mesh = box_mesh(type, {10 * n, n, n}, {kLength, kHeight, kHeight});
  AssemblyOptions options;
  options.formulation = Formulation::LinearSmallStrain;
  const Assembler assembler(mesh, {fem::LinearElastic::from_young_poisson(kBeamYoung, 0.0)},
                            fix_nodes(mesh, mesh.node_groups.at("xmin")), options);
  // Consistent load on the end face: each face node gets area / nodes-per-face of each face.
  Eigen::VectorXd rhs = Eigen::VectorXd::Zero(assembler.num_free_dofs());
  const SurfaceGroup& end = mesh.surface_groups.at("xmax");
  const Real traction = kLoad / (kHeight * kHeight);
  auto add_face = [&](const int* v, int k) {
    Eigen::Vector3d p[4];
    for (int j = 0; j < k; ++j) p[j] = Eigen::Vector3d(mesh.X[3 * v[j]], mesh.X[3 * v[j] + 1], mesh.X[3 * v[j] + 2]);
    const Real area =
        k == 3 ? 0.5 * (p[1] - p[0]).cross(p[2] - p[0]).norm() : (p[2] - p[0]).cross(p[3] - p[1]).norm() / 2;
    for (int j = 0; j < k; ++j) rhs[assembler.free_dof_index()[3 * v[j] + 2]] -= traction * area / k;
  };
  for (const auto& t : end.triangles) add_face(t.data(), 3);
  for (const auto& q : end.quads) add_face(q.data(), 4);
  const std::vector<Real> x = mesh.rest_positions();
  std::vector<Real> K;
  assembler.assemble(x, nullptr, nullptr, &K);
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<Real>> solver(Eigen::SparseMatrix<Real>(assembler.to_sparse(K)));
  EXPECT_EQ(solver.info(), Eigen::Success);
  const Eigen::VectorXd u = solver.solve(rhs);
  Real sum = 0;
  const auto& nodes = mesh.node_groups.at("xmax");
  for (int node : nodes) sum += u[assembler.free_dof_index()[3 * node + 2]];
  return -sum / static_cast<Real>(nodes.size());
}

// Errors must fall monotonically, the last refinement must show the asymptotic O(h^2) rate of
// linear elements (error ratio > 3 when h halves, i.e. observed order > 1.58), and the Richardson
// extrapolation of the two finest levels, (4 d_fine - d_coarse) / 3, must match beam theory to 1%.
void check_convergence(CellType type, const std::vector<int>& levels) {
  const Real reference = beam_theory_deflection();
  std::vector<Real> deflections, errors;
  for (int n : levels) {
    deflections.push_back(tip_deflection(type, n));
    errors.push_back(std::abs(deflections.back() - reference) / reference);
    std::printf("%s n=%d tip deflection %.6e (beam theory %.6e) relative error %.3e\n", cell_type_name(type), n,
                deflections.back(), reference, errors.back());
  }
  for (size_t k = 1; k < errors.size(); ++k) EXPECT_LT(errors[k], errors[k - 1]) << "refinement must reduce the error";
  const size_t last = errors.size() - 1;
  EXPECT_GT(errors[last - 1] / errors[last], 3.0) << "not yet in the O(h^2) regime";
  const Real extrapolated = (4 * deflections[last] - deflections[last - 1]) / 3;
  EXPECT_NEAR(extrapolated, reference, 0.01 * reference);
}

TEST(CantileverBeam, Hex8ConvergesToBeamTheory) { check_convergence(CellType::Hex8, {1, 2, 4, 8}); }

TEST(CantileverBeam, Tet4ConvergesToBeamTheory) { check_convergence(CellType::Tet4, {1, 2, 4, 8}); }

}  // namespace
}  // namespace softik
