// Host passes that evaluate several cells at once: the cells of a colour block go through the
// element in batches, four cells per AVX2 register where the CPU has AVX2 and FMA, then two per
// SSE2 register (host/assembly/lanes.hpp), each lane one cell, through the same templated element
// math as one cell (include/softik/fem/lane_ops.hpp) and the same gather and scatter as
// assemble_cell (cell_kernel.hpp); the block's last cells, and every formulation without a batched
// form, run assemble_cell one by one.
//
// Batched today, on Tet4 (one point, so the whole cell is a few hundred multiply-adds):
//   - the rotated corotational element with the polar rotation (the real-time method's element),
//     where one cell at a time left the element's arithmetic the bound of the assembly
//     (bench/RESULTS.md, "Tet4 cells two at a time");
//   - the total-Lagrangian elements of fem::NeoHookean and of the decoupled Ibar1 laws of CalculiX and
//     Abaqus (fem::NeoHookeanD1, fem::Yeoh, fem::ArrudaBoyce; fem::is_decoupled_i1) with the pointwise
//     volume term and no SPD projection: energy, P and K from the laws' templated functions (P from
//     F^-T and K in closed form: fem::NeoHookean::pk1 and ::stiffness_blocks; fem::decoupled_i1_pk1
//     and fem::decoupled_i1_stiffness_blocks), as one cell on the CPU.
// Cells of eight points (Hex8) whose stiffness is summed over the points in closed form go one at a
// time through assemble_cell built for AVX2 + FMA where the CPU has both (assemble_cells_avx2).
// A batch's lanes add to K block by block, lane after lane, so K differs from the one-cell order by
// round-off only, and on one CPU is the same bit for bit for any number of threads (the batches
// follow the colour blocks, which follow the mesh; a CPU without AVX2 batches differently, and FMA
// rounds differently).
#pragma once

#include <array>
#include <type_traits>
#include <utility>

#include "host/assembly/cell_kernel.hpp"
#include "host/assembly/lanes.hpp"
#include "softik/exec/forall.hpp"
#include "softik/fem/materials/materials.hpp"

namespace softik::assembly {

/// Cells per batch: two doubles fill an SSE2 register, the x86-64 baseline every build targets
/// (four lanes on it were slower: bench/RESULTS.md). Where the CPU has AVX2 and FMA, batches of
/// four go first (assemble_tet4_batches_avx2); eight with AVX-512 were no faster on Zen 5.
constexpr int kCellLanes = 2;

template <class E, class M, class Form>
constexpr bool has_cell_batch = std::is_same<E, fem::Tet4>::value &&
                                ((std::is_same<M, fem::LinearElastic>::value &&
                                  std::is_same<Form, RotatedCorotational>::value) ||
                                 ((std::is_same<M, fem::NeoHookean>::value || fem::is_decoupled_i1<M>::value) &&
                                  std::is_same<Form, TotalLagrangian>::value));

/// Whether a pass of a batched formulation goes in batches: one design (a host pass covers one),
/// the polar rotation (corotational) or the pointwise volume term without the SPD projection
/// (total Lagrangian); the other variants run one cell at a time.
template <class M, class Form>
bool batches_pass(const CellPass<exec::Space::Host>& p) {
  if (p.num_designs != 1) return false;
  if constexpr (is_corotational<Form>)
    return p.rotation == fem::RotationMethod::Polar;
  else
    return p.dilatation == fem::Dilatation::Pointwise && !p.project_spd;
}

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

/// The gather and the outputs of Tet4 cells c0 .. c0 + W - 1 of design 0, as assemble_cell's:
/// the positions, rest gradients (dN: the point's; the centre's for the corotational frame), weights
/// and Lame parameters as lanes; each lane's energy and force written, its K blocks scattered.
template <int W, class M, class Form>
struct Tet4Lanes {
  using E = fem::Tet4;
  using T = Lanes<W>;
  static constexpr int n = E::num_nodes, d = E::dim;
  using Cell = GatheredCell<E, M, Form, exec::Space::Host>;
  const CellPass<exec::Space::Host>& p;
  const int c0;
  Real* K;
  std::array<Cell, W> cells;
  fem::TMat<T, n, d> x, dN;
  T w, lambda, mu;  ///< lambda and mu: LinearElastic, NeoHookean (the decoupled laws read cells[l].material)
  int rows[W][n];

