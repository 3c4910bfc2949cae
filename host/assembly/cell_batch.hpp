// Host passes that evaluate several cells at once: the cells of a colour block go through the
// element in batches, four cells per AVX2 register where the CPU has AVX2 and FMA, then two per
// SSE2 register (host/assembly/lanes.hpp), each lane one cell, through the same templated element
// math as one cell (include/softik/fem/lane_ops.hpp) and the same gather and scatter as
// assemble_cell (cell_kernel.hpp); the block's last cells, and every formulation without a batched
// form, run assemble_cell one by one.
//
// Batched today: the rotated corotational Tet4 with the polar rotation (the real-time method's
// element), where one cell at a time left the element's arithmetic the bound of the assembly
// (bench/RESULTS.md, "Tet4 cells two at a time"). A batch's lanes add to K block by block, lane
// after lane, so K differs from the one-cell order by round-off only, and on one CPU is the same
// bit for bit for any number of threads (the batches follow the colour blocks, which follow the
// mesh; a CPU without AVX2 batches differently, and FMA rounds differently).
#pragma once

#include <array>
#include <type_traits>
#include <utility>

#include "host/assembly/cell_kernel.hpp"
#include "host/assembly/lanes.hpp"
#include "softik/exec/forall.hpp"

namespace softik::assembly {

/// Cells per batch: two doubles fill an SSE2 register, the x86-64 baseline every build targets
/// (four lanes on it were slower: bench/RESULTS.md). Where the CPU has AVX2 and FMA, batches of
/// four go first (assemble_tet4_batches_avx2); eight with AVX-512 were no faster on Zen 5.
constexpr int kCellLanes = 2;

template <class E, class M, class Form>
constexpr bool has_cell_batch = std::is_same<E, fem::Tet4>::value && std::is_same<M, fem::LinearElastic>::value &&
                                std::is_same<Form, RotatedCorotational>::value;

/// Lane l of a block of lanes, read as a block of Reals (scatter_block's argument).
template <class Tile>
struct LaneOf {
  const Tile& tile;
  int lane;
  Real operator()(int i, int k) const { return tile(i, k)[lane]; }
};

/// The gathers of cells c0 + l of design 0, l < W.
template <class Cell, int... l>
std::array<Cell, sizeof...(l)> gather_cells(const CellPass<exec::Space::Host>& p, int c0, CellStatus* status,
                                            std::integer_sequence<int, l...>) {
  return {Cell(p, 0, c0 + l, p.x.data, status)...};
}

/// Cells c0 .. c0 + W - 1 of design 0 (a host pass covers one design): the rotated corotational
/// Tet4 of assemble_cell's streamed path, W cells at once. Flattened as assemble_cell is: left out
/// of line, prefetch_cell_slots (nothing but prefetches) was taken for a function without effects
/// and its calls deleted by g++ (K's rows then waited for memory: 0.75x at 1M cells).
template <int W, Scatter mode>
SOFTIK_HOST_FLATTEN void assemble_tet4_batch(const CellPass<exec::Space::Host>& p, int c0) {
  using E = fem::Tet4;
  using T = Lanes<W>;
  using Form = RotatedCorotational;
  constexpr int n = E::num_nodes, d = E::dim;
  CellStatus* status = p.status.data;
  Real* K = p.K ? p.K.data : nullptr;
  for (int l = 0; l < W; ++l) prefetch_cell_slots<E>(p, K, c0 + l + p.prefetch_cells);
  using Cell = GatheredCell<E, fem::LinearElastic, Form, exec::Space::Host>;
  const std::array<Cell, W> cells = gather_cells<Cell>(p, c0, status, std::make_integer_sequence<int, W>());
  fem::TMat<T, n, d> x, dN, dN_center;
  for (int a = 0; a < n; ++a)
    for (int i = 0; i < d; ++i) {
      x(a, i) = T::from([&](int l) { return cells[l].xe(a, i); });
      dN(a, i) = T::from([&](int l) { return cells[l].rest.dN_dX[0](a, i); });
      dN_center(a, i) = T::from([&](int l) { return cells[l].rest.dN_dX_center(a, i); });
    }
  const T w = T::from([&](int l) { return cells[l].rest.w_detJ[0]; });
  const T lambda = T::from([&](int l) { return cells[l].material.lambda; });
  const T mu = T::from([&](int l) { return cells[l].material.mu; });
  // F = x^T dN_dX at the centre (fem::deformation_gradient), and its polar rotation.
  fem::TMat<T, d, d> F;
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j)
      F(i, j) = x(0, i) * dN_center(0, j) + x(1, i) * dN_center(1, j) + x(2, i) * dN_center(2, j) + x(3, i) * dN_center(3, j);
  fem::TMat<T, d, d> R = F;
  const auto newton = fem::polar_rotation_newton(R);
  if (!lanes_all(newton))
    for (int l = 0; l < W; ++l) {
      if (newton[l]) continue;
      fem::Mat3 Fl;  // det F <= 0 (or not finite): the SVD route of fem::polar_decomposition
      for (int i = 0; i < d; ++i)
        for (int j = 0; j < d; ++j) Fl(i, j) = F(i, j)[l];
      const fem::Mat3 Rl = fem::detail::rotation_from_svd(Fl);
      for (int i = 0; i < d; ++i)
        for (int j = 0; j < d; ++j) R(i, j).set(l, Rl(i, j));
    }
  T energy = 0.0;
  fem::TMat<T, n, d> g_hat, f;
  fem::rotated_stress_simplex<n>(lambda, mu, w, dN, R, F, p.cell_energy ? &energy : nullptr, bool(p.force), g_hat);
  if (p.force) fem::rotated_force<n, d, T>(R, g_hat, f);
  for (int l = 0; l < W; ++l) {  // the polar rotation is defined for every det F: always admissible
    fem::ElementVector<E> fe;
    if (p.force)
      for (int a = 0; a < n; ++a)
        for (int i = 0; i < d; ++i) fe[a * d + i] = f(a, i)[l];
    write_cell_outputs<E, mode>(p, 0, c0 + l, cells[l].nodes, energy[l], fe);
  }
  if (!K) return;
  int rows[W][n];
  for (int l = 0; l < W; ++l) {
    const CellRows<E, exec::Space::Host> cell_rows(p, cells[l].nodes);
    for (int a = 0; a < n; ++a) rows[l][a] = cell_rows.rows[a];
  }
  fem::rotated_blocks_simplex<n, d>(lambda, mu, w, dN, R, [&](int a, int b, const fem::TMat<T, d, d>& block) {
    for (int l = 0; l < W; ++l)
      scatter_block<mode, E>(p, K, c0 + l, rows[l], a, b, LaneOf<fem::TMat<T, d, d>>{block, l});
  });
}

