// GPU assembly kernels. The physics is include/softik/fem/ (single source, DESIGN.md section 3):
// these kernels only gather, call the SOFTIK_HD element function and scatter.
#include <vector>

#include "cuda_check.hpp"
#include "device_array.hpp"
#include "softik/cuda_backend.hpp"
#include "softik/fem/corotational_element.hpp"
#include "softik/fem/materials/linear_elastic.hpp"

namespace softik::cuda {

namespace {

using fem::Tet4;

/// One thread per cell: f_e = corotational_element(...), atomically added into force.
/// `first_invalid` receives the smallest index of a cell the formulation cannot handle (inverted
/// under the QR rotation, as on the CPU); it starts at num_cells.
__global__ void corotational_tet4_force_kernel(int num_cells, const int* cells, const fem::RestData<Tet4>* rest,
                                               fem::LinearElastic material, fem::RotationMethod rotation,
                                               const Real* x, Real* force, int* first_invalid) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= num_cells) return;
  fem::NodeMatrix<Tet4> xe;
  for (int a = 0; a < 4; ++a)
    for (int i = 0; i < 3; ++i) xe(a, i) = x[3 * cells[4 * c + a] + i];
  fem::ElementVector<Tet4> fe;
  fem::ElementOutputs<Tet4> out;
  out.force = &fe;
  const Real detF =
      fem::corotational_element<Tet4>(material, rest[c], xe, rotation, fem::CorotationalTangent::Rotated, out);
  if (!(detF > 0) && rotation == fem::RotationMethod::QR) {
    atomicMin(first_invalid, c);
    return;
  }
  for (int a = 0; a < 4; ++a)
    for (int i = 0; i < 3; ++i) atomicAdd(&force[3 * cells[4 * c + a] + i], fe[3 * a + i]);
}

}  // namespace

bool device_available(std::string* reason) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    if (reason)
      *reason = status != cudaSuccess ? std::string("cudaGetDeviceCount: ") + cudaGetErrorString(status)
                                      : std::string("no CUDA device present");
    cudaGetLastError();  // clear the sticky error so later calls are not confused
    return false;
  }
  return true;
}

std::vector<Real> corotational_tet4_forces(const Mesh& mesh, const fem::LinearElastic& material,
                                           const std::vector<Real>& x, fem::RotationMethod rotation) {
  SOFTIK_CHECK(mesh.cell_type == CellType::Tet4 && mesh.dim == 3,
               "corotational_tet4_forces needs a 3D Tet4 mesh, got " << cell_type_name(mesh.cell_type));
  validate(mesh);
  SOFTIK_CHECK(x.size() == static_cast<size_t>(mesh.num_dofs()),
               "positions have " << x.size() << " entries, expected " << mesh.num_dofs());
  const int num_cells = mesh.num_cells();
  std::vector<fem::RestData<Tet4>> rest(static_cast<size_t>(num_cells));
  for (int c = 0; c < num_cells; ++c) {
    fem::NodeMatrix<Tet4> X;
    for (int a = 0; a < 4; ++a)
      for (int i = 0; i < 3; ++i) X(a, i) = mesh.X[3 * static_cast<size_t>(mesh.cell(c)[a]) + i];
    fem::compute_rest_data<Tet4>(X, rest[static_cast<size_t>(c)]);
  }
  DeviceArray<int> d_cells(mesh.cells.size());
  DeviceArray<fem::RestData<Tet4>> d_rest(rest.size());
  DeviceArray<Real> d_x(x.size()), d_force(x.size());
  DeviceArray<int> d_status(1);
  SOFTIK_CUDA_CHECK(cudaMemcpy(d_cells.get(), mesh.cells.data(), mesh.cells.size() * sizeof(int), cudaMemcpyHostToDevice));
  SOFTIK_CUDA_CHECK(cudaMemcpy(d_rest.get(), rest.data(), rest.size() * sizeof(rest[0]), cudaMemcpyHostToDevice));
  SOFTIK_CUDA_CHECK(cudaMemcpy(d_x.get(), x.data(), x.size() * sizeof(Real), cudaMemcpyHostToDevice));
  SOFTIK_CUDA_CHECK(cudaMemset(d_force.get(), 0, x.size() * sizeof(Real)));
  SOFTIK_CUDA_CHECK(cudaMemcpy(d_status.get(), &num_cells, sizeof(int), cudaMemcpyHostToDevice));
  const int block = 128;
  corotational_tet4_force_kernel<<<(num_cells + block - 1) / block, block>>>(
      num_cells, d_cells.get(), d_rest.get(), material, rotation, d_x.get(), d_force.get(), d_status.get());
  SOFTIK_CUDA_CHECK(cudaGetLastError());
  SOFTIK_CUDA_CHECK(cudaDeviceSynchronize());
  int first_invalid = num_cells;
  SOFTIK_CUDA_CHECK(cudaMemcpy(&first_invalid, d_status.get(), sizeof(int), cudaMemcpyDeviceToHost));
  SOFTIK_CHECK(first_invalid == num_cells,
               "cell " << first_invalid
                       << " is inverted in the current configuration (det F <= 0), where the QR corotational rotation "
                          "is undefined: take smaller load steps, or use the polar rotation, which tolerates inversion");
  std::vector<Real> force(x.size());
  SOFTIK_CUDA_CHECK(cudaMemcpy(force.data(), d_force.get(), x.size() * sizeof(Real), cudaMemcpyDeviceToHost));
  return force;
}

}  // namespace softik::cuda
