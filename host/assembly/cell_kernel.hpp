// The one cell kernel of every backend (docs/architecture.md, "One kernel body for every
// backend"): gather a cell's nodes and rest data, evaluate the include/softik/fem/ element of its
// formulation, apply the one rule for inverted cells, and hand the results to the outputs asked for:
//   cell_energy   E_e per cell (written, not summed: the caller reduces in a fixed order),
//   force         f = -dE/dx scattered by node (num_dofs per design),
//   K             d^2E/dx^2 scattered node block by node block through the slot map
//                 (slot_map.hpp; nnz per design),
// each skipped when its view is empty. Scatter::Coloured adds plainly (the HostColours
// policy guarantees that no two concurrent cells share a node); Scatter::Atomic adds with
// exec::atomic_add (the CUDA policy, where neighbouring cells run at once).
//
// The arrays are exec::Tables whose Layout says records (CPU) or columns (GPU); the Space in
// their type is the policy's (a host loop cannot be handed device memory). A pass covers
// num_designs designs of one mesh topology: iteration i is cell i % num_cells of design
// i / num_cells, which reads x + design * x_stride, its rest data at design * rest_design_stride
// (0: one geometry), its materials at design * material_design_stride and
// writes its outputs and CellStatus at the design's offsets.
//
// Device code never throws: a non-finite gathered position and an inverted cell where the
// formulation is undefined are recorded (smallest index, exec::atomic_min) in the design's
// CellStatus, which the host turns into an Error (host/assembly/cell_status.hpp).
#pragma once

#include <cstddef>
#include <type_traits>

#include "host/assembly/rest_words.hpp"
#include "host/assembly/slot_map.hpp"
#include "softik/exec/forall.hpp"
#include "softik/exec/view.hpp"
#include "softik/fem/corotational_element.hpp"
#include "softik/fem/dilatation.hpp"
#include "softik/fem/element_stress.hpp"
#include "softik/fem/hyperelastic_element.hpp"
#include "softik/fem/sym_eigen3.hpp"

