// Template body of the CPU ElementKernels for one element trait E and one material law M.
// Included only by the generated element_kernels_<trait>.cpp (element_kernels.cpp.in).
#pragma once

#include <cmath>
#include <string>
#include <type_traits>
#include <variant>

#include "host/assembly/cell_batch.hpp"
#include "host/assembly/cell_dispatch.hpp"
#include "host/assembly/element_kernels.hpp"
#include "host/assembly/nodal_kernel.hpp"

namespace softik {

template <class E, class M>
class ElementKernelsImpl final : public ElementKernels {
  static constexpr int d = E::dim, n = E::num_nodes, nd = n * d;
  static constexpr int words = assembly::rest_words<E>();

 public:
  ElementKernelsImpl(const Mesh& mesh, std::vector<M> materials, const AssemblyOptions& options)
      : materials_(std::move(materials)), options_(options) {
    const int num_cells = mesh.num_cells();
    rest_.resize(static_cast<size_t>(num_cells) * words);
    for (int c = 0; c < num_cells; ++c)
      assembly::pack_rest<E>(mesh, c, rest_.data() + static_cast<size_t>(c) * words, 1);
  }

  void assemble(const CellLoop& loop, const Real* x, Real* cell_energy, Real* force, Real* K,
                assembly::CellStatus& status, const NodalDilatationFields& nodal) const override {
    assembly::CellPass<exec::Space::Host> pass = host_pass(loop, x, status);
    const size_t num_cells = static_cast<size_t>(loop.mesh->num_cells());
    if (cell_energy) pass.cell_energy = {cell_energy, num_cells};
    if (force) pass.force = {force, static_cast<size_t>(loop.mesh->num_dofs())};
    if (K) pass.K = {K, 0};
    if (options_.dilatation == fem::Dilatation::NodalMean) {
      SOFTIK_ASSERT(nodal.nodal_pressure != nullptr, "a NodalMean pass without the nodal pressures");
      pass.nodal_pressure = {nodal.nodal_pressure, static_cast<size_t>(loop.mesh->num_nodes())};
      if (nodal.volume_gradient) pass.volume_gradient = {nodal.volume_gradient, num_cells * nd};
    }
    assembly::dispatch_formulation<M>(options_.formulation, options_.corotational_tangent, options_.project_spd,
                                      [&](auto tag) {
                                        using Form = typename decltype(tag)::type;
                                        assembly::assemble_cell_blocks<E, M, Form>(loop.colours, pass);
                                      });
  }

  void cell_volumes(const CellLoop& loop, const Real* x, Real* out) const override {
    assembly::CellStatus status;
    const assembly::CellPass<exec::Space::Host> pass = host_pass(loop, x, status);
    if constexpr (fem::BulkSplit<M>::available) {
      forall(exec::HostCells{loop.colours.num_threads}, pass.num_cells,
             assembly::CellVolume<E, M, exec::Space::Host>{pass, {out, static_cast<size_t>(pass.num_cells)}});
    } else {
      SOFTIK_CHECK_KIND(false, ErrorKind::Internal, "cell_volumes called for a law without a bulk term");
    }
  }

  int nodal_bulk(const CellLoop& loop, const Real* theta, const Real* V_node, Real* pi, Real* kappa,
                 Real* cell_energy) const override {
    assembly::CellStatus status;
    const assembly::CellPass<exec::Space::Host> pass = host_pass(loop, nullptr, status);
    int first_bad = assembly::kNoIndex;
    if constexpr (fem::BulkSplit<M>::available) {
      const size_t nodes = static_cast<size_t>(loop.mesh->num_nodes());
      const assembly::NodalBulkFields<exec::Space::Host> fields{{theta, nodes},
                                                                {V_node, nodes},
                                                                {pi, nodes},
                                                                {kappa, nodes},
                                                                {cell_energy, static_cast<size_t>(pass.num_cells)},
                                                                {&first_bad, 1}};
      // Coloured: the cells of one block scatter into their nodes without atomics, in a fixed order.
      forall(loop.colours, pass.num_cells,
             assembly::CellNodalBulk<E, M, assembly::Scatter::Coloured, exec::Space::Host>{pass, fields});
    } else {
      SOFTIK_CHECK_KIND(false, ErrorKind::Internal, "nodal_bulk called for a law without a bulk term");
    }
    return first_bad == assembly::kNoIndex ? -1 : first_bad;
  }

