// Template body of ElementKernels for one element trait E and one material law M.
// Included only by host/element_kernels_<trait>.cpp.
#pragma once

#include <cmath>
#include <string>
#include <type_traits>
#include <variant>

#include "element_dispatch.hpp"
#include "element_kernels.hpp"
#include "softik/fem/element_stress.hpp"
#include "softik/fem/sym_eigen3.hpp"

namespace softik {

template <class E, class M>
class ElementKernelsImpl final : public ElementKernels {
  static constexpr int d = E::dim, n = E::num_nodes, nd = n * d;

 public:
  ElementKernelsImpl(const Mesh& mesh, std::vector<M> materials, const AssemblyOptions& options)
      : materials_(std::move(materials)), options_(options) {
    const int num_cells = mesh.num_cells();
    rest_.resize(static_cast<size_t>(num_cells));
    for (int c = 0; c < num_cells; ++c) {
      const Real min_detJ =
          fem::compute_rest_data<E>(detail::cell_coordinates<E>(mesh, mesh.X.data(), 3, c), rest_[static_cast<size_t>(c)]);
      SOFTIK_CHECK(min_detJ > 0, "cell " << c << " is inverted or degenerate at rest (det J = " << min_detJ
                                         << "): fix its node order or remesh");
    }
  }

  void assemble(const CellLoop& loop, const Real* x, Real* cell_energy, Real* force, Real* K) const override {
    const int num_cells = loop.mesh->num_cells();
    int first_inverted = num_cells;
    for (int k = 0; k < loop.num_colors; ++k) {
      const int begin = loop.color_ptr[k], end = loop.color_ptr[k + 1];
#pragma omp parallel for num_threads(loop.num_threads) schedule(dynamic, 1) if (end - begin > 1)
      for (int idx = begin; idx < end; ++idx) {
        const int first = loop.color_blocks[idx] * loop.block_size;
        const int last = std::min(num_cells, first + loop.block_size);
        for (int c = first; c < last; ++c) {
          const fem::NodeMatrix<E> xe = detail::cell_coordinates<E>(*loop.mesh, x, d, c);
          Real energy = 0;
          fem::ElementVector<E> fe;
          fem::ElementMatrix<E> Ke;
          fem::ElementOutputs<E> out;
          if (cell_energy) out.energy = &energy;
          if (force) out.force = &fe;
          if (K) out.stiffness = &Ke;
          if (!evaluate(c, xe, out)) {
#pragma omp critical(softik_inverted_cell)
            first_inverted = std::min(first_inverted, c);
          }
          if (cell_energy) cell_energy[c] = energy;
          const int* nodes = loop.mesh->cell(c);
          if (force)
            for (int a = 0; a < n; ++a)
              for (int i = 0; i < d; ++i) force[static_cast<size_t>(nodes[a]) * d + i] += fe[a * d + i];
          if (K) {
            if (options_.project_spd) fem::project_spd<nd>(Ke);
            const int* slot = loop.slots + static_cast<size_t>(c) * nd * nd;
            for (int r = 0; r < nd; ++r)
              for (int s = 0; s < nd; ++s)
                if (slot[r * nd + s] >= 0) K[slot[r * nd + s]] += Ke(r, s);
          }
        }
      }
    }
    SOFTIK_CHECK_NUMERICAL(first_inverted == num_cells,
                 "cell " << first_inverted << " is inverted in the current configuration (det F <= 0), where the "
                         << (options_.formulation == Formulation::Corotational ? "QR corotational rotation"
                                                                              : material_name(Material(material(first_inverted))))
                         << " formulation is undefined: take smaller load steps, or use StableNeoHookean or the polar "
                            "corotational formulation, which tolerate inversion");
  }

