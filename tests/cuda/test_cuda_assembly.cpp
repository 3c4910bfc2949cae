// The CUDA backend must produce the CPU backend's numbers to round-off (brief, rule 5).
// Skips with the reason when no GPU is present; always compiled when SOFTIK_CUDA is on.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "softik/assembly.hpp"
#include "softik/cuda_backend.hpp"
#include "softik/mesh_generator.hpp"

namespace softik {
namespace {

TEST(CudaAssembly, CorotationalTet4ForcesEqualCpu) {
  std::string reason;
  if (!cuda::device_available(&reason)) GTEST_SKIP() << "no usable CUDA device: " << reason;
  BoxSpec spec;
  spec.size = {2.0, 0.4, 0.3};
  spec.cells = {20, 4, 3};
  const Mesh mesh = make_box(3, CellType::Tet4, spec);
  const auto material = fem::LinearElastic::from_young_poisson(3e5, 0.4);
  std::vector<Real> x = mesh.rest_positions();
  std::mt19937 rng(7);
  std::uniform_real_distribution<Real> jitter(-0.01, 0.01);
  for (int n = 0; n < mesh.num_nodes(); ++n) {  // a large rotation plus a small random strain
    const Real X = mesh.X[3 * n], Y = mesh.X[3 * n + 1];
    x[3 * n + 0] = std::cos(0.7) * X - std::sin(0.7) * Y + jitter(rng);
    x[3 * n + 1] = std::sin(0.7) * X + std::cos(0.7) * Y + jitter(rng);
    x[3 * n + 2] += jitter(rng);
  }
  for (auto method : {fem::RotationMethod::Polar, fem::RotationMethod::QR}) {
    AssemblyOptions options;
    options.formulation = Formulation::Corotational;
    options.rotation = method;
    const Assembler cpu(mesh, {material}, {}, options);
    const std::vector<Real> f_cpu = cpu.force(x);
    const std::vector<Real> f_gpu = cuda::corotational_tet4_forces(mesh, material, x, method);
    ASSERT_EQ(f_cpu.size(), f_gpu.size());
    Real diff = 0, norm = 0;
    for (size_t k = 0; k < f_cpu.size(); ++k) {
      diff += (f_cpu[k] - f_gpu[k]) * (f_cpu[k] - f_gpu[k]);
      norm += f_cpu[k] * f_cpu[k];
    }
    EXPECT_GT(norm, 0.0);
    EXPECT_LE(std::sqrt(diff / norm), 1e-10) << "rotation method " << static_cast<int>(method);
  }
}

TEST(CudaAssembly, InvertedCellIsHandledAsOnTheCpu) {
  std::string reason;
  if (!cuda::device_available(&reason)) GTEST_SKIP() << "no usable CUDA device: " << reason;
  const Mesh mesh = make_box(3, CellType::Tet4, BoxSpec{});
  const auto material = fem::LinearElastic::from_young_poisson(1e5, 0.3);
  std::vector<Real> x = mesh.rest_positions();
  for (int n = 0; n < mesh.num_nodes(); ++n) x[3 * n + 2] = -x[3 * n + 2];  // mirror: every cell inverted
  // QR rotation: refused, naming cell 0 (the smallest index), like the CPU.
  try {
    cuda::corotational_tet4_forces(mesh, material, x, fem::RotationMethod::QR);
    ADD_FAILURE() << "an inverted cell under the QR rotation must be refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cell 0 "), std::string::npos) << e.what();
  }
  // Polar rotation: defined, and equal to the CPU forces.
  AssemblyOptions options;
  options.formulation = Formulation::Corotational;
  const std::vector<Real> f_cpu = Assembler(mesh, {material}, {}, options).force(x);
  const std::vector<Real> f_gpu = cuda::corotational_tet4_forces(mesh, material, x, fem::RotationMethod::Polar);
  Real diff = 0, norm = 0;
  for (size_t k = 0; k < f_cpu.size(); ++k) {
    diff += (f_cpu[k] - f_gpu[k]) * (f_cpu[k] - f_gpu[k]);
    norm += f_cpu[k] * f_cpu[k];
  }
  EXPECT_GT(norm, 0.0);
  EXPECT_LE(std::sqrt(diff / norm), 1e-10);
}

}  // namespace
}  // namespace softik