  /// The K lines of the cells prefetch_cells ahead asked for, then the cells gathered.
  static SOFTIK_HOST_FLATTEN std::array<Cell, W> prefetch_and_gather(const CellPass<exec::Space::Host>& p, int c0) {
    for (int l = 0; l < W; ++l) prefetch_cell_slots<E>(p, p.K ? p.K.data : nullptr, c0 + l + p.prefetch_cells);
    return gather_cells<Cell>(p, c0, p.status.data, std::make_integer_sequence<int, W>());
  }

  SOFTIK_HOST_FLATTEN Tet4Lanes(const CellPass<exec::Space::Host>& pass, int first)
      : p(pass), c0(first), K(pass.K ? pass.K.data : nullptr), cells(prefetch_and_gather(pass, first)) {
    for (int a = 0; a < n; ++a)
      for (int i = 0; i < d; ++i) {
        x(a, i) = T::from([&](int l) { return cells[l].xe(a, i); });
        dN(a, i) = T::from([&](int l) { return cells[l].rest.dN_dX[0](a, i); });
      }
    w = T::from([&](int l) { return cells[l].rest.w_detJ[0]; });
    if constexpr (!fem::is_decoupled_i1<M>::value) {
      lambda = T::from([&](int l) { return cells[l].material.lambda; });
      mu = T::from([&](int l) { return cells[l].material.mu; });
    }
    if (K)
      for (int l = 0; l < W; ++l) {
        const CellRows<E, exec::Space::Host> cell_rows(p, cells[l].nodes);
        for (int a = 0; a < n; ++a) rows[l][a] = cell_rows.rows[a];
      }
  }

  /// F = x^T G for rest gradients G (fem::deformation_gradient).
  template <class MG>
  fem::TMat<T, d, d> deformation_gradient(const MG& G) const {
    fem::TMat<T, d, d> F;
    for (int i = 0; i < d; ++i)
      for (int j = 0; j < d; ++j)
        F(i, j) = x(0, i) * G(0, j) + x(1, i) * G(1, j) + x(2, i) * G(2, j) + x(3, i) * G(3, j);
    return F;
  }

  /// Each lane's energy and force (row a of f: node a), as write_cell_outputs.
  template <Scatter mode>
  void write(const T& energy, const fem::TMat<T, n, d>& f) const {
    for (int l = 0; l < W; ++l) {
      fem::ElementVector<E> fe;
      if (p.force)
        for (int a = 0; a < n; ++a)
          for (int i = 0; i < d; ++i) fe[a * d + i] = f(a, i)[l];
      write_cell_outputs<E, mode>(p, 0, c0 + l, cells[l].nodes, energy[l], fe);
    }
  }

