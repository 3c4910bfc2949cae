// DeviceAssembler: uploads a host Assembler's cells, rest data, materials and slot map once,
// then runs the one cell kernel (host/assembly/cell_kernel.hpp) on the GPU through the
// per-element entry points of device_cells.hpp.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include <cub/device/device_segmented_reduce.cuh>

#include "cuda/assembly/device_assembler.hpp"
#include "cuda/assembly/device_cells.hpp"
#include "cuda/assembly/device_nodal_dilatation.hpp"
#include "cuda/backend_entries.hpp"
#include "cuda/exec/cuda_check.hpp"
#include "cuda/exec/device_array.hpp"
#include "cuda/exec/pinned_buffer.hpp"
#include "host/assembly/assembler_internals.hpp"
#include "host/assembly/cell_status.hpp"
#include "host/mesh/element_dispatch.hpp"
#include "softik/backend.hpp"

namespace softik::cuda {

using Internals = assembly::AssemblerInternals;

namespace {

using assembly::CellStatus;
using assembly::kNoIndex;

/// Uploads num_cells records of `words` entries each (record of cell c filled by fill(c, T*))
/// into the structure-of-arrays layout dst[w * num_cells + c], in chunks of about 32 MB so
/// that the host never holds a second copy of a whole array.
template <class T, class Fill>
void upload_transposed(T* dst, int num_cells, int words, Fill&& fill) {
  const std::size_t chunk_cells =
      std::max<std::size_t>(1, (std::size_t{32} << 20) / (sizeof(T) * static_cast<std::size_t>(words)));
  std::vector<T> record(static_cast<std::size_t>(words));
  std::vector<T> columns;
  for (std::size_t first = 0; first < static_cast<std::size_t>(num_cells); first += chunk_cells) {
    const std::size_t count = std::min(chunk_cells, static_cast<std::size_t>(num_cells) - first);
    columns.resize(count * static_cast<std::size_t>(words));
    for (std::size_t j = 0; j < count; ++j) {
      fill(static_cast<int>(first + j), record.data());
      for (int w = 0; w < words; ++w)
        columns[static_cast<std::size_t>(w) * count + j] = record[static_cast<std::size_t>(w)];
    }
    SOFTIK_CUDA_CHECK(cudaMemcpy2D(dst + first, static_cast<std::size_t>(num_cells) * sizeof(T), columns.data(),
                                   count * sizeof(T), count * sizeof(T), static_cast<std::size_t>(words),
                                   cudaMemcpyHostToDevice));
  }
}

std::size_t material_bytes(const std::vector<Material>& materials) {
  return std::visit([](const auto& m) { return sizeof(m); }, materials.front()) * materials.size();
}

/// Whether the stiffness of `host`'s passes is gathered (host/assembly/block_gather.hpp): the
/// rotated corotational tangent without the SPD projection on linear simplices.
bool gathered_stiffness_applies(const Assembler& host, const DeviceElement& element) {
  const AssemblyOptions& o = host.options();
  return element.launch_gathered != nullptr && o.formulation == Formulation::Corotational &&
         o.corotational_tangent == fem::CorotationalTangent::Rotated && !o.project_spd &&
         o.dilatation == fem::Dilatation::Pointwise &&
         std::holds_alternative<fem::LinearElastic>(host.materials().front());
}

/// Device bytes of the gathered stiffness's tables, at most: per cell its pair words (npc^2
/// ints, also the bound of the blocks, each 4 ints) and frame words.
std::size_t gather_bytes(const Assembler& host, const DeviceElement& element) {
  if (!gathered_stiffness_applies(host, element)) return 0;
  const std::size_t cells = static_cast<std::size_t>(host.mesh().num_cells());
  const std::size_t npc = static_cast<std::size_t>(nodes_per_cell(host.mesh().cell_type));
  return cells * (npc * npc * 5 * sizeof(int) + static_cast<std::size_t>(element.frame_words) * sizeof(Real));
}

}  // namespace

struct DeviceAssembler::Impl {
  int num_cells = 0, num_dofs = 0, num_free_dofs = 0, nnz = 0, dim = 3, nodes_per_cell_count = 0;
  DeviceElement element;
  std::size_t law = 0;
  std::string law_name;
  AssemblyOptions options;
  int material_stride = 0;
  DeviceArray<int> cells, block_slots, node_rows;
  DeviceArray<Real> rest, x, force, K, cell_energy;
  PinnedBuffer<Real> staging;  ///< x up and the force down (one caller at a time: the Assembler's mutex)
  DeviceArray<unsigned char> materials;
  DeviceArray<CellStatus> status;
  Real energy = 0;
  std::unique_ptr<DeviceNodalDilatation> nodal;  ///< Dilatation::NodalMean only
  // The gathered stiffness (gathered_stiffness_applies; set_block_gather turns it off).
  bool gather_available = false, gather_on = false;
  int num_blocks = 0;
  DeviceArray<int> gather_ptr, gather_pairs, gather_base, gather_row_a, gather_row_b;
  DeviceArray<Real> frames;
  // Designs (set_designs): materials[d * design_material_count + k], and the batch buffers.
  int num_designs = 0, design_material_count = 0;
  DeviceArray<unsigned char> design_materials;
  DeviceArray<Real> design_x, design_force, design_K, design_cell_energy;
  DeviceArray<Real> design_rest;  ///< per design rest words when set_designs got meshes (else empty)
  DeviceArray<CellStatus> design_status;
  std::vector<Real> design_energy;
  // Energy reduction: per-design sums of the cell energies (cub, no atomics: deterministic).
  DeviceArray<int> segment_offsets;  ///< d * num_cells, d = 0..designs
  DeviceArray<Real> energy_sums;
  DeviceArray<unsigned char> reduce_scratch;