namespace softik::assembly {

/// Formulations as compile-time tags. The linear small-strain formulation is TotalLagrangian
/// with the LinearElastic law (its P(F) is the small-strain stress).
struct TotalLagrangian {};
struct Corotational {};  ///< LinearElastic only (fem/corotational_element.hpp)
/// Corotational without the SPD projection (every run but project_spd's), the tangent fixed at
/// compile time: the stiffness is scattered node block by node block as fem::corotational_blocks
/// makes it, so the kernel never holds the nd x nd element matrix (on the GPU: registers instead
/// of a local-memory frame of kilobytes). The same numbers as Corotational.
template <bool consistent>
struct StreamedCorotational : Corotational {};
using RotatedCorotational = StreamedCorotational<false>;
using ConsistentCorotational = StreamedCorotational<true>;
template <class Form>
struct streamed_tangent {
  static constexpr bool streamed = false, consistent = false;
};
template <bool c>
struct streamed_tangent<StreamedCorotational<c>> {
  static constexpr bool streamed = true, consistent = c;
};
template <class Form>
constexpr bool is_corotational = std::is_base_of<Corotational, Form>::value;

/// Sentinel of CellStatus: larger than any cell or DOF index (cudaMemset's byte 0x7f repeated).
constexpr int kNoIndex = 0x7f7f7f7f;

/// What a pass reports per design; reset to kNoIndex before each pass.
struct CellStatus {
  int first_invalid_cell = kNoIndex;   ///< smallest cell inverted where the formulation is undefined
  int first_nonfinite_dof = kNoIndex;  ///< smallest DOF gathered with a NaN/inf position
};

enum class Scatter { Coloured, Atomic };

template <exec::Space S>
struct CellPass {
  // The mesh (uploaded once).
  int num_cells = 0;
  int num_designs = 1;
  exec::Table<const int, S> nodes;  ///< (cell, a): node a of the cell
  exec::Table<const Real, S> rest;  ///< (cell, w): word w of its fem::RestData (rest_words.hpp)
  /// Rest words per design when the designs' meshes differ in geometry (same topology): design
  /// d's rest table starts at d * rest_design_stride. 0: one geometry for every design.
  std::size_t rest_design_stride = 0;
  exec::Table<const int, S> block_slots;         ///< (cell, a * n + b): node block base (slot_map.hpp), -1 if none
  exec::View<const int, S> node_rows;            ///< per node: its row word (slot_map.hpp)
  exec::View<const unsigned char, S> materials;  ///< laws of one type M, bytewise
  std::size_t material_stride = 0;               ///< 0: one material for all cells; 1: one per cell
  std::size_t material_design_stride = 0;        ///< materials per design
  fem::RotationMethod rotation = fem::RotationMethod::Polar;
  fem::CorotationalTangent tangent = fem::CorotationalTangent::Rotated;
  bool project_spd = false;
  /// The volumetric treatment (fem/dilatation.hpp; TotalLagrangian with a law that has a bulk
  /// term only, which the Assembler checks). NodalMean reads the nodal pressures pi_a of the
  /// pass (num_nodes per design) and, when given, writes each cell's volume gradient g_c
  /// (n*dim words at c * n*dim) for the second-ring term.
  fem::Dilatation dilatation = fem::Dilatation::Pointwise;
  exec::View<const Real, S> nodal_pressure;
  exec::View<Real, S> volume_gradient;
  // The state and the outputs of this pass (empty views are skipped).
  exec::View<const Real, S> x;
  std::size_t x_stride = 0;
  exec::View<Real, S> cell_energy;  ///< design d's cells at d * num_cells
  exec::View<Real, S> force;
  std::size_t force_stride = 0;
  exec::View<Real, S> K;
  std::size_t K_stride = 0;
  exec::View<CellStatus, S> status;  ///< num_designs entries
  /// Host passes: how many cells ahead the K lines a cell adds to are prefetched
  /// (prefetch_cell_slots); 0: not at all (K fits the caches, or the device).
  int prefetch_cells = 0;
};

/// The one rule for inverted cells: whether a cell whose smallest det F is detF has defined
/// outputs. The corotational element is defined for any det F with the polar rotation (it falls
/// back to the SVD) and not with QR (a reflection); total Lagrangian laws with log J or
/// J^(-1/3) are not, the small-strain and stable neo-Hookean laws are (tolerates_inversion).
template <class M, class Form>
SOFTIK_HD_INLINE bool admissible(Real detF, fem::RotationMethod rotation) {
  if constexpr (is_corotational<Form>)
    return detF > 0 || rotation == fem::RotationMethod::Polar;
  else
    return detF > 0 || fem::tolerates_inversion<M>::value;
}

/// How a backend builds a total-Lagrangian element's K (fem/stiffness_strategies.hpp), chosen
/// once here: the CPU's fastest strategy for the law; the contraction of dP/dF on the GPU, whose
/// threads hold the fewest live values that way (the S and CC form was 23-30 % slower there).
template <exec::Space S, class M, int d>
using BackendStiffness = std::conditional_t<S == exec::Space::Device, fem::DPdFStiffness, fem::HostStiffness<M, d>>;

/// The element function of a formulation; returns its det F (see admissible()). `Stiffness`: how a
/// total-Lagrangian element builds K (fem/stiffness_strategies.hpp).
template <class E, class M, class Form, class Stiffness = fem::HostStiffness<M, E::dim>>
SOFTIK_HD_INLINE Real evaluate_element(const M& material, const fem::RestData<E>& rest, const fem::NodeMatrix<E>& xe,
                                       fem::RotationMethod rotation, fem::CorotationalTangent tangent,
                                       fem::ElementOutputs<E> out) {
  if constexpr (is_corotational<Form>)
    return fem::corotational_element<E>(material, rest, xe, rotation, tangent, out);
  else
    return fem::hyperelastic_element<E, M, Stiffness>(material, rest, xe, out);
}

/// The one gather: the cell's node indices, its node positions from x (recording the smallest
/// non-finite DOF), its rest data (the centre gradients only for the corotational frame) and its
/// material.
template <class E, class M, class Form, exec::Space S>
struct GatheredCell {
  int nodes[E::num_nodes];
  fem::NodeMatrix<E> xe;
  fem::RestData<E> rest;
  M material;

