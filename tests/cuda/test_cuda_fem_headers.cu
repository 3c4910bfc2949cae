// Single-source rule (docs/gpu.md, "CPU = GPU"): every material law and the generic elements of
// include/softik/fem/ compile for the device (this file is built whenever SOFTIK_CUDA is on)
// and, on a GPU, give the host's numbers to round-off. Skips with the reason without a device.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "../relative_l2.hpp"
#include "softik/backend.hpp"
#include "softik/fem/cell_volume.hpp"
#include "softik/fem/corotational_element.hpp"
#include "softik/fem/element_stress.hpp"
#include "softik/fem/hyperelastic_element.hpp"
#include "softik/fem/materials/materials.hpp"
#include "softik/fem/pressure_load.hpp"

namespace softik {
namespace {

using fem::Mat3;
using fem::Mat9;

constexpr int kLawOutputs = 1 + 9 + 81;  // psi, P, dPdF

// The same function fills the outputs on the host and, through the kernels, on the device.
template <class M>
SOFTIK_HD void law_outputs(const M& material, const Mat3& F, Real* out) {
  out[0] = material.psi(F);
  const Mat3 P = material.P(F);
  const Mat9 A = material.dPdF(F);
  for (int k = 0; k < 9; ++k) out[1 + k] = P(k % 3, k / 3);
  for (int k = 0; k < 81; ++k) out[10 + k] = A(k % 9, k / 9);
}

template <class E, class M>
SOFTIK_HD void element_outputs(const M& material, const fem::RestData<E>& rest, const fem::NodeMatrix<E>& x,
                               Real* out) {
  Real energy = 0;
  fem::ElementVector<E> f;
  fem::ElementMatrix<E> K;
  fem::ElementOutputs<E> o;
  o.energy = &energy;
  o.force = &f;
  o.stiffness = &K;
  fem::hyperelastic_element<E>(material, rest, x, o);
  constexpr int nd = E::num_nodes * E::dim;
  out[0] = energy;
  for (int k = 0; k < nd; ++k) out[1 + k] = f[k];
  for (int k = 0; k < nd * nd; ++k) out[1 + nd + k] = K(k % nd, k / nd);
  out[1 + nd + nd * nd] = fem::element_von_mises<E>(material, rest, x, false, fem::RotationMethod::Polar);
}

// A network volume cell's energy, forces, Hessian and row bounds (fem/cell_volume.hpp).
template <class Cell>
struct CellPositions {
  fem::Vec3 x[Cell::num_nodes];
};

template <class Cell>
constexpr int volume_output_count() {
  return 1 + 3 * Cell::num_nodes + 9 * Cell::num_nodes * Cell::num_nodes + Cell::num_nodes;
}

template <class Cell>
SOFTIK_HD void volume_outputs(Real kappa, Real V0, const fem::Vec3* x, Real* out) {
  constexpr int n = Cell::num_nodes;
  out[0] = fem::volume_term_energy(kappa, V0, Cell::volume(x));
  for (int a = 0; a < n; ++a) {
    const fem::Vec3 f = fem::volume_term_force<Cell>(kappa, V0, x, a);
    for (int k = 0; k < 3; ++k) out[1 + 3 * a + k] = f[k];
  }
  Eigen::Matrix<Real, 3 * n, 3 * n> H;
  fem::volume_term_hessian<Cell>(kappa, V0, x, H);
  for (int k = 0; k < 9 * n * n; ++k) out[1 + 3 * n + k] = H(k % (3 * n), k / (3 * n));
  for (int a = 0; a < n; ++a) out[1 + 3 * n + 9 * n * n + a] = fem::volume_term_row_bound<Cell>(kappa, V0, x, a);
}

template <class Cell>
__global__ void evaluate_volume(Real kappa, Real V0, CellPositions<Cell> p, Real* out) {
  volume_outputs<Cell>(kappa, V0, p.x, out);
}

template <class M>
__global__ void evaluate_law(M material, Mat3 F, Real* out) {
  law_outputs(material, F, out);
}

template <class E, class M>
__global__ void evaluate_element(M material, fem::RestData<E> rest, fem::NodeMatrix<E> x, Real* out) {
  element_outputs<E>(material, rest, x, out);
}

std::vector<Real> run(const std::function<void(Real*)>& launch, int count) {
  Real* d = nullptr;
  EXPECT_EQ(cudaMalloc(&d, sizeof(Real) * count), cudaSuccess);
  launch(d);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<Real> h(static_cast<size_t>(count));
  EXPECT_EQ(cudaMemcpy(h.data(), d, sizeof(Real) * count, cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(d);
  return h;
}

template <class M>
void check_law(const char* name, const M& material) {
  Mat3 F;
  F << 1.2, 0.1, -0.05, 0.03, 0.9, 0.08, -0.02, 0.04, 1.1;
  std::vector<Real> host(kLawOutputs);
  law_outputs(material, F, host.data());
  const std::vector<Real> device = run([&](Real* d) { evaluate_law<M><<<1, 1>>>(material, F, d); }, kLawOutputs);
  EXPECT_LE(relative_l2(device, host), 1e-12) << name;
}

TEST(CudaFemHeaders, EveryLawMatchesTheHost) {
  std::string reason;
  if (!cuda::device_available(&reason)) GTEST_SKIP() << "no usable CUDA device: " << reason;
  const Real E = 1e5, nu = 0.4;
  check_law("LinearElastic", fem::LinearElastic::from_young_poisson(E, nu));
  check_law("SaintVenantKirchhoff", fem::SaintVenantKirchhoff::from_young_poisson(E, nu));
  check_law("NeoHookean", fem::NeoHookean::from_young_poisson(E, nu));
  check_law("NeoHookeanD1", fem::NeoHookeanD1::from_young_poisson(E, nu));
  check_law("StableNeoHookean", fem::StableNeoHookean::from_young_poisson(E, nu));
  check_law("MooneyRivlin", fem::MooneyRivlin::from_constants(1e4, 2e3, 1e-5));
  check_law("Ogden", fem::Ogden<3>::from_constants({1e4, 5e3, -1e3}, {1.3, 5.0, -2.0}, 1e-5));
  check_law("Yeoh", fem::Yeoh::from_constants(1e4, 1e3, 1e2, 1e-5));
  check_law("ArrudaBoyce", fem::ArrudaBoyce::from_constants(1e4, 2.5, 1e-5));
}

TEST(CudaFemHeaders, HyperelasticHex8MatchesTheHost) {
  std::string reason;
  if (!cuda::device_available(&reason)) GTEST_SKIP() << "no usable CUDA device: " << reason;
  using E = fem::Hex8;
  fem::NodeMatrix<E> X, x;
  for (int a = 0; a < E::num_nodes; ++a) {
    X.row(a) = E::reference_node(a).transpose();
    x.row(a) = 1.1 * X.row(a) + 0.05 * fem::Vec3(a % 2, a % 3, a % 5).transpose();
  }
  fem::RestData<E> rest;
  ASSERT_GT(fem::compute_rest_data<E>(X, rest), 0);
  const auto material = fem::MooneyRivlin::from_constants(1e4, 2e3, 1e-5);
  constexpr int nd = 24, count = 1 + nd + nd * nd + 1;
  std::vector<Real> host(count);
  element_outputs<E>(material, rest, x, host.data());
  const std::vector<Real> device = run([&](Real* d) { evaluate_element<E><<<1, 1>>>(material, rest, x, d); }, count);
  EXPECT_LE(relative_l2(device, host), 1e-12);
}

template <class Cell>
void check_volume_cell(const char* name) {
  CellPositions<Cell> p;
  for (int a = 0; a < Cell::num_nodes; ++a) {
    const fem::Vec3 corner(Real(a == 1 || a == 2 || a == 5 || a == 6), Real(a == 2 || a == 3 || a >= 6), Real(a >= 4));
    p.x[a] = 0.01 * corner + 1e-3 * fem::Vec3(std::sin(3.0 * a), std::cos(5.0 * a), std::sin(7.0 * a + 1));
  }
  if (Cell::num_nodes == 4) p.x[3] = fem::Vec3(0.001, 0.002, 0.011);  // above the base triangle
  const Real V0 = 1.1 * Cell::volume(p.x);
  constexpr int count = volume_output_count<Cell>();
  std::vector<Real> host(count);
  volume_outputs<Cell>(3e5, V0, p.x, host.data());
  const std::vector<Real> device = run([&](Real* d) { evaluate_volume<Cell><<<1, 1>>>(3e5, V0, p, d); }, count);
  EXPECT_LE(relative_l2(device, host), 1e-12) << name;
}

TEST(CudaFemHeaders, NetworkVolumeCellsMatchTheHost) {
  std::string reason;
  if (!cuda::device_available(&reason)) GTEST_SKIP() << "no usable CUDA device: " << reason;
  check_volume_cell<fem::Tet4Volume>("Tet4");
  check_volume_cell<fem::Hex8Volume>("Hex8");
}

}  // namespace
}  // namespace softik
