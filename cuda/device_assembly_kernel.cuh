// The GPU assembly kernel for one element trait E and one material law M, and the host-side
// table from softik::Material's law index to its instantiation. Included only by
// cuda/device_assembly_<trait>.cu (one translation unit per trait keeps builds parallel).
//
// One thread per cell: gather the node positions and the rest data, call the same SOFTIK_HD
// element function as host/element_kernels_impl.hpp (fem::corotational_element or
// fem::hyperelastic_element: the physics lives only in include/softik/fem/), optionally
// project the element tangent to SPD (fem::project_spd, as the CPU), and scatter with double
// atomics: force by node, K through the precomputed element -> CSR slot map. Device code never
// throws: an inverted cell where the formulation is undefined, and a NaN/inf position, are
// recorded (smallest index, atomicMin) in DeviceStatus for the host to report.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>
#include <utility>
#include <variant>

#include "cuda_check.hpp"
#include "device_assembly_launch.hpp"
#include "device_rest_data.hpp"
#include "softik/fem/corotational_element.hpp"
#include "softik/fem/hyperelastic_element.hpp"
#include "softik/fem/sym_eigen3.hpp"
#include "softik/material.hpp"

namespace softik::cuda {

/// Evaluates one cell as host/element_kernels_impl.hpp's evaluate() does; returns false when
/// the cell is inverted where the formulation is undefined (log J laws, QR corotation).
template <class E, class M>
__device__ bool evaluate_cell(const M& material, const fem::RestData<E>& rest, const fem::NodeMatrix<E>& xe,
                              const AssemblyLaunch& l, fem::ElementOutputs<E> out) {
  if constexpr (std::is_same<M, fem::LinearElastic>::value) {
    if (l.corotational) {
      const Real detF = fem::corotational_element<E>(material, rest, xe, l.rotation, l.tangent, out);
      return detF > 0 || l.rotation == fem::RotationMethod::Polar;
    }
  }
  const Real detF = fem::hyperelastic_element<E>(material, rest, xe, out);
  return detF > 0 || fem::tolerates_inversion<M>::value;
}

/// Kept out of line so that the (rarely used) projection's work arrays do not weigh on the
/// register allocation of the main path.
template <int N>
__device__ __noinline__ void project_element_spd(Eigen::Matrix<Real, N, N>& Ke) {
  fem::project_spd<N>(Ke);
}

template <class E, class M>
__global__ void assemble_cells_kernel(AssemblyLaunch l) {
  constexpr int d = E::dim, n = E::num_nodes, nd = n * d;
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const std::size_t design = blockIdx.y;  // designs x cells: one launch for a batch of designs
  const Real* x = l.x + design * l.x_stride;
  Real* force = l.force ? l.force + design * l.force_stride : nullptr;
  Real* K = l.K ? l.K + design * l.K_stride : nullptr;
  DeviceStatus* status = l.status + design;
  Real energy = 0;
  if (c < l.num_cells) {
    const std::size_t N = static_cast<std::size_t>(l.num_cells);
    int nodes[n];
    fem::NodeMatrix<E> xe;
#pragma unroll
    for (int a = 0; a < n; ++a) {
      nodes[a] = l.cells[a * N + c];
#pragma unroll
      for (int i = 0; i < d; ++i) {
        const std::size_t dof = static_cast<std::size_t>(nodes[a]) * d + i;
        const Real v = x[dof];
        if (!isfinite(v)) atomicMin(&status->first_nonfinite_dof, static_cast<int>(dof));
        xe(a, i) = v;
      }
    }
    fem::RestData<E> rest;
    const bool with_center = std::is_same<M, fem::LinearElastic>::value && l.corotational;
    for_each_rest_word<E>(rest, with_center, [&](int w, Real& word) { word = l.rest[w * N + c]; });
    const M material = static_cast<const M*>(l.materials)[design * l.material_design_stride + l.material_stride * c];

    fem::ElementVector<E> fe;
    fem::ElementMatrix<E> Ke;
    fem::ElementOutputs<E> out;
    if (l.energy) out.energy = &energy;
    if (force) out.force = &fe;
    if (K) out.stiffness = &Ke;
    if (!evaluate_cell<E>(material, rest, xe, l, out)) atomicMin(&status->first_invalid_cell, c);

    if (force) {
#pragma unroll
      for (int a = 0; a < n; ++a)
#pragma unroll
        for (int i = 0; i < d; ++i) atomicAdd(&force[static_cast<std::size_t>(nodes[a]) * d + i], fe[a * d + i]);
    }
    if (K) {
      if (l.project_spd) project_element_spd<nd>(Ke);
      const int* slot = l.slots + c;
      for (int r = 0; r < nd; ++r)
#pragma unroll
        for (int s = 0; s < nd; ++s) {
          const int k = slot[(r * nd + s) * N];
          if (k >= 0) atomicAdd(&K[k], Ke(r, s));
        }
    }
  }
  if (l.energy) {  // warp sum, then one atomic per warp (blockDim is a multiple of 32)
    for (int offset = 16; offset > 0; offset >>= 1) energy += __shfl_down_sync(0xffffffffu, energy, offset);
    if ((threadIdx.x & 31) == 0) atomicAdd(&status->energy, energy);
  }
}

/// Block size per trait: small elements keep more cells in flight; Hex8's 24x24 tangent lives
/// in local memory either way.
template <class E>
constexpr int assembly_block_size() {
  return E::num_nodes * E::dim <= 12 ? 128 : 64;
}

template <class E, class M>
void launch_assembly_typed(const AssemblyLaunch& l) {
  constexpr int block = assembly_block_size<E>();
  const dim3 grid((l.num_cells + block - 1) / block, static_cast<unsigned>(l.num_designs));
  assemble_cells_kernel<E, M><<<grid, block>>>(l);
  SOFTIK_CUDA_CHECK(cudaGetLastError());
}

/// The host-side dispatch table: law index in softik::Material -> kernel instantiation.
template <class E, std::size_t... I>
void launch_assembly_for_law(const AssemblyLaunch& l, std::size_t law, std::index_sequence<I...>) {
  ((law == I ? launch_assembly_typed<E, std::variant_alternative_t<I, Material>>(l) : void()), ...);
}

template <class E>
void launch_assembly(const AssemblyLaunch& l, std::size_t law) {
  SOFTIK_CHECK(law < std::variant_size<Material>::value, "material law index " << law << " out of range");
  launch_assembly_for_law<E>(l, law, std::make_index_sequence<std::variant_size<Material>::value>{});
}

template <class E, class M>
std::size_t local_bytes_typed() {
  cudaFuncAttributes attributes;
  SOFTIK_CUDA_CHECK(cudaFuncGetAttributes(&attributes, assemble_cells_kernel<E, M>));
  return attributes.localSizeBytes;
}

template <class E, std::size_t... I>
std::size_t local_bytes_for_law(std::size_t law, std::index_sequence<I...>) {
  std::size_t bytes = 0;
  ((law == I ? static_cast<void>(bytes = local_bytes_typed<E, std::variant_alternative_t<I, Material>>()) : void()), ...);
  return bytes;
}

template <class E>
std::size_t local_bytes_per_thread(std::size_t law) {
  return local_bytes_for_law<E>(law, std::make_index_sequence<std::variant_size<Material>::value>{});
}

/// fem::RestData of cell c from the rest coordinates (stride 3, as the CPU Assembler reads
/// them), packed in for_each_rest_word's order.
template <class E>
void pack_rest(const Mesh& mesh, int c, Real* words) {
  fem::NodeMatrix<E> X;
  const int* nodes = mesh.cell(c);
  for (int a = 0; a < E::num_nodes; ++a)
    for (int i = 0; i < E::dim; ++i) X(a, i) = mesh.X[static_cast<std::size_t>(nodes[a]) * 3 + i];
  fem::RestData<E> rest;
  const Real min_detJ = fem::compute_rest_data<E>(X, rest);
  SOFTIK_CHECK(min_detJ > 0, "cell " << c << " is inverted or degenerate at rest (det J = " << min_detJ
                                     << "): fix its node order or remesh");
  for_each_rest_word<E>(rest, true, [&](int w, Real& word) { words[w] = word; });
}

template <class E>
DeviceElement make_device_element() {
  DeviceElement element;
  element.rest_words = rest_words<E>();
  element.pack_rest = &pack_rest<E>;
  element.launch = &launch_assembly<E>;
  element.local_bytes_per_thread = &local_bytes_per_thread<E>;
  return element;
}

}  // namespace softik::cuda