  SOFTIK_HD GatheredCell(const CellPass<S>& p, int design, int c, const Real* x, CellStatus* status) {
    constexpr int d = E::dim;
    for (int a = 0; a < E::num_nodes; ++a) {
      nodes[a] = p.nodes(static_cast<std::size_t>(c), static_cast<std::size_t>(a));
      for (int i = 0; i < d; ++i) {
        const std::size_t dof = static_cast<std::size_t>(nodes[a]) * d + i;
        const Real v = x[dof];
        if (!(v - v == 0)) exec::atomic_min(&status->first_nonfinite_dof, static_cast<int>(dof));  // NaN or inf
        xe(a, i) = v;
      }
    }
    constexpr bool with_center = is_corotational<Form>;
    const Real* rest_words = p.rest.values.data + static_cast<std::size_t>(design) * p.rest_design_stride;
    for_each_rest_word<E>(rest, with_center, [&](int w, Real& word) {
      word = rest_words[p.rest.layout(static_cast<std::size_t>(c), static_cast<std::size_t>(w))];
    });
    material =
        reinterpret_cast<const M*>(p.materials.data)[static_cast<std::size_t>(design) * p.material_design_stride +
                                                     p.material_stride * static_cast<std::size_t>(c)];
  }
};

template <Scatter mode>
SOFTIK_HD_INLINE void scatter_add(Real* target, Real value) {
  if constexpr (mode == Scatter::Atomic)
    exec::atomic_add(target, value);
  else
    *target += value;
}

/// Adds the d x d block (a, b) of a cell's element matrix (element entry (a d + i, b d + k) =
/// block(i, k)) to K through the slot map; rows holds the cell's nodes' row words.
template <Scatter mode, class E, class Block, exec::Space S>
SOFTIK_HD_INLINE void scatter_block(const CellPass<S>& p, Real* K, int c, const int* rows, int a, int b,
                                    const Block& block) {
  constexpr int d = E::dim, n = E::num_nodes;
  const int base = p.block_slots(static_cast<std::size_t>(c), static_cast<std::size_t>(a * n + b));
  for_each_block_slot<d>(base, rows[a], rows[b],
                         [&](int slot, int i, int k) { scatter_add<mode>(&K[slot], block(i, k)); });
}

/// The row words of a cell's nodes (the K scatter's share of the gather).
template <class E, exec::Space S>
struct CellRows {
  int rows[E::num_nodes];
  SOFTIK_HD CellRows(const CellPass<S>& p, const int* nodes) {
    SOFTIK_UNROLL_BY(E::num_nodes)
    for (int a = 0; a < E::num_nodes; ++a) rows[a] = p.node_rows[static_cast<std::size_t>(nodes[a])];
  }
};

/// How many cells ahead a host pass asks for the K lines it will add to (CellPass::prefetch_cells),
/// and from which size of K's values on (smaller K stays in the caches between passes).
constexpr int kPrefetchCells = 4;
constexpr double kPrefetchMinBytes = 4.0 * (1 << 20);

/// Host passes: asks the caches for the first line of every row segment that cell c's node
/// blocks add to in K (one segment of d values per row of each node pair), p.prefetch_cells
/// cells before it is assembled. A cell's segments lie in d n different rows of K; without the
/// hint the first touch of each line waits for memory, one after the other (bench/RESULTS.md,
/// "Prefetched K rows": 1.1-1.5x on Tet4 and Tet10 boxes of 98k-1M cells; at 8.2k cells, K 1.6 MiB,
/// 0-4 % slower, hence kPrefetchMinBytes). The device skips it (atomics at L2).
template <class E, exec::Space S>
SOFTIK_HD_INLINE void prefetch_cell_slots(const CellPass<S>& p, const Real* K, int c) {
  if constexpr (S == exec::Space::Host) {
    constexpr int d = E::dim, n = E::num_nodes;
    if (K == nullptr || p.prefetch_cells <= 0 || c >= p.num_cells) return;
    int row_length[n];
    for (int a = 0; a < n; ++a)
      row_length[a] =
          p.node_rows[static_cast<std::size_t>(p.nodes(static_cast<std::size_t>(c), static_cast<std::size_t>(a)))] >>
          kFreeMaskBits;
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) {
        const int base = p.block_slots(static_cast<std::size_t>(c), static_cast<std::size_t>(a * n + b));
        if (base < 0) continue;
        for (int i = 0; i < d; ++i) exec::prefetch_for_write(K + base + i * row_length[a]);
      }
  }
}

/// Kept out of line on the device so that the (rarely used) projection's work arrays do not
/// weigh on the register allocation of the main path.
template <int N>
#if defined(__CUDA_ARCH__)
__noinline__
#endif
    SOFTIK_HD void
    project_element_spd(Eigen::Matrix<Real, N, N>& Ke) {
  fem::project_spd<N>(Ke);
}

/// fem::average_dilatation, kept out of line on the device for the same reason.
template <class E, class M>
#if defined(__CUDA_ARCH__)
__noinline__
#endif
    SOFTIK_HD void
    average_cell_dilatation(const M& law, const fem::RestData<E>& rest, const fem::NodeMatrix<E>& xe,
                            fem::Dilatation mode, Real pbar, fem::ElementOutputs<E> out, fem::ElementVector<E>* g_out) {
  fem::average_dilatation<E, M>(law, rest, xe, mode, pbar, out, g_out);
}