  /// The mesh part of a pass and its state x (device views; outputs set by the caller).
  DevicePass pass_for(const Real* d_x) const;
  /// The gather tables as device views.
  DeviceGather gather_pass() const;
  /// Sums `designs` segments of num_cells cell energies into energy_sums; returns them.
  std::vector<Real> reduce_energies(const Real* d_cell_energy, int designs);
  // The constructor's phases (each commented at its definition):
  void check_device(const Assembler& host) const;
  void copy_sizes(const Assembler& host);
  void upload_mesh(const Assembler& host);
  void upload_materials(const std::vector<Material>& laws);
  void allocate_state();
  void upload_gather(const Assembler& host);
  void start_nodal_dilatation(const Assembler& host);
  // set_designs()'s phases (each commented at its definition):
  void check_designs(const std::vector<std::vector<Material>>& laws, const std::vector<const Mesh*>& meshes) const;
  void check_design_memory(const std::vector<std::vector<Material>>& laws, bool with_meshes) const;
  void release_designs();
  void upload_design_materials(const std::vector<std::vector<Material>>& laws);
  void allocate_designs(std::size_t D, const std::vector<const Mesh*>& meshes);
  /// The name check_cell_status gives an inverted cell's formulation.
  std::string formulation_name() const {
    return options.formulation == Formulation::Corotational ? std::string("QR corotational rotation") : law_name;
  }
};

DevicePass DeviceAssembler::Impl::pass_for(const Real* d_x) const {
  const std::size_t N = static_cast<std::size_t>(num_cells);
  DevicePass p;
  p.num_cells = num_cells;
  p.nodes = {{cells.get(), cells.size()}, exec::Layout::columns(N)};
  p.rest = {{rest.get(), rest.size()}, exec::Layout::columns(N)};
  p.block_slots = {{block_slots.get(), block_slots.size()}, exec::Layout::columns(N)};
  p.node_rows = {node_rows.get(), node_rows.size()};
  p.materials = {materials.get(), materials.size()};
  p.material_stride = static_cast<std::size_t>(material_stride);
  p.rotation = options.rotation;
  p.tangent = options.corotational_tangent;
  p.project_spd = options.project_spd;
  p.dilatation = options.dilatation;  // CellMean runs here; the Assembler keeps NodalMean on the CPU
  p.x = {d_x, static_cast<std::size_t>(num_dofs)};
  return p;
}

DeviceGather DeviceAssembler::Impl::gather_pass() const {
  DeviceGather g;
  g.num_blocks = num_blocks;
  g.ptr = {gather_ptr.get(), gather_ptr.size()};
  g.pairs = {gather_pairs.get(), gather_pairs.size()};
  g.base = {gather_base.get(), gather_base.size()};
  g.row_a = {gather_row_a.get(), gather_row_a.size()};
  g.row_b = {gather_row_b.get(), gather_row_b.size()};
  g.frames = {{frames.get(), frames.size()}, exec::Layout::records(static_cast<std::size_t>(element.frame_words))};
  return g;
}

std::vector<Real> DeviceAssembler::Impl::reduce_energies(const Real* d_cell_energy, int designs) {
  if (segment_offsets.size() < static_cast<std::size_t>(designs) + 1) {
    std::vector<int> offsets(static_cast<std::size_t>(designs) + 1);
    for (std::size_t d = 0; d < offsets.size(); ++d) offsets[d] = static_cast<int>(d) * num_cells;
    segment_offsets = DeviceArray<int>(offsets.size());
    SOFTIK_CUDA_CHECK(
        cudaMemcpy(segment_offsets.get(), offsets.data(), offsets.size() * sizeof(int), cudaMemcpyHostToDevice));
    energy_sums = DeviceArray<Real>(static_cast<std::size_t>(designs));
  }
  std::size_t scratch_bytes = 0;
  SOFTIK_CUDA_CHECK(cub::DeviceSegmentedReduce::Sum(nullptr, scratch_bytes, d_cell_energy, energy_sums.get(), designs,
                                                    segment_offsets.get(), segment_offsets.get() + 1,
                                                    cudaStreamPerThread));
  if (reduce_scratch.size() < scratch_bytes) reduce_scratch = DeviceArray<unsigned char>(scratch_bytes);
  SOFTIK_CUDA_CHECK(cub::DeviceSegmentedReduce::Sum(reduce_scratch.get(), scratch_bytes, d_cell_energy,
                                                    energy_sums.get(), designs, segment_offsets.get(),
                                                    segment_offsets.get() + 1, cudaStreamPerThread));
  std::vector<Real> sums(static_cast<std::size_t>(designs));
  SOFTIK_CUDA_CHECK(cudaMemcpy(sums.data(), energy_sums.get(), sums.size() * sizeof(Real), cudaMemcpyDeviceToHost));
  return sums;
}

std::size_t DeviceAssembler::required_device_bytes(const Assembler& host) {
  const Mesh& mesh = host.mesh();
  const DeviceElement element = device_element(mesh.cell_type);
  const std::size_t cells = static_cast<std::size_t>(mesh.num_cells());
  const std::size_t npc = static_cast<std::size_t>(nodes_per_cell(mesh.cell_type));
  return cells * (npc * sizeof(int) + static_cast<std::size_t>(element.rest_words + 1) * sizeof(Real) +
                  npc * npc * sizeof(int)) +
         static_cast<std::size_t>(mesh.num_nodes()) * sizeof(int) + material_bytes(host.materials()) +
         2 * static_cast<std::size_t>(host.num_dofs()) * sizeof(Real) +
         static_cast<std::size_t>(host.pattern().nnz()) * sizeof(Real) + sizeof(CellStatus) +
         gather_bytes(host, element);
}

DeviceAssembler::DeviceAssembler(const Assembler& host) : impl_(std::make_unique<Impl>()) {
  Impl& p = *impl_;
  p.element = device_element(host.mesh().cell_type);
  p.check_device(host);
  p.copy_sizes(host);
  p.upload_mesh(host);
  p.upload_materials(host.materials());
  p.allocate_state();
  if (gathered_stiffness_applies(host, p.element)) p.upload_gather(host);
  if (host.options().dilatation == fem::Dilatation::NodalMean) p.start_nodal_dilatation(host);
}

/// A usable device with the memory for the buffers, plus the local memory the driver reserves for
/// the kernel's stack frames, and cell and DOF counts that the kernel's indices hold.
void DeviceAssembler::Impl::check_device(const Assembler& host) const {
  const Mesh& mesh = host.mesh();
  std::string reason;
  SOFTIK_CHECK(device_available(&reason), "DeviceAssembler needs a usable CUDA device: " << reason);
  // Buffers, plus the local memory the driver reserves for the kernel's stack frames.
  int device = 0, sms = 0, threads_per_sm = 0;
  SOFTIK_CUDA_CHECK(cudaGetDevice(&device));
  SOFTIK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  SOFTIK_CUDA_CHECK(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  const std::size_t buffers = required_device_bytes(host);
  const std::size_t stacks =
      element.local_bytes_per_thread(host.materials().front().index(), host.options().formulation,
                                     host.options().corotational_tangent, host.options().project_spd) *
      static_cast<std::size_t>(sms) * static_cast<std::size_t>(threads_per_sm);
  std::size_t free_bytes = 0, total_bytes = 0;
  SOFTIK_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  SOFTIK_CHECK(buffers + stacks <= free_bytes,
               "the GPU assembly of " << mesh.num_cells() << " " << cell_type_name(mesh.cell_type) << " cells needs "
                                      << buffers / 1e9 << " GB of device memory for its buffers and up to "
                                      << stacks / 1e9 << " GB for the kernel's stack frames; " << free_bytes / 1e9
                                      << " GB of " << total_bytes / 1e9
                                      << " GB are free: use a smaller mesh or free device memory");
  SOFTIK_CHECK(mesh.num_cells() < kNoIndex && host.num_dofs() < kNoIndex,
               "the GPU assembly indexes cells and DOFs below " << kNoIndex << ", got " << mesh.num_cells()
                                                                << " cells and " << host.num_dofs()
                                                                << " DOFs: split the model");
}

/// The host assembler's sizes, options and law.
void DeviceAssembler::Impl::copy_sizes(const Assembler& host) {
  const Mesh& mesh = host.mesh();
  num_cells = mesh.num_cells();
  num_dofs = host.num_dofs();
  num_free_dofs = host.num_free_dofs();
  nnz = host.pattern().nnz();
  dim = mesh.dim;
  nodes_per_cell_count = nodes_per_cell(mesh.cell_type);
  options = host.options();
  const std::vector<Material>& materials = host.materials();
  law = materials.front().index();
  law_name = material_name(materials.front());
  material_stride = materials.size() == 1 ? 0 : 1;
}

/// The cells' nodes, rest data and block slots, one array per word across the cells
/// (upload_transposed), and the nodes' rows.
void DeviceAssembler::Impl::upload_mesh(const Assembler& host) {
  const Mesh& mesh = host.mesh();
  const int npc = nodes_per_cell(mesh.cell_type), slot_words = npc * npc;
  const std::size_t cells_count = static_cast<std::size_t>(num_cells);
  cells = DeviceArray<int>(cells_count * static_cast<std::size_t>(npc));
  upload_transposed(cells.get(), num_cells, npc, [&](int c, int* record) {
    std::memcpy(record, mesh.cell(c), sizeof(int) * static_cast<std::size_t>(npc));
  });
  rest = DeviceArray<Real>(cells_count * static_cast<std::size_t>(element.rest_words));
  upload_transposed(rest.get(), num_cells, element.rest_words,
                    [&](int c, Real* record) { element.pack_rest(mesh, c, record, 1); });
  const int* slots = Internals::block_slots(host).data();
  block_slots = DeviceArray<int>(cells_count * static_cast<std::size_t>(slot_words));
  upload_transposed(block_slots.get(), num_cells, slot_words, [&](int c, int* record) {
    std::memcpy(record, slots + static_cast<std::size_t>(c) * slot_words,
                sizeof(int) * static_cast<std::size_t>(slot_words));
  });
  node_rows = DeviceArray<int>(Internals::node_rows(host).size());
  SOFTIK_CUDA_CHECK(cudaMemcpy(node_rows.get(), Internals::node_rows(host).data(),
                               Internals::node_rows(host).size() * sizeof(int), cudaMemcpyHostToDevice));
}

/// The materials, copied bytewise as their one law's type.
void DeviceAssembler::Impl::upload_materials(const std::vector<Material>& laws) {
  std::visit(
      [&](const auto& first) {
        using M = std::decay_t<decltype(first)>;
        static_assert(std::is_trivially_copyable<M>::value, "material laws are copied to the device bytewise");
        std::vector<M> typed;
        typed.reserve(laws.size());
        for (const Material& m : laws) typed.push_back(std::get<M>(m));  // one law: Assembler checked it
        materials = DeviceArray<unsigned char>(typed.size() * sizeof(M));
        SOFTIK_CUDA_CHECK(cudaMemcpy(materials.get(), typed.data(), typed.size() * sizeof(M), cudaMemcpyHostToDevice));
      },
      laws.front());
}

/// The state, force, stiffness, cell energy and status buffers; x, the force and K start at zero.
void DeviceAssembler::Impl::allocate_state() {
  x = DeviceArray<Real>(static_cast<std::size_t>(num_dofs));
  force = DeviceArray<Real>(static_cast<std::size_t>(num_dofs));
  K = DeviceArray<Real>(static_cast<std::size_t>(nnz));
  cell_energy = DeviceArray<Real>(static_cast<std::size_t>(num_cells));
  status = DeviceArray<CellStatus>(1);
  SOFTIK_CUDA_CHECK(cudaMemset(x.get(), 0, x.bytes()));
  SOFTIK_CUDA_CHECK(cudaMemset(force.get(), 0, force.bytes()));
  SOFTIK_CUDA_CHECK(cudaMemset(K.get(), 0, K.bytes()));
}

/// The gathered stiffness's tables and frames (gathered_stiffness_applies), switched on.
void DeviceAssembler::Impl::upload_gather(const Assembler& host) {
  const assembly::BlockGatherTable table =
      assembly::build_block_gather(host.mesh(), Internals::block_slots(host), Internals::node_rows(host));
  auto upload_ints = [](DeviceArray<int>& dst, const std::vector<int>& src) {
    dst = DeviceArray<int>(src.size());
    SOFTIK_CUDA_CHECK(cudaMemcpy(dst.get(), src.data(), src.size() * sizeof(int), cudaMemcpyHostToDevice));
  };
  upload_ints(gather_ptr, table.ptr);
  upload_ints(gather_pairs, table.pairs);
  upload_ints(gather_base, table.base);
  upload_ints(gather_row_a, table.row_a);
  upload_ints(gather_row_b, table.row_b);
  num_blocks = table.num_blocks();
  frames = DeviceArray<Real>(static_cast<std::size_t>(num_cells) * static_cast<std::size_t>(element.frame_words));
  gather_available = gather_on = true;
}

/// Dilatation::NodalMean: the rest volumes from a pass at the rest positions, in the node tables
/// of the average nodal pressure.
void DeviceAssembler::Impl::start_nodal_dilatation(const Assembler& host) {
  const std::vector<Real> X = host.mesh().rest_positions();
  SOFTIK_CUDA_CHECK(cudaMemcpy(x.get(), X.data(), X.size() * sizeof(Real), cudaMemcpyHostToDevice));
  SOFTIK_CUDA_CHECK(cudaMemset(status.get(), 0x7f, sizeof(CellStatus)));
  DevicePass rest_pass = pass_for(x.get());
  rest_pass.status = {status.get(), 1};
  nodal = std::make_unique<DeviceNodalDilatation>(host, element, law, rest_pass);
}

DeviceAssembler::~DeviceAssembler() = default;
DeviceAssembler::DeviceAssembler(DeviceAssembler&&) noexcept = default;
DeviceAssembler& DeviceAssembler::operator=(DeviceAssembler&&) noexcept = default;

int DeviceAssembler::num_cells() const { return impl_->num_cells; }
int DeviceAssembler::num_dofs() const { return impl_->num_dofs; }
int DeviceAssembler::num_free_dofs() const { return impl_->num_free_dofs; }
int DeviceAssembler::nnz() const { return impl_->nnz; }
Real* DeviceAssembler::device_positions() { return impl_->x.get(); }
const Real* DeviceAssembler::device_force() const { return impl_->force.get(); }
const Real* DeviceAssembler::device_K_values() const { return impl_->K.get(); }
Real DeviceAssembler::energy() const { return impl_->energy; }
bool DeviceAssembler::gathers_stiffness() const { return impl_->gather_on; }
void DeviceAssembler::set_block_gather(bool on) { impl_->gather_on = on && impl_->gather_available; }

void DeviceAssembler::assemble(const std::vector<Real>& x, AssemblyRequest request) {
  Impl& p = *impl_;
  SOFTIK_CHECK(x.size() == static_cast<std::size_t>(p.num_dofs),
               "positions have " << x.size() << " entries, expected num_dofs = " << p.num_dofs);
  for (std::size_t k = 0; k < x.size(); ++k)
    SOFTIK_CHECK_NUMERICAL(std::isfinite(x[k]), "position of node " << k / p.dim << " component " << k % p.dim << " is "
                                                                    << x[k]
                                                                    << ": the state diverged or was not initialised");
  p.staging.to_device(p.x.get(), x.data(), x.size());
  assemble(p.x.get(), request);
}

void DeviceAssembler::assemble(const Real* d_x, AssemblyRequest request) {
  Impl& p = *impl_;
  SOFTIK_CHECK(d_x != nullptr, "DeviceAssembler::assemble: the device position pointer is null");
  CellStatus* status = p.status.get();
  SOFTIK_CUDA_CHECK(cudaMemsetAsync(status, 0x7f, sizeof(CellStatus)));  // kNoIndex, both
  if (request.force) SOFTIK_CUDA_CHECK(cudaMemsetAsync(p.force.get(), 0, p.force.bytes()));
  // The gathered stiffness writes every entry of K; the scatter adds to zeros.
  const bool gathered = request.stiffness && p.gather_on;
  if (request.stiffness && !gathered) SOFTIK_CUDA_CHECK(cudaMemsetAsync(p.K.get(), 0, p.K.bytes()));

  DevicePass pass = p.pass_for(d_x);
  pass.status = {status, 1};
  if (p.nodal) {  // the nodal passes before the cell pass (fem/dilatation.hpp, NodalMean)
    p.nodal->prepare(p.element, p.law, pass, p.formulation_name(), request.stiffness);
    p.nodal->cell_pass_fields(pass, request.stiffness);
  }
  if (request.energy) pass.cell_energy = {p.cell_energy.get(), p.cell_energy.size()};
  if (request.force) pass.force = {p.force.get(), p.force.size()};
  if (request.stiffness) pass.K = {p.K.get(), p.K.size()};
  if (gathered)
    p.element.launch_gathered(pass, p.gather_pass());
  else
    p.element.launch(pass, p.law, p.options.formulation);
  if (p.nodal && request.stiffness) p.nodal->add_second_ring(p.options.project_spd, p.K.get(), p.K.size());
  CellStatus result;
  SOFTIK_CUDA_CHECK(cudaMemcpy(&result, status, sizeof(CellStatus), cudaMemcpyDeviceToHost));  // waits
  assembly::check_cell_status(
      result, p.dim,
      [&](int dof) {
        Real value = 0;
        SOFTIK_CUDA_CHECK(cudaMemcpy(&value, d_x + dof, sizeof(Real), cudaMemcpyDeviceToHost));
        return value;
      },
      p.formulation_name());
  if (request.energy) {
    p.energy = p.reduce_energies(p.cell_energy.get(), 1).front();
    if (p.nodal)
      p.energy += p.reduce_energies(p.nodal->device_bulk_energy(), 1).front();  // sum_c sum_{a in c} V_c/n U(theta_a)
  }
}

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

void DeviceAssembler::download_force(std::vector<Real>& force) const {
  force.resize(static_cast<std::size_t>(impl_->num_dofs));
  impl_->staging.to_host(force.data(), impl_->force.get(), force.size());
}

void DeviceAssembler::download_K_values(std::vector<Real>& K_values) const {
  K_values.resize(static_cast<std::size_t>(impl_->nnz));
  SOFTIK_CUDA_CHECK(cudaMemcpy(K_values.data(), impl_->K.get(), impl_->K.bytes(), cudaMemcpyDeviceToHost));
}

std::vector<Real> DeviceAssembler::force() const {
  std::vector<Real> f;
  download_force(f);
  return f;
}

std::vector<Real> DeviceAssembler::K_values() const {
  std::vector<Real> K;
  download_K_values(K);
  return K;
}

DeviceElement device_element(CellType type) {
  return softik::detail::dispatch_element(type,
                                          [](auto tag) { return device_element<typename decltype(tag)::type>(); });
}

}  // namespace softik::cuda

namespace softik {
std::unique_ptr<DeviceAssembly> make_device_assembly(const Assembler& host) {
  return std::make_unique<cuda::DeviceAssembler>(host);
}
}  // namespace softik