  void von_mises(const CellLoop& loop, const Real* x, Real* out, assembly::CellStatus& status) const override {
    const assembly::CellPass<exec::Space::Host> pass = host_pass(loop, x, status);
    const exec::HostView<Real> out_view{out, static_cast<size_t>(pass.num_cells)};
    assembly::dispatch_formulation<M>(options_.formulation, options_.corotational_tangent, options_.project_spd,
                                      [&](auto tag) {
                                        using Form = typename decltype(tag)::type;
                                        forall(exec::HostCells{loop.colours.num_threads}, pass.num_cells,
                                               assembly::CellVonMises<E, M, Form, exec::Space::Host>{pass, out_view});
                                      });
  }

  void lumped_mass(const CellLoop& loop, Real density, bool load_share, Real* out) const override {
    assembly::CellStatus status;
    const assembly::CellPass<exec::Space::Host> pass = host_pass(loop, nullptr, status);
    forall(loop.colours, pass.num_cells,
           assembly::CellLumpedMass<E, assembly::Scatter::Coloured, exec::Space::Host>{
               pass, density, {out, static_cast<size_t>(loop.mesh->num_dofs())}, load_share});
  }

  void mass_matrix(const CellLoop& loop, Real density, bool lumped, Real* out) const override {
    assembly::CellStatus status;
    const assembly::CellPass<exec::Space::Host> pass = host_pass(loop, nullptr, status);
    forall(
        loop.colours, pass.num_cells,
        assembly::CellMassMatrix<E, assembly::Scatter::Coloured, exec::Space::Host>{pass, density, lumped, {out, 0}});
  }

  std::string formulation_name() const override {
    if (options_.formulation == Formulation::Corotational) return "QR corotational rotation";
    return material_name(Material(materials_.front()));
  }

 private:
  assembly::CellPass<exec::Space::Host> host_pass(const CellLoop& loop, const Real* x,
                                                  assembly::CellStatus& status) const {
    const Mesh& mesh = *loop.mesh;
    const size_t num_cells = static_cast<size_t>(mesh.num_cells());
    assembly::CellPass<exec::Space::Host> pass;
    pass.num_cells = mesh.num_cells();
    pass.nodes = {{mesh.cells.data(), mesh.cells.size()}, exec::Layout::records(n)};
    pass.rest = {{rest_.data(), rest_.size()}, exec::Layout::records(words)};
    pass.block_slots = {{loop.block_slots, num_cells * n * n}, exec::Layout::records(n * n)};
    pass.node_rows = {loop.node_rows, static_cast<size_t>(mesh.num_nodes())};
    pass.materials = {reinterpret_cast<const unsigned char*>(materials_.data()), materials_.size() * sizeof(M)};
    pass.material_stride = materials_.size() == 1 ? 0 : 1;
    pass.rotation = options_.rotation;
    pass.tangent = options_.corotational_tangent;
    pass.project_spd = options_.project_spd;
    pass.dilatation = options_.dilatation;
    pass.x = {x, static_cast<size_t>(mesh.num_dofs())};
    pass.status = {&status, 1};
    pass.prefetch_cells = loop.prefetch_cells;
    return pass;
  }

  std::vector<Real> rest_;  ///< rest_words<E>() per cell, records layout
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
                       "material " << k
                                   << (materials.size() == 1 ? " (all cells)" : " (cell " + std::to_string(k) + ")")
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