/// A cell's energy (written) and force (scattered by node), each where the pass asks for it.
template <class E, Scatter mode, exec::Space S>
SOFTIK_HD_INLINE void write_cell_outputs(const CellPass<S>& p, int design, int c, const int* nodes, Real energy,
                                         const fem::ElementVector<E>& fe) {
  constexpr int d = E::dim;
  if (p.cell_energy) p.cell_energy[static_cast<std::size_t>(design) * p.num_cells + c] = energy;
  if (p.force) {
    Real* force = p.force.data + static_cast<std::size_t>(design) * p.force_stride;
    for (int a = 0; a < E::num_nodes; ++a)
      for (int k = 0; k < d; ++k) scatter_add<mode>(&force[static_cast<std::size_t>(nodes[a]) * d + k], fe[a * d + k]);
  }
}

/// assemble_cell: iteration i of a pass (cell i % num_cells of design i / num_cells).
template <class E, class M, class Form, Scatter mode, exec::Space S>
SOFTIK_HD SOFTIK_HOST_FLATTEN void assemble_cell(const CellPass<S>& p, int i) {
  constexpr int d = E::dim, n = E::num_nodes, nd = n * d;
  const int design = i / p.num_cells, c = i - design * p.num_cells;
  CellStatus* status = p.status.data + design;
  const GatheredCell<E, M, Form, S> cell(p, design, c, p.x.data + static_cast<std::size_t>(design) * p.x_stride,
                                         status);

  Real energy = 0;
  fem::ElementVector<E> fe;
  if constexpr (streamed_tangent<Form>::streamed) {
    // The streamed path: each stiffness block goes to K as it is made.
    Real* K = p.K ? p.K.data + static_cast<std::size_t>(design) * p.K_stride : nullptr;
    const CellRows<E, S> rows(p, cell.nodes);
    prefetch_cell_slots<E>(p, K, c + p.prefetch_cells);
    const Real detF = fem::corotational_blocks<E, streamed_tangent<Form>::consistent>(
        cell.material, cell.rest, cell.xe, p.rotation, p.cell_energy ? &energy : nullptr, p.force ? &fe : nullptr,
        K != nullptr,
        [&](int a, int b, const auto& block) { scatter_block<mode, E>(p, K, c, rows.rows, a, b, block); });
    if (!admissible<M, Form>(detF, p.rotation)) exec::atomic_min(&status->first_invalid_cell, c);
    write_cell_outputs<E, mode>(p, design, c, cell.nodes, energy, fe);
    return;
  }
  if (p.K) prefetch_cell_slots<E>(p, p.K.data + static_cast<std::size_t>(design) * p.K_stride, c + p.prefetch_cells);
  fem::ElementMatrix<E> Ke;
  fem::ElementOutputs<E> out;
  if (p.cell_energy) out.energy = &energy;
  if (p.force) out.force = &fe;
  if (p.K) out.stiffness = &Ke;
  const Real detF = evaluate_element<E, M, Form, BackendStiffness<S, M, E::dim>>(cell.material, cell.rest, cell.xe,
                                                                                 p.rotation, p.tangent, out);
  if (!admissible<M, Form>(detF, p.rotation)) exec::atomic_min(&status->first_invalid_cell, c);
  if constexpr (std::is_same<Form, TotalLagrangian>::value && fem::BulkSplit<M>::available) {
    if (p.dilatation != fem::Dilatation::Pointwise) {
      Real pbar = 0;  // NodalMean: the mean nodal pressure of the cell's nodes
      if (p.dilatation == fem::Dilatation::NodalMean) {
        for (int a = 0; a < n; ++a) pbar += p.nodal_pressure[static_cast<std::size_t>(cell.nodes[a])];
        pbar /= n;
      }
      fem::ElementVector<E> g;
      average_cell_dilatation<E, M>(cell.material, cell.rest, cell.xe, p.dilatation, pbar, out,
                                    p.volume_gradient ? &g : nullptr);
      if (p.volume_gradient)
        for (int r = 0; r < nd; ++r) p.volume_gradient[static_cast<std::size_t>(c) * nd + r] = g[r];
    }
  }

  write_cell_outputs<E, mode>(p, design, c, cell.nodes, energy, fe);
  if (p.K) {
    if (p.project_spd) project_element_spd<nd>(Ke);
    Real* K = p.K.data + static_cast<std::size_t>(design) * p.K_stride;
    const CellRows<E, S> rows(p, cell.nodes);
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b)
        scatter_block<mode, E>(p, K, c, rows.rows, a, b, Ke.template block<d, d>(a * d, b * d));
  }
}

