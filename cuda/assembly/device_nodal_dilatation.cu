// DeviceNodalDilatation: the average nodal pressure's node tables and passes on the GPU.
#include "cuda/assembly/device_nodal_dilatation.hpp"

#include <vector>

#include "cuda/exec/cuda_check.hpp"
#include "cuda/exec/forall_cuda.cuh"
#include "host/assembly/cell_status.hpp"
#include "host/assembly/nodal_dilatation.hpp"

namespace softik::cuda {

namespace {

using assembly::CellStatus;
using assembly::kNoIndex;

}  // namespace

DeviceNodalDilatation::DeviceNodalDilatation(const Assembler& host, const DeviceElement& element, std::size_t law,
                                             const DevicePass& rest_pass)
    : nodes_per_cell_(nodes_per_cell(host.mesh().cell_type)), dim_(host.mesh().dim), cells_(rest_pass.nodes) {
  const std::size_t num_cells = static_cast<std::size_t>(rest_pass.num_cells);
  DeviceArray<Real> volumes(num_cells);
  element.launch_cell_volumes(rest_pass, law, volumes.get());
  std::vector<Real> rest_volumes(num_cells);
  SOFTIK_CUDA_CHECK(cudaMemcpy(rest_volumes.data(), volumes.get(), volumes.bytes(), cudaMemcpyDeviceToHost));
  const NodalDilatation tables_of(host.mesh(), rest_volumes, host.free_dof_index(), host.pattern());
  const NodalDilatation::Tables& t = tables_of.tables();
  const std::size_t nodes = t.rest_volume.size(), npc = static_cast<std::size_t>(nodes_per_cell_),
                    d = static_cast<std::size_t>(dim_);
  const std::size_t bytes =
      (t.cells_ptr.size() + t.cells_of_node.size() + t.ring_ptr.size() + 2 * t.ring.size() + t.ring_slots.size()) *
          sizeof(int) +
      t.slot_ptr.size() * sizeof(std::size_t) +
      (5 * nodes + 2 * num_cells + num_cells * npc * d + t.ring.size() * d) * sizeof(Real);
  std::size_t free_bytes = 0, total_bytes = 0;
  SOFTIK_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  SOFTIK_CHECK(bytes <= free_bytes,
               "the GPU assembly's average nodal pressure (dilatation NodalMean) needs "
                   << bytes / 1e9 << " GB more device memory for its node tables (mostly the "
                   << t.ring_slots.size() / nodes << " second-ring slots per node); " << free_bytes / 1e9
                   << " GB are free: use a smaller mesh, free device memory, or assemble on the CPU");
  num_nodes_ = static_cast<int>(nodes);
  cells_ptr_ = upload(t.cells_ptr);
  cells_of_node_ = upload(t.cells_of_node);
  ring_ptr_ = upload(t.ring_ptr);
  ring_ = upload(t.ring);
  ring_owner_ = upload(t.ring_owner);
  slot_ptr_ = upload(t.slot_ptr);
  ring_slots_ = upload(t.ring_slots);
  rest_volume_ = upload(t.rest_volume);
  first_bad_ = DeviceArray<int>(1);
  cell_volume_ = std::move(volumes);
  theta_ = DeviceArray<Real>(nodes);
  pi_ = DeviceArray<Real>(nodes);
  kappa_ = DeviceArray<Real>(nodes);
  bulk_energy_ = DeviceArray<Real>(num_cells);
  volume_gradient_ = DeviceArray<Real>(num_cells * npc * d);
  ring_gradient_ = DeviceArray<Real>(t.ring.size() * d);
}

assembly::NodalTopology<exec::Space::Device> DeviceNodalDilatation::topology() const {
  assembly::NodalTopology<exec::Space::Device> t;
  t.num_nodes = num_nodes_;
  t.nodes_per_cell = nodes_per_cell_;
  t.dim = dim_;
  t.nodes = cells_;
  t.cells_ptr = {cells_ptr_.get(), cells_ptr_.size()};
  t.cells_of_node = {cells_of_node_.get(), cells_of_node_.size()};
  t.ring_ptr = {ring_ptr_.get(), ring_ptr_.size()};
  t.ring = {ring_.get(), ring_.size()};
  t.ring_owner = {ring_owner_.get(), ring_owner_.size()};
  t.slot_ptr = {slot_ptr_.get(), slot_ptr_.size()};
  t.ring_slots = {ring_slots_.get(), ring_slots_.size()};
  t.rest_volume = {rest_volume_.get(), rest_volume_.size()};
  return t;
}

void DeviceNodalDilatation::prepare(const DeviceElement& element, std::size_t law, const DevicePass& pass,
                                    const std::string& law_name, bool stiffness) {
  const std::size_t nodes = static_cast<std::size_t>(num_nodes_);
  SOFTIK_CUDA_CHECK(cudaMemsetAsync(first_bad_.get(), 0x7f, sizeof(int)));  // kNoIndex
  SOFTIK_CUDA_CHECK(cudaMemsetAsync(pi_.get(), 0, pi_.bytes()));
  SOFTIK_CUDA_CHECK(cudaMemsetAsync(kappa_.get(), 0, kappa_.bytes()));
  element.launch_cell_volumes(pass, law, cell_volume_.get());
  forall(exec::Cuda{128}, num_nodes_,
         assembly::NodalVolumeRatio<exec::Space::Device>{
             topology(), {cell_volume_.get(), cell_volume_.size()}, {theta_.get(), nodes}});
  const assembly::NodalBulkFields<exec::Space::Device> fields{{theta_.get(), nodes},
                                                              {rest_volume_.get(), nodes},
                                                              {pi_.get(), nodes},
                                                              {kappa_.get(), nodes},
                                                              {bulk_energy_.get(), bulk_energy_.size()},
                                                              {first_bad_.get(), 1}};
  element.launch_nodal_bulk(pass, law, fields);
  CellStatus status;
  int bad = kNoIndex;
  SOFTIK_CUDA_CHECK(cudaMemcpy(&status, pass.status.data, sizeof(CellStatus), cudaMemcpyDeviceToHost));  // waits
  SOFTIK_CUDA_CHECK(cudaMemcpy(&bad, first_bad_.get(), sizeof(int), cudaMemcpyDeviceToHost));
  assembly::check_cell_status(
      status, dim_,
      [&](int dof) {  // a non-finite position first, as on the CPU
        Real value = 0;
        SOFTIK_CUDA_CHECK(cudaMemcpy(&value, pass.x.data + dof, sizeof(Real), cudaMemcpyDeviceToHost));
        return value;
      },
      law_name);
  Real theta_bad = 0;
  if (bad != kNoIndex)
    SOFTIK_CUDA_CHECK(cudaMemcpy(&theta_bad, theta_.get() + bad, sizeof(Real), cudaMemcpyDeviceToHost));
  check_nodal_volume_ratio(bad == kNoIndex ? -1 : bad, theta_bad, law_name);
  if (stiffness) SOFTIK_CUDA_CHECK(cudaMemsetAsync(volume_gradient_.get(), 0, volume_gradient_.bytes()));
}

void DeviceNodalDilatation::cell_pass_fields(DevicePass& pass, bool stiffness) const {
  pass.nodal_pressure = {pi_.get(), pi_.size()};
  if (stiffness) pass.volume_gradient = {volume_gradient_.get(), volume_gradient_.size()};
}

void DeviceNodalDilatation::add_second_ring(bool project_spd, Real* K, std::size_t nnz) const {
  const assembly::NodalTopology<exec::Space::Device> t = topology();
  forall(exec::Cuda{128}, num_nodes_,
         assembly::RingVolumeGradient<exec::Space::Device>{
             t, {volume_gradient_.get(), volume_gradient_.size()}, {ring_gradient_.get(), ring_gradient_.size()}});
  forall(exec::Cuda{128}, static_cast<int>(ring_gradient_.size()),
         assembly::SecondRingRow<assembly::Scatter::Atomic, exec::Space::Device>{
             t, {kappa_.get(), kappa_.size()}, {ring_gradient_.get(), ring_gradient_.size()}, project_spd, {K, nnz}});
}

}  // namespace softik::cuda
