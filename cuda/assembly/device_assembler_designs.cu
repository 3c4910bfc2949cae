// DeviceAssembler's designs (device_assembler.hpp): set_designs uploads the materials (and,
// optionally, the rest data) of many designs of the assembler's mesh topology, and
// assemble_designs runs them all in one launch of the one cell kernel, each design's status
// checked on its own. The state is device_assembler_impl.hpp's, shared with device_assembler.cu.
#include <cstddef>
#include <exception>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "cuda/assembly/device_assembler.hpp"
#include "cuda/assembly/device_assembler_impl.hpp"
#include "cuda/exec/cuda_check.hpp"
#include "cuda/exec/device_array.hpp"
#include "host/assembly/cell_status.hpp"
#include "softik/error.hpp"
#include "softik/material.hpp"

namespace softik::cuda {

namespace {

using assembly::CellStatus;
using assembly::kNoIndex;

}  // namespace

/// The designs' materials and meshes fit this assembler: not NodalMean, one mesh per design (or
/// none) of the assembler's topology, below 65536 designs, every design the same count of
/// materials (one, or one per cell) of the assembler's law, and the cells of all the designs
/// within what one pass indexes.
void DeviceAssembler::Impl::check_designs(const std::vector<std::vector<Material>>& laws,
                                          const std::vector<const Mesh*>& meshes) const {
  SOFTIK_CHECK(!laws.empty(), "set_designs: give at least one design's materials");
  SOFTIK_CHECK(!nodal,
               "set_designs: designs assembled in one launch run the pointwise and cell-mean dilatations, "
               "not NodalMean (the average nodal pressure): evaluate NodalMean designs one by one (batch "
               "lockstep: off)");
  SOFTIK_CHECK(meshes.empty() || meshes.size() == laws.size(), "set_designs: " << meshes.size() << " meshes for "
                                                                               << laws.size()
                                                                               << " designs (give none, or one each)");
  for (std::size_t d = 0; d < meshes.size(); ++d) {
    const Mesh& m = *meshes[d];
    SOFTIK_CHECK(m.num_cells() == num_cells && m.num_dofs() == num_dofs && m.dim == dim,
                 "set_designs: design " << d << "'s mesh has " << m.num_cells() << " cells and " << m.num_dofs()
                                        << " DOFs, the assembler's " << num_cells << " and " << num_dofs
                                        << ": designs of one launch share the topology");
  }
  SOFTIK_CHECK(laws.size() < 65536,
               "set_designs: at most 65535 designs per launch, got " << laws.size() << ": split the batch");
  const std::size_t count = laws.front().size();
  SOFTIK_CHECK(count == 1 || count == static_cast<std::size_t>(num_cells),
               "set_designs: design 0 has " << count << " materials for " << num_cells
                                            << " cells: give one material, or one per cell");
  for (std::size_t d = 0; d < laws.size(); ++d) {
    SOFTIK_CHECK(laws[d].size() == count, "set_designs: design " << d << " has " << laws[d].size()
                                                                 << " materials, design 0 has " << count
                                                                 << ": every design needs the same count");
    for (std::size_t k = 0; k < count; ++k) {
      const Material& m = laws[d][k];
      SOFTIK_CHECK(m.index() == law, "set_designs: design " << d << " material " << k << " is " << material_name(m)
                                                            << ", the assembler's law is " << law_name
                                                            << ": designs share the law (the kernel)");
    }
  }
  const std::size_t D = laws.size();
  SOFTIK_CHECK(D * static_cast<std::size_t>(num_cells) < static_cast<std::size_t>(kNoIndex),
               "set_designs: " << D << " designs of " << num_cells << " cells exceed the " << kNoIndex
                               << " cells one pass indexes: evaluate the designs in smaller batches");
}

/// The device memory for the designs' buffers (with per design rest words when `with_meshes`)
/// is free, counting the buffers of the designs held now, which the new ones replace.
void DeviceAssembler::Impl::check_design_memory(const std::vector<std::vector<Material>>& laws,
                                                bool with_meshes) const {
  const std::size_t rest_words = static_cast<std::size_t>(element.rest_words) * static_cast<std::size_t>(num_cells);
  const std::size_t D = laws.size();
  const std::size_t bytes = D *
                                (2 * static_cast<std::size_t>(num_dofs) + static_cast<std::size_t>(nnz) +
                                 static_cast<std::size_t>(num_cells) + (with_meshes ? rest_words : 0)) *
                                sizeof(Real) +
                            D * material_bytes(laws.front()) + D * sizeof(CellStatus);
  std::size_t free_bytes = 0, total_bytes = 0;
  SOFTIK_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t held = design_x.bytes() + design_force.bytes() + design_K.bytes() + design_materials.bytes() +
                           design_cell_energy.bytes() + design_rest.bytes();
  SOFTIK_CHECK(bytes <= free_bytes + held, "assembling " << D << " designs of " << num_cells << " cells at once needs "
                                                         << bytes / 1e9 << " GB of device memory; "
                                                         << (free_bytes + held) / 1e9 << " GB are free: evaluate the "
                                                         << "designs in smaller batches");
}

/// The held designs' buffers freed before the new ones are allocated, and no designs until the
/// new buffers exist: a failed allocation after this leaves no dangling batch.
void DeviceAssembler::Impl::release_designs() {
  num_designs = 0;
  design_materials = DeviceArray<unsigned char>();
  design_x = DeviceArray<Real>();
  design_force = DeviceArray<Real>();
  design_K = DeviceArray<Real>();
  design_cell_energy = DeviceArray<Real>();
  design_rest = DeviceArray<Real>();
}

/// The designs' materials, design after design, copied bytewise as their one law's type
/// (materials[d * design_material_count + k]).
void DeviceAssembler::Impl::upload_design_materials(const std::vector<std::vector<Material>>& laws) {
  const std::size_t D = laws.size(), count = laws.front().size();
  std::visit(
      [&](const auto& first) {
        using M = std::decay_t<decltype(first)>;
        std::vector<M> typed;
        typed.reserve(D * count);
        for (const auto& design : laws)
          for (const Material& m : design) typed.push_back(std::get<M>(m));
        design_materials = DeviceArray<unsigned char>(typed.size() * sizeof(M));
        SOFTIK_CUDA_CHECK(
            cudaMemcpy(design_materials.get(), typed.data(), typed.size() * sizeof(M), cudaMemcpyHostToDevice));
      },
      laws.front().front());
  design_material_count = static_cast<int>(count);
}

/// The D designs' state, force, stiffness, cell energy and status buffers, each design's rest
/// words when `meshes` are given (in the layout of the shared table); x, the force and K start at
/// zero.
void DeviceAssembler::Impl::allocate_designs(std::size_t D, const std::vector<const Mesh*>& meshes) {
  const std::size_t rest_words = static_cast<std::size_t>(element.rest_words) * static_cast<std::size_t>(num_cells);
  design_x = DeviceArray<Real>(D * static_cast<std::size_t>(num_dofs));
  design_force = DeviceArray<Real>(D * static_cast<std::size_t>(num_dofs));
  design_K = DeviceArray<Real>(D * static_cast<std::size_t>(nnz));
  design_cell_energy = DeviceArray<Real>(D * static_cast<std::size_t>(num_cells));
  design_status = DeviceArray<CellStatus>(D);
  if (!meshes.empty()) {  // each design's rest words, in the layout of the shared table
    design_rest = DeviceArray<Real>(D * rest_words);
    for (std::size_t d = 0; d < D; ++d)
      upload_transposed(design_rest.get() + d * rest_words, num_cells, element.rest_words,
                        [&](int c, Real* record) { element.pack_rest(*meshes[d], c, record, 1); });
  }
  design_energy.assign(D, 0.0);
  SOFTIK_CUDA_CHECK(cudaMemset(design_x.get(), 0, design_x.bytes()));
  SOFTIK_CUDA_CHECK(cudaMemset(design_force.get(), 0, design_force.bytes()));
  SOFTIK_CUDA_CHECK(cudaMemset(design_K.get(), 0, design_K.bytes()));
}

void DeviceAssembler::set_designs(const std::vector<std::vector<Material>>& materials,
                                  const std::vector<const Mesh*>& meshes) {
  Impl& p = *impl_;
  p.check_designs(materials, meshes);
  p.check_design_memory(materials, !meshes.empty());
  p.release_designs();
  p.upload_design_materials(materials);
  p.allocate_designs(materials.size(), meshes);
  p.num_designs = static_cast<int>(materials.size());  // last: every buffer above is sized for D designs
}

int DeviceAssembler::num_designs() const { return impl_->num_designs; }
Real* DeviceAssembler::device_design_positions() { return impl_->design_x.get(); }
const Real* DeviceAssembler::device_design_force() const { return impl_->design_force.get(); }
const Real* DeviceAssembler::device_design_K_values() const { return impl_->design_K.get(); }
std::vector<Real> DeviceAssembler::design_energies() const { return impl_->design_energy; }

void DeviceAssembler::assemble_designs(const Real* d_x, AssemblyRequest request,
                                       std::vector<std::exception_ptr>* failures) {
  Impl& p = *impl_;
  SOFTIK_CHECK(p.num_designs > 0, "assemble_designs: call set_designs() first");
  SOFTIK_CHECK(d_x != nullptr, "assemble_designs: the device position pointer is null");
  const std::size_t D = static_cast<std::size_t>(p.num_designs);
  SOFTIK_CUDA_CHECK(cudaMemsetAsync(p.design_status.get(), 0x7f, D * sizeof(CellStatus)));  // kNoIndex
  if (request.force) SOFTIK_CUDA_CHECK(cudaMemsetAsync(p.design_force.get(), 0, p.design_force.bytes()));
  if (request.stiffness) SOFTIK_CUDA_CHECK(cudaMemsetAsync(p.design_K.get(), 0, p.design_K.bytes()));
  DevicePass pass = p.pass_for(d_x);
  pass.num_designs = p.num_designs;
  pass.materials = {p.design_materials.get(), p.design_materials.size()};
  pass.material_stride = p.design_material_count == 1 ? 0 : 1;
  pass.material_design_stride = static_cast<std::size_t>(p.design_material_count);
  pass.x = {d_x, D * static_cast<std::size_t>(p.num_dofs)};
  pass.x_stride = static_cast<std::size_t>(p.num_dofs);
  if (p.design_rest.size() > 0) {  // per design geometry: the same layout, one table per design
    pass.rest.values = {p.design_rest.get(), p.design_rest.size()};
    pass.rest_design_stride = p.design_rest.size() / D;
  }
  if (request.energy) pass.cell_energy = {p.design_cell_energy.get(), p.design_cell_energy.size()};
  if (request.force) pass.force = {p.design_force.get(), p.design_force.size()};
  pass.force_stride = static_cast<std::size_t>(p.num_dofs);
  if (request.stiffness) pass.K = {p.design_K.get(), p.design_K.size()};
  pass.K_stride = static_cast<std::size_t>(p.nnz);
  pass.status = {p.design_status.get(), D};
  p.element.launch(pass, p.law, p.options.formulation);
  std::vector<CellStatus> result(D);
  SOFTIK_CUDA_CHECK(cudaMemcpy(result.data(), p.design_status.get(), D * sizeof(CellStatus), cudaMemcpyDeviceToHost));
  if (failures) failures->assign(D, nullptr);
  for (std::size_t d = 0; d < D; ++d) {
    const Real* x_d = d_x + d * static_cast<std::size_t>(p.num_dofs);
    auto check = [&] {
      assembly::check_cell_status(
          result[d], p.dim,
          [&](int dof) {
            Real value = 0;
            SOFTIK_CUDA_CHECK(cudaMemcpy(&value, x_d + dof, sizeof(Real), cudaMemcpyDeviceToHost));
            return value;
          },
          p.formulation_name(), failures ? std::string() : "design " + std::to_string(d) + ": ");
    };
    if (!failures) {
      check();
      continue;
    }
    try {
      check();
    } catch (const Error&) {
      (*failures)[d] = std::current_exception();
    }
  }
  if (request.energy) p.design_energy = p.reduce_energies(p.design_cell_energy.get(), p.num_designs);
}

}  // namespace softik::cuda