#if defined(__x86_64__) && defined(__GNUC__)
/// The batches of four cells of [first, last), compiled for AVX2 + FMA (everything inlined into
/// this one function, so no code shared with the rest of the library is built for those
/// instructions); returns the first cell left. Called only where the CPU has both (cpu_has_avx2_fma).
template <Scatter mode>
__attribute__((target("avx2,fma"), flatten)) int assemble_tet4_batches_avx2(const CellPass<exec::Space::Host>& p,
                                                                            int first, int last) {
  for (; first + 4 <= last; first += 4) assemble_tet4_batch<4, mode>(p, first);
  return first;
}

inline bool cpu_has_avx2_fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}
#endif

/// The cells [first, last) of one colour block, in batches where the formulation has them.
template <class E, class M, class Form, Scatter mode>
struct AssembleCellRange {
  CellPass<exec::Space::Host> pass;
  void operator()(int first, int last) const {
    int i = first;
    if constexpr (has_cell_batch<E, M, Form>) {
      if (pass.rotation == fem::RotationMethod::Polar && pass.num_designs == 1) {
#if defined(__x86_64__) && defined(__GNUC__)
        if (cpu_has_avx2_fma()) i = assemble_tet4_batches_avx2<mode>(pass, i, last);
#endif
        for (; i + kCellLanes <= last; i += kCellLanes) assemble_tet4_batch<kCellLanes, mode>(pass, i);
      }
    }
    for (; i < last; ++i) assemble_cell<E, M, Form, mode>(pass, i);
  }
};

/// One host pass over every cell of `pass`, block by block of `colours`.
template <class E, class M, class Form>
void assemble_cell_blocks(const exec::HostColours& colours, const CellPass<exec::Space::Host>& pass) {
  exec::forall_blocks(colours, pass.num_cells * pass.num_designs, AssembleCellRange<E, M, Form, Scatter::Coloured>{pass});
}

}  // namespace softik::assembly