  void von_mises(const CellLoop& loop, const Real* x, Real* out) const override {
    const int num_cells = loop.mesh->num_cells();
    const bool corotational = options_.formulation == Formulation::Corotational;
#pragma omp parallel for num_threads(loop.num_threads) schedule(static) if (num_cells >= 2 * loop.block_size)
    for (int c = 0; c < num_cells; ++c)
      out[c] = fem::element_von_mises<E>(material(c), rest_[static_cast<size_t>(c)],
                                         detail::cell_coordinates<E>(*loop.mesh, x, d, c), corotational,
                                         options_.rotation);
  }

  void lumped_mass(const CellLoop& loop, Real density, Real* out) const override {
    for (int c = 0; c < loop.mesh->num_cells(); ++c) {
      const auto m = fem::element_lumped_mass<E>(rest_[static_cast<size_t>(c)], density);
      const int* nodes = loop.mesh->cell(c);
      for (int a = 0; a < n; ++a)
        for (int i = 0; i < d; ++i) out[static_cast<size_t>(nodes[a]) * d + i] += m[a];
    }
  }

 private:
  const M& material(int c) const { return materials_.size() == 1 ? materials_[0] : materials_[static_cast<size_t>(c)]; }

  /// Evaluates cell c; returns false when the cell is inverted in xe and the formulation is
  /// undefined there (log J laws, QR corotation).
  bool evaluate(int c, const fem::NodeMatrix<E>& xe, fem::ElementOutputs<E> out) const {
    const fem::RestData<E>& rest = rest_[static_cast<size_t>(c)];
    if constexpr (std::is_same_v<M, fem::LinearElastic>) {
      if (options_.formulation == Formulation::Corotational) {
        const Real detF = fem::corotational_element<E>(material(c), rest, xe, options_.rotation,
                                                       options_.corotational_tangent, out);
        return detF > 0 || options_.rotation == fem::RotationMethod::Polar;
      }
    }
    const Real detF = fem::hyperelastic_element<E>(material(c), rest, xe, out);
    return detF > 0 || fem::tolerates_inversion<M>::value;
  }

  std::vector<fem::RestData<E>> rest_;
  std::vector<M> materials_;
  AssemblyOptions options_;
};

template <class E>
std::unique_ptr<ElementKernels> make_element_kernels_for(const Mesh& mesh, const std::vector<Material>& materials,
                                                         const AssemblyOptions& options) {
  return std::visit(
      [&](const auto& first) -> std::unique_ptr<ElementKernels> {
        using M = std::decay_t<decltype(first)>;
        std::vector<M> typed;
        typed.reserve(materials.size());
        for (size_t k = 0; k < materials.size(); ++k) {
          const M* m = std::get_if<M>(&materials[k]);
          SOFTIK_CHECK(m != nullptr, "material " << k << " is a " << material_name(materials[k])
                                                 << " but material 0 is a " << material_name(materials[0])
                                                 << ": one law per mesh (per-cell parameters may differ)");
          typed.push_back(*m);
          // The small-strain tangent of any admissible law is isotropic with shear modulus
          // mu > 0 and bulk modulus lambda + 2 mu / 3 > 0; this also catches laws whose
          // parameters were set directly, bypassing the checked factories.
          const fem::Mat9 C = m->dPdF(fem::Mat3::Identity());
          const Real mu = C(fem::flat(0, 1), fem::flat(0, 1)), lambda = C(fem::flat(0, 0), fem::flat(1, 1));
          SOFTIK_CHECK(std::isfinite(mu) && std::isfinite(lambda) && mu > 0 && lambda + 2 * mu / 3 > 0,
                       "material " << k << (materials.size() == 1 ? " (all cells)" : " (cell " + std::to_string(k) + ")")
                                   << ", a " << material_name(materials[k]) << ", has a small-strain shear modulus "
                                   << mu << " and bulk modulus " << lambda + 2 * mu / 3
                                   << ": both must be positive and finite; build it with its from_young_poisson or "
                                      "from_constants factory, which check the parameters");
        }
        return std::make_unique<ElementKernelsImpl<E, M>>(mesh, std::move(typed), options);
      },
      materials.front());
}

}  // namespace softik
