// DeviceAssembler: uploads a host Assembler's cells, rest data, materials and slot map once,
// then runs the one cell kernel (host/assembly/cell_kernel.hpp) on the GPU through the
// per-element entry points of device_cells.hpp. Its state is device_assembler_impl.hpp's; the
// designs of one launch (set_designs, assemble_designs) are in device_assembler_designs.cu.
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
#include "cuda/assembly/device_assembler_impl.hpp"
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