/// The body every policy runs (a functor rather than a lambda so that a backend can also ask
/// for its kernel's resources, e.g. exec::forall_local_bytes).
template <class E, class M, class Form, Scatter mode, exec::Space S>
struct AssembleCell {
  CellPass<S> pass;
  SOFTIK_HD void operator()(int i) const { assemble_cell<E, M, Form, mode>(pass, i); }
};

/// One pass over every cell of every design of `pass` with `policy`.
template <class E, class M, class Form, Scatter mode, class Policy>
void assemble_cells(const Policy& policy, const CellPass<Policy::space>& pass) {
  forall(policy, pass.num_cells * pass.num_designs, AssembleCell<E, M, Form, mode, Policy::space>{pass});
}

/// Von Mises stress per cell (mean over the quadrature points) into out[c], through the same
/// gather. Independent per cell (any policy).
template <class E, class M, class Form, exec::Space S>
struct CellVonMises {
  CellPass<S> pass;
  exec::View<Real, S> out;
  SOFTIK_HD void operator()(int c) const {
    const GatheredCell<E, M, Form, S> cell(pass, 0, c, pass.x.data, pass.status.data);
    out[static_cast<std::size_t>(c)] =
        fem::element_von_mises<E>(cell.material, cell.rest, cell.xe, is_corotational<Form>, pass.rotation);
  }
};

/// Lumped mass (fem::element_lumped_mass: row sums, HRZ on quadratic cells) or, with
/// `load_share`, the consistent nodal integral rho * integral(N_a dV) of a uniform body force
/// (fem::element_nodal_integral), scattered per DOF into out (mode as assemble_cell).
template <class E, Scatter mode, exec::Space S>
struct CellLumpedMass {
  CellPass<S> pass;
  Real density = 0;
  exec::View<Real, S> out;
  bool load_share = false;
  SOFTIK_HD void operator()(int c) const {
    constexpr int d = E::dim;
    fem::RestData<E> rest;
    for_each_rest_word<E>(
        rest, false,
        [&](int w, Real& word) { word = pass.rest(static_cast<std::size_t>(c), static_cast<std::size_t>(w)); }, true);
    const auto m =
        load_share ? fem::element_nodal_integral<E>(rest, density) : fem::element_lumped_mass<E>(rest, density);
    for (int a = 0; a < E::num_nodes; ++a) {
      const int node = pass.nodes(static_cast<std::size_t>(c), static_cast<std::size_t>(a));
      for (int k = 0; k < d; ++k) scatter_add<mode>(&out[static_cast<std::size_t>(node) * d + k], m[a]);
    }
  }
};

/// Consistent (or, with lumped, lumped as fem::element_lumped_mass) mass matrix per node pair,
/// scattered into the CSR values through the cell's slots: entry (a d + i, b d + i) gets M_ab
/// (lumped: the diagonal entry (a d + i, a d + i) gets m_a). mode as assemble_cell.
template <class E, Scatter mode, exec::Space S>
struct CellMassMatrix {
  CellPass<S> pass;
  Real density = 0;
  bool lumped = false;
  exec::View<Real, S> out;
  SOFTIK_HD void operator()(int c) const {
    constexpr int d = E::dim, n = E::num_nodes;
    fem::RestData<E> rest;
    for_each_rest_word<E>(
        rest, false,
        [&](int w, Real& word) { word = pass.rest(static_cast<std::size_t>(c), static_cast<std::size_t>(w)); }, true);
    const auto m = fem::element_consistent_mass<E>(rest, density);
    const auto m_lumped = fem::element_lumped_mass<E>(rest, density);
    int nodes[n];
    for (int a = 0; a < n; ++a) nodes[a] = pass.nodes(static_cast<std::size_t>(c), static_cast<std::size_t>(a));
    const CellRows<E, S> rows(pass, nodes);
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) {
        if (lumped && b != a) continue;
        const Real value = lumped ? m_lumped[a] : m(a, b);
        const int base = pass.block_slots(static_cast<std::size_t>(c), static_cast<std::size_t>(a * n + b));
        for (int i = 0; i < d; ++i) {
          const int slot = entry_slot(base, rows.rows[a], rows.rows[b], i, i);
          if (slot >= 0) scatter_add<mode>(&out[static_cast<std::size_t>(slot)], value);
        }
      }
  }
};

}  // namespace softik::assembly