  /// Block (a, b) of every lane whose `skip` is false added to K.
  template <Scatter mode>
  void scatter(int a, int b, const fem::TMat<T, d, d>& block, const bool* skip = nullptr) const {
    for (int l = 0; l < W; ++l)
      if (!skip || !skip[l]) scatter_block<mode, E>(p, K, c0 + l, rows[l], a, b, LaneOf<fem::TMat<T, d, d>>{block, l});
  }
};

/// A hyperelastic batch's energy and force written: where the pass wants the force, pk1(P) sets the
/// one point's P and f_a = -w P dN_a (nothing from the lanes that are not upright).
template <Scatter mode, class Batch, class Mask, class Pk1, class T = typename Batch::T>
SOFTIK_HOST_FLATTEN void write_hyperelastic_outputs(const Batch& cells, const Mask& upright, const T& energy,
                                                    Pk1&& pk1) {
  constexpr int n = Batch::n, d = Batch::d;
  fem::TMat<T, n, d> f;
  if (cells.p.force) {
    fem::TMat<T, d, d> P;
    pk1(P);
    for (int a = 0; a < n; ++a)
      for (int i = 0; i < d; ++i) f(a, i) = T(0.0);
    fem::add_point_force<n, d>(P, cells.dN, cells.w, [&](int a, int i) -> T& { return f(a, i); });
    for (int a = 0; a < n; ++a)
      for (int i = 0; i < d; ++i) f(a, i) = lane_select(upright, f(a, i), T(0.0));
  }
  cells.template write<mode>(energy, f);
}

/// Cells c0 .. c0 + W - 1 of design 0 (a host pass covers one design) through the batched element
/// of M and Form: the rotated corotational Tet4 of assemble_cell's streamed path, or the total
/// Lagrangian Tet4 of hyperelastic_element (neo-Hookean or a decoupled Ibar1 law), W cells at once. Flattened as
/// assemble_cell is: left out of line, prefetch_cell_slots (nothing but prefetches) was taken for a
/// function without effects and its calls deleted by g++ (K's rows then waited for memory: 0.75x at
/// 1M cells).
template <int W, class M, class Form, Scatter mode>
SOFTIK_HOST_FLATTEN void assemble_tet4_batch(const CellPass<exec::Space::Host>& p, int c0) {
  using Batch = Tet4Lanes<W, M, Form>;
  using T = typename Batch::T;
  constexpr int n = Batch::n, d = Batch::d;
  const Batch cells(p, c0);
  T energy = 0.0;
  if constexpr (is_corotational<Form>) {
    fem::TMat<T, n, d> f, dN_center;
    for (int a = 0; a < n; ++a)
      for (int i = 0; i < d; ++i)
        dN_center(a, i) = T::from([&](int l) { return cells.cells[l].rest.dN_dX_center(a, i); });
    // F at the centre and its polar rotation.
    const fem::TMat<T, d, d> F = cells.deformation_gradient(dN_center);
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
    fem::TMat<T, n, d> g_hat;
    fem::rotated_stress_simplex<n>(cells.lambda, cells.mu, cells.w, cells.dN, R, F, p.cell_energy ? &energy : nullptr,
                                   bool(p.force), g_hat);
    if (p.force) fem::rotated_force<n, d, T>(R, g_hat, f);
    cells.template write<mode>(energy, f);  // the polar rotation is defined for every det F: always admissible
    if (!cells.K) return;
    fem::rotated_blocks_simplex<n, d>(
        cells.lambda, cells.mu, cells.w, cells.dN, R,
        [&](int a, int b, const fem::TMat<T, d, d>& block) { cells.template scatter<mode>(a, b, block); });
  } else {
    // hyperelastic_element at Tet4's one point: F = x^T dN, J = det F. A lane with J <= 0 is
    // recorded (admissible) and, as one whose J is not finite (its position is, by the gather), adds
    // nothing: the laws are undefined there (log J, J^(-2/3)), and the lane is computed at F = I.
    fem::TMat<T, d, d> F = cells.deformation_gradient(cells.dN);
    fem::TMat<T, d, d> G = fem::cofactor(F);  // F^-T = G / J
    T J = F(0, 0) * G(0, 0) + F(1, 0) * G(1, 0) + F(2, 0) * G(2, 0);
    const auto upright = J > T(0.0);
    bool skip[W] = {};
    if (!lanes_all(upright)) {
      for (int l = 0; l < W; ++l) {
        if (upright[l]) continue;
        skip[l] = true;
        if (J[l] <= 0) exec::atomic_min(&p.status.data->first_invalid_cell, c0 + l);
      }
      for (int i = 0; i < d; ++i)
        for (int j = 0; j < d; ++j) {
          F(i, j) = lane_select(upright, F(i, j), T(i == j ? 1.0 : 0.0));
          G(i, j) = lane_select(upright, G(i, j), T(i == j ? 1.0 : 0.0));
        }
      J = lane_select(upright, J, T(1.0));
    }
    if constexpr (std::is_same<M, fem::NeoHookean>::value) {
      const T logJ = log(J);
      const T inv_J = 1.0 / J;
      fem::TMat<T, d, d> F_inv_T;
      for (int i = 0; i < d; ++i)
        for (int j = 0; j < d; ++j) F_inv_T(i, j) = G(i, j) * inv_J;
      if (p.cell_energy) {
        T trC(0.0);  // tr C = F : F
        for (int i = 0; i < d; ++i)
          for (int j = 0; j < d; ++j) trC = trC + F(i, j) * F(i, j);
        energy = lane_select(upright, cells.w * M::energy(cells.lambda, cells.mu, trC, logJ), T(0.0));
      }
      write_hyperelastic_outputs<mode>(
          cells, upright, energy, [&](fem::TMat<T, d, d>& P) { M::pk1(cells.lambda, cells.mu, F, F_inv_T, logJ, P); });
      if (!cells.K) return;
      M::template stiffness_blocks<n>(
          cells.lambda, cells.mu, logJ, F_inv_T, cells.dN, cells.w,
          [&](int a, int b, const fem::TMat<T, d, d>& block) { cells.template scatter<mode>(a, b, block, skip); });
    } else {
      // A decoupled Ibar1 law (materials/decoupled_i1.hpp): the kinematics, P and K in lanes; W, U and
      // their derivatives, a few operations, from each lane's own law (cells may differ in law
      // constants and volumetric term).
      const fem::I1Kinematics<T> k = fem::i1_kinematics(F, G, J);
      Real w1[W], w11[W], du[W], d2u[W], psi[W];
      for (int l = 0; l < W; ++l) {
        const M& law = cells.cells[l].material;
        const fem::IsochoricDerivatives dW = law.derivatives(k.I1bar[l]);
        const fem::VolumetricTerm u = fem::volumetric_term(law.volumetric, law.D1, J[l]);
        w1[l] = dW.W1;
        w11[l] = dW.W11;
        du[l] = u.dU;
        d2u[l] = u.d2U;
        psi[l] = p.cell_energy ? law.isochoric_energy(k.I1bar[l]) + u.U : 0.0;
      }
      const auto lanes_of = [](const Real* v) { return T::from([&](int l) { return v[l]; }); };
      const T W1 = lanes_of(w1), W11 = lanes_of(w11), dU = lanes_of(du), d2U = lanes_of(d2u);
      if (p.cell_energy) energy = lane_select(upright, cells.w * lanes_of(psi), T(0.0));
      write_hyperelastic_outputs<mode>(cells, upright, energy,
                                       [&](fem::TMat<T, d, d>& P) { fem::decoupled_i1_pk1(F, k, W1, dU, P); });
      if (!cells.K) return;
      fem::decoupled_i1_stiffness_blocks<n>(
          F, k, W1, W11, dU, d2U, cells.dN, cells.w,
          [&](int a, int b, const fem::TMat<T, d, d>& block) { cells.template scatter<mode>(a, b, block, skip); });
    }
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
/// The batches of four cells of [first, last), compiled for AVX2 + FMA (everything inlined into
/// this one function, so no code shared with the rest of the library is built for those
/// instructions); returns the first cell left. Called only where the CPU has both (cpu_has_avx2_fma).
template <class M, class Form, Scatter mode>
__attribute__((target("avx2,fma"), flatten)) int assemble_tet4_batches_avx2(const CellPass<exec::Space::Host>& p,
                                                                            int first, int last) {
  for (; first + 4 <= last; first += 4) assemble_tet4_batch<4, M, Form, mode>(p, first);
  return first;
}

inline bool cpu_has_avx2_fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}

/// Cells of eight points or more whose stiffness is summed over the points in closed form (Hex8 of
/// fem::NeoHookean and of the decoupled Ibar1 laws; fem::emit_summed_blocks): one at a time, but
/// built for AVX2 + FMA: the Hex8 assembly of these laws 1.20-1.30x faster (bench/RESULTS.md, "The
/// closed-form stiffness summed over a cell's points"); a stand-alone Tet10 cell (4 points) gained
/// nothing, so Tet10 stays as built.
template <class E, class M, class Form>
constexpr bool has_avx2_cells = E::dim == 3 && E::num_quad >= 8 &&
                                fem::closed_form_stiffness<M>::value&& std::is_same<Form, TotalLagrangian>::value;

/// The cells [first, last), assemble_cell compiled for AVX2 + FMA (everything inlined into this
/// function, as in assemble_tet4_batches_avx2). Called only where the CPU has both.
template <class E, class M, class Form, Scatter mode>
__attribute__((target("avx2,fma"), flatten)) int assemble_cells_avx2(const CellPass<exec::Space::Host>& p, int first,
                                                                     int last) {
  for (; first < last; ++first) assemble_cell<E, M, Form, mode>(p, first);
  return first;
}
#endif

/// The cells [first, last) of one colour block, in batches where the formulation has them.
template <class E, class M, class Form, Scatter mode>
struct AssembleCellRange {
  CellPass<exec::Space::Host> pass;
  void operator()(int first, int last) const {
    int i = first;
    if constexpr (has_cell_batch<E, M, Form>) {
      if (batches_pass<M, Form>(pass)) {
#if defined(__x86_64__) && defined(__GNUC__)
        if (cpu_has_avx2_fma()) i = assemble_tet4_batches_avx2<M, Form, mode>(pass, i, last);
#endif
        for (; i + kCellLanes <= last; i += kCellLanes) assemble_tet4_batch<kCellLanes, M, Form, mode>(pass, i);
      }
    }
#if defined(__x86_64__) && defined(__GNUC__)
    if constexpr (has_avx2_cells<E, M, Form>)
      if (cpu_has_avx2_fma()) i = assemble_cells_avx2<E, M, Form, mode>(pass, i, last);
#endif
    for (; i < last; ++i) assemble_cell<E, M, Form, mode>(pass, i);
  }
};

/// One host pass over every cell of `pass`, block by block of `colours`.
template <class E, class M, class Form>
void assemble_cell_blocks(const exec::HostColours& colours, const CellPass<exec::Space::Host>& pass) {
  exec::forall_blocks(colours, pass.num_cells * pass.num_designs,
                      AssembleCellRange<E, M, Form, Scatter::Coloured>{pass});
}

}  // namespace softik::assembly
