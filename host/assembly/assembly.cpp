#include "softik/assembly.hpp"

#include <algorithm>
#include <bitset>
#include <cmath>
#include <limits>
#include <thread>
#include <utility>

#include "host/assembly/cell_status.hpp"
#include "host/assembly/device_assembly.hpp"
#include "host/assembly/element_kernels.hpp"
#include "host/assembly/nodal_dilatation.hpp"
#include "host/assembly/slot_map.hpp"
#include "host/exec/device_backend.hpp"
#include "host/mesh/element_dispatch.hpp"
#include "softik/error.hpp"

namespace softik {

int auto_block_size(int num_cells) {
  int size = kMaxAutoBlockSize;
  while (size > kMinAutoBlockSize && num_cells < kAutoBlocks * size) size /= 2;
  return size;
}

namespace {

constexpr int kMaxColors = 512;

/// Splits the cells into contiguous blocks of `block_size` and colours the blocks greedily so
/// that blocks sharing a node get different colours. Deterministic (block order). Returns false
/// when more than kMaxColors colours would be needed.
bool color_blocks(const Mesh& mesh, int block_size, std::vector<int>& color_ptr, std::vector<int>& color_blocks) {
  const int npc = nodes_per_cell(mesh.cell_type), num_cells = mesh.num_cells();
  const int num_blocks = (num_cells + block_size - 1) / block_size;
  std::vector<std::bitset<kMaxColors>> used(static_cast<size_t>(mesh.num_nodes()));
  std::vector<int> color(static_cast<size_t>(num_blocks));
  int num_colors = 0;
  for (int b = 0; b < num_blocks; ++b) {
    const int begin = b * block_size, end = std::min(num_cells, begin + block_size);
    std::bitset<kMaxColors> taken;
    for (int c = begin; c < end; ++c)
      for (int a = 0; a < npc; ++a) taken |= used[static_cast<size_t>(mesh.cell(c)[a])];
    int k = 0;
    while (k < kMaxColors && taken[static_cast<size_t>(k)]) ++k;
    if (k == kMaxColors) return false;
    color[static_cast<size_t>(b)] = k;
    num_colors = std::max(num_colors, k + 1);
    for (int c = begin; c < end; ++c)
      for (int a = 0; a < npc; ++a) used[static_cast<size_t>(mesh.cell(c)[a])].set(static_cast<size_t>(k));
  }
  color_ptr.assign(static_cast<size_t>(num_colors) + 1, 0);
  for (int k : color) ++color_ptr[static_cast<size_t>(k) + 1];
  for (int k = 0; k < num_colors; ++k) color_ptr[k + 1] += color_ptr[k];
  color_blocks.resize(color.size());
  std::vector<int> next(color_ptr.begin(), color_ptr.end() - 1);
  for (int b = 0; b < num_blocks; ++b) color_blocks[static_cast<size_t>(next[static_cast<size_t>(color[b])]++)] = b;
  return true;
}

/// Sorts a list of nodes and drops its repeats.
void sort_unique(std::vector<int>& list) {
  std::sort(list.begin(), list.end());
  list.erase(std::unique(list.begin(), list.end()), list.end());
}

/// node -> neighbouring nodes (including itself), sorted and unique: each node's ring, the nodes
/// of the cells around it.
std::vector<std::vector<int>> node_rings(const Mesh& mesh) {
  const int npc = nodes_per_cell(mesh.cell_type);
  std::vector<std::vector<int>> rings(static_cast<size_t>(mesh.num_nodes()));
  for (int c = 0; c < mesh.num_cells(); ++c) {
    const int* nodes = mesh.cell(c);
    for (int a = 0; a < npc; ++a)
      for (int b = 0; b < npc; ++b) rings[static_cast<size_t>(nodes[a])].push_back(nodes[b]);
  }
  for (auto& list : rings) sort_unique(list);
  return rings;
}

/// node -> every node of its neighbours' rings, sorted and unique: the coupling of
/// Dilatation::NodalMean's second ring.
std::vector<std::vector<int>> second_rings(const std::vector<std::vector<int>>& rings) {
  const int num_nodes = static_cast<int>(rings.size());
  std::vector<std::vector<int>> wide;
  wide.assign(static_cast<size_t>(num_nodes), {});
  for (int a = 0; a < num_nodes; ++a) {
    auto& list = wide[static_cast<size_t>(a)];
    for (int b : rings[static_cast<size_t>(a)])
      list.insert(list.end(), rings[static_cast<size_t>(b)].begin(), rings[static_cast<size_t>(b)].end());
    sort_unique(list);
  }
  return wide;
}

/// The free-DOF CSR pattern: per free DOF row, the free DOFs of its node's adjacent nodes. Rows
/// are emitted in DOF order and free indices increase with DOF order, so row_ptr is already
/// cumulative; columns are sorted because adjacency lists and components are.
void fill_pattern(const Mesh& mesh, const std::vector<int>& free_index, const std::vector<std::vector<int>>& adjacent,
                  CsrPattern& pattern) {
  const int d = mesh.dim, num_nodes = mesh.num_nodes();
  int rows = 0;
  for (int v : free_index) rows += v >= 0 ? 1 : 0;
  pattern.rows = rows;
  pattern.row_ptr.assign(static_cast<size_t>(rows) + 1, 0);
  pattern.col.clear();
  for (int node = 0; node < num_nodes; ++node)
    for (int i = 0; i < d; ++i) {
      const int row = free_index[static_cast<size_t>(node) * d + i];
      if (row < 0) continue;
      for (int other : adjacent[static_cast<size_t>(node)])
        for (int k = 0; k < d; ++k) {
          const int col = free_index[static_cast<size_t>(other) * d + k];
          if (col >= 0) pattern.col.push_back(col);
        }
      SOFTIK_CHECK(pattern.col.size() < static_cast<size_t>(std::numeric_limits<int>::max()),
                   "the stiffness pattern exceeds 2^31 non-zeros (" << pattern.col.size() << " at DOF row " << row
                                                                    << "): split the model or use a coarser mesh");
      pattern.row_ptr[static_cast<size_t>(row) + 1] = static_cast<int>(pattern.col.size());
    }
}

/// The slot map's node words (slot_map.hpp): each node's row length and free-component mask, and
/// each node's first free DOF as row (first_row) and as column (first_col; -1: none free).
void fill_node_rows(const Mesh& mesh, const std::vector<int>& free_index, const CsrPattern& pattern,
                    std::vector<int>& node_rows, std::vector<int>& first_row, std::vector<int>& first_col) {
  const int d = mesh.dim, num_nodes = mesh.num_nodes();
  node_rows.assign(static_cast<size_t>(num_nodes), 0);
  first_row.assign(static_cast<size_t>(num_nodes), -1);
  first_col.assign(static_cast<size_t>(num_nodes), -1);
  for (int node = 0; node < num_nodes; ++node) {
    int mask = 0;
    for (int i = d - 1; i >= 0; --i) {
      const int dof = free_index[static_cast<size_t>(node) * d + i];
      if (dof < 0) continue;
      mask |= 1 << i;
      first_row[static_cast<size_t>(node)] = dof;  // rows and columns share the free numbering
    }
    first_col[static_cast<size_t>(node)] = first_row[static_cast<size_t>(node)];
    const int row = first_row[static_cast<size_t>(node)];
    const int length =
        row < 0 ? 0 : pattern.row_ptr[static_cast<size_t>(row) + 1] - pattern.row_ptr[static_cast<size_t>(row)];
    node_rows[static_cast<size_t>(node)] = assembly::node_row_word(length, mask);
  }
}

/// The slot map's cell words (slot_map.hpp): per cell and node pair (a, b), the position in
/// pattern.col of the block's base entry (row of a's first free DOF, column of b's; -1: none).
void fill_block_slots(const Mesh& mesh, const CsrPattern& pattern, const std::vector<int>& first_row,
                      const std::vector<int>& first_col, std::vector<int>& block_slots) {
  const int npc = nodes_per_cell(mesh.cell_type);
  block_slots.assign(static_cast<size_t>(mesh.num_cells()) * npc * npc, -1);
  for (int c = 0; c < mesh.num_cells(); ++c) {
    const int* nodes = mesh.cell(c);
    for (int a = 0; a < npc; ++a) {
      const int row = first_row[static_cast<size_t>(nodes[a])];
      if (row < 0) continue;
      const int* begin = pattern.col.data() + pattern.row_ptr[static_cast<size_t>(row)];
      const int* end = pattern.col.data() + pattern.row_ptr[static_cast<size_t>(row) + 1];
      for (int b = 0; b < npc; ++b) {
        const int col = first_col[static_cast<size_t>(nodes[b])];
        if (col < 0) continue;
        const int* it = std::lower_bound(begin, end, col);
        block_slots[(static_cast<size_t>(c) * npc + a) * npc + b] = static_cast<int>(it - pattern.col.data());
      }
    }
  }
}

/// Free-DOF CSR pattern from node adjacency, and the node-pair slot map (slot_map.hpp): each
/// node's row word and each cell's block bases. A node is coupled with its ring (the nodes of
/// the cells around it); with `second_ring` (Dilatation::NodalMean) with every node of its
/// neighbours' rings.
void build_pattern(const Mesh& mesh, const std::vector<int>& free_index, bool second_ring, CsrPattern& pattern,
                   std::vector<int>& block_slots, std::vector<int>& node_rows) {
  const std::vector<std::vector<int>> rings = node_rings(mesh);
  std::vector<std::vector<int>> wide;
  if (second_ring) wide = second_rings(rings);
  fill_pattern(mesh, free_index, second_ring ? wide : rings, pattern);
  // The node-pair slot map (slot_map.hpp): each node's row word, then each cell's block bases.
  std::vector<int> first_row, first_col;
  fill_node_rows(mesh, free_index, pattern, node_rows, first_row, first_col);
  fill_block_slots(mesh, pattern, first_row, first_col, block_slots);
}

}  // namespace

Assembler::Assembler(const Mesh& mesh, std::vector<Material> materials, std::vector<char> fixed_dofs,
                     AssemblyOptions options)
    : Assembler(mesh, std::move(materials), std::move(fixed_dofs), options, nullptr) {}

Assembler::Assembler(const Mesh& mesh, std::vector<Material> materials, std::vector<char> fixed_dofs,
                     AssemblyOptions options, const DeviceAssemblyFactory* device)
    : mesh_(mesh), options_(options), num_dofs_(mesh.num_dofs()) {
  validate(mesh_);
  SOFTIK_CHECK(mesh_.num_cells() > 0, "the mesh has no cells: nothing to assemble");
  SOFTIK_CHECK(materials.size() == 1 || materials.size() == static_cast<size_t>(mesh_.num_cells()),
               "got " << materials.size() << " materials for " << mesh_.num_cells()
                      << " cells: give one material, or one per cell");
  if (options_.formulation != Formulation::Hyperelastic)
    SOFTIK_CHECK(std::holds_alternative<fem::LinearElastic>(materials.front()),
                 "the " << (options_.formulation == Formulation::Corotational ? "corotational" : "linear small-strain")
                        << " formulation needs a LinearElastic material, got " << material_name(materials.front())
                        << ": use Formulation::Hyperelastic for nonlinear laws");
  SOFTIK_CHECK(fixed_dofs.empty() || fixed_dofs.size() == static_cast<size_t>(num_dofs_),
               "fixed_dofs has " << fixed_dofs.size() << " entries, expected 0 or num_dofs = " << num_dofs_);
  if (options_.num_threads <= 0) options_.num_threads = std::max(1u, std::thread::hardware_concurrency());

  // Nodes no cell references carry no stiffness: their DOFs are not free (a free one would
  // make K singular).
  std::vector<char> referenced(static_cast<size_t>(mesh_.num_nodes()), 0);
  for (int v : mesh_.cells) referenced[static_cast<size_t>(v)] = 1;
  free_index_.assign(static_cast<size_t>(num_dofs_), -1);
  int next = 0;
  for (int dof = 0; dof < num_dofs_; ++dof)
    if ((fixed_dofs.empty() || !fixed_dofs[static_cast<size_t>(dof)]) &&
        referenced[static_cast<size_t>(dof / mesh_.dim)])
      free_index_[static_cast<size_t>(dof)] = next++;

  SOFTIK_CHECK(options_.block_size >= 0,
               "AssemblyOptions::block_size must be >= 1, or 0 for automatic; got " << options_.block_size);
  if (options_.block_size == 0) options_.block_size = auto_block_size(mesh_.num_cells());
  if (!color_blocks(mesh_, options_.block_size, color_ptr_, color_blocks_)) {
    // The cell numbering is not spatially coherent (blocks touch too many other blocks): colour
    // single cells instead, which needs at most (cells per node) x (nodes per cell) colours.
    options_.block_size = 1;
    SOFTIK_CHECK(color_blocks(mesh_, 1, color_ptr_, color_blocks_),
                 "cannot colour the cells with " << kMaxColors << " colours: some node is shared by hundreds of "
                                                 << "cells; remesh with better-shaped cells");
  }
  check_dilatation(materials.front());
  const bool nodal = options_.dilatation == fem::Dilatation::NodalMean;
  build_pattern(mesh_, free_index_, nodal, pattern_, block_slots_, node_rows_);
  kernels_ = make_element_kernels(mesh_, materials, options_);
  materials_ = std::move(materials);
  if (nodal) {
    std::vector<Real> rest_volumes(static_cast<size_t>(mesh_.num_cells()));
    kernels_->cell_volumes(cell_loop(), mesh_.rest_positions().data(), rest_volumes.data());
    nodal_ = std::make_unique<NodalDilatation>(mesh_, rest_volumes, free_index_, pattern_);
  }
  if (device != nullptr && *device) {
    device_ = (*device)(*this);  // a batch's design, assembled with the others of its mesh
    device_mutex_ = std::make_unique<std::mutex>();
  } else if (options_.backend == Backend::Cuda) {
    require_backend(Backend::Cuda);
    device_ = device_backend()->make_assembly(*this);
    device_mutex_ = std::make_unique<std::mutex>();
  }
}

std::unique_ptr<Assembler> assembly::AssemblerWithDevice::make(const Mesh& mesh, std::vector<Material> materials,
                                                               std::vector<char> fixed_dofs, AssemblyOptions options,
                                                               const DeviceAssemblyFactory& device) {
  return std::unique_ptr<Assembler>(new Assembler(mesh, std::move(materials), std::move(fixed_dofs), options, &device));
}

void Assembler::check_dilatation(const Material& law) const {
  if (options_.dilatation == fem::Dilatation::Pointwise) return;
  const char* mode = options_.dilatation == fem::Dilatation::CellMean ? "CellMean (mean dilatation)"
                                                                      : "NodalMean (average nodal pressure)";
  SOFTIK_CHECK(options_.formulation != Formulation::Corotational,
               "dilatation " << mode
                             << " needs the hyperelastic or linear small-strain formulation, not the "
                                "corotational one: set formulation: hyperelastic (any law with a bulk term) or "
                                "linear");
  const bool split =
      std::visit([](const auto& m) { return fem::BulkSplit<std::decay_t<decltype(m)>>::available; }, law);
  SOFTIK_CHECK(split, "dilatation " << mode << " needs a law with a bulk term, and " << material_name(law)
                                    << " has none (its lambda term is not a function of the volume): use NeoHookean, "
                                       "NeoHookeanD1, StableNeoHookean, MooneyRivlin, Yeoh, Ogden, ArrudaBoyce or "
                                       "LinearElastic");
  // One quadrature point per cell (the linear simplices): the cell mean is the plain element,
  // which locks; the nodal mean is defined with equal nodal shares, right for linear cells only.
  const CellType type = mesh_.cell_type;
  const bool one_point = type == CellType::Edge2 || type == CellType::Tri3 || type == CellType::Tet4;
  SOFTIK_CHECK(options_.dilatation != fem::Dilatation::CellMean || !one_point,
               "dilatation CellMean on " << cell_type_name(type)
                                         << " cells is the plain element (one quadrature point: its mean is the "
                                            "point's value), which locks: use NodalMean (the average nodal pressure) "
                                            "for linear simplices");
  SOFTIK_CHECK(options_.dilatation != fem::Dilatation::NodalMean || one_point,
               "dilatation NodalMean is the average nodal pressure element of linear simplices (Tet4, Tri3, Edge2), "
               "not of "
                   << cell_type_name(type) << " cells: use CellMean (mean dilatation) for them");
}

CellLoop Assembler::cell_loop() const {
  CellLoop loop;
  loop.mesh = &mesh_;
  loop.colours.color_ptr = color_ptr_.data();
  loop.colours.color_blocks = color_blocks_.data();
  loop.colours.num_colors = num_colors();
  loop.colours.block_size = options_.block_size;
  loop.colours.num_threads = options_.num_threads;
  loop.block_slots = block_slots_.data();
  loop.node_rows = node_rows_.data();
  const double K_bytes = static_cast<double>(pattern_.nnz()) * sizeof(Real);
  loop.prefetch_cells = K_bytes > assembly::kPrefetchMinBytes ? assembly::kPrefetchCells : 0;
  return loop;
}

int Assembler::slot(int c, int r, int s) const {
  const int d = mesh_.dim, npc = nodes_per_cell(mesh_.cell_type);
  const int a = r / d, b = s / d;
  const int* nodes = mesh_.cell(c);
  return assembly::entry_slot(block_slots_[(static_cast<size_t>(c) * npc + a) * npc + b],
                              node_rows_[static_cast<size_t>(nodes[a])], node_rows_[static_cast<size_t>(nodes[b])],
                              r % d, s % d);
}

void Assembler::check_status(const assembly::CellStatus& status, const Real* x) const {
  assembly::check_cell_status(
      status, mesh_.dim, [x](int dof) { return x[dof]; }, kernels_->formulation_name());
}

Assembler::~Assembler() = default;
Assembler::Assembler(Assembler&&) noexcept = default;
Assembler& Assembler::operator=(Assembler&&) noexcept = default;

void Assembler::assemble(const std::vector<Real>& x, Real* energy, std::vector<Real>* force,
                         std::vector<Real>* K_values) const {
  SOFTIK_CHECK(x.size() == static_cast<size_t>(num_dofs_),
               "positions have " << x.size() << " entries, expected num_dofs = " << num_dofs_);
  if (device_) {  // the device assembler checks x as below, with the same message
    if (!energy && !force && !K_values) return;
    const std::lock_guard<std::mutex> lock(*device_mutex_);
    device_assemble(x, energy, force, K_values != nullptr);
    if (K_values) device_->download_K_values(*K_values);
    return;
  }
  for (size_t k = 0; k < x.size(); ++k)
    SOFTIK_CHECK_NUMERICAL(std::isfinite(x[k]), "position of node " << k / mesh_.dim << " component " << k % mesh_.dim
                                                                    << " is " << x[k]
                                                                    << ": the state diverged or was not initialised");
  const CellLoop loop = cell_loop();
  std::vector<Real> cell_energy;
  if (energy) cell_energy.assign(static_cast<size_t>(mesh_.num_cells()), 0.0);
  if (force) force->assign(static_cast<size_t>(num_dofs_), 0.0);
  if (K_values) K_values->assign(static_cast<size_t>(pattern_.nnz()), 0.0);
  assembly::CellStatus status;
  NodalDilatation::Work nodal;
  NodalDilatationFields fields;
  if (nodal_) {
    nodal_->prepare(*kernels_, loop, x.data(), K_values != nullptr, nodal);
    fields.nodal_pressure = nodal.pi.data();
    if (K_values) fields.volume_gradient = nodal.volume_gradient.data();
  }
  kernels_->assemble(loop, x.data(), energy ? cell_energy.data() : nullptr, force ? force->data() : nullptr,
                     K_values ? K_values->data() : nullptr, status, fields);
  check_status(status, x.data());
  if (nodal_ && K_values) nodal_->add_second_ring(loop, nodal, options_.project_spd, K_values->data());
  if (energy) {
    Real sum = 0;
    for (size_t c = 0; c < cell_energy.size(); ++c)  // fixed order: deterministic
      sum += nodal_ ? cell_energy[c] + nodal.cell_bulk_energy[c] : cell_energy[c];
    *energy = sum;
  }
}

exec::DeviceView<const Real> Assembler::assemble_on_device(const std::vector<Real>& x, Real* energy,
                                                           std::vector<Real>* force) const {
  SOFTIK_CHECK(device_ != nullptr && device_->on_device(),
               "Assembler::assemble_on_device needs AssemblyOptions::backend = Backend::Cuda; this "
               "assembler runs on the CPU: use assemble()");
  SOFTIK_CHECK(x.size() == static_cast<size_t>(num_dofs_),
               "positions have " << x.size() << " entries, expected num_dofs = " << num_dofs_);
  const std::lock_guard<std::mutex> lock(*device_mutex_);
  device_assemble(x, energy, force, true);
  return {device_->device_K_values(), static_cast<std::size_t>(pattern_.nnz())};
}

void Assembler::device_assemble(const std::vector<Real>& x, Real* energy, std::vector<Real>* force,
                                bool stiffness) const {
  device_->assemble_from_host(x, energy != nullptr, force != nullptr, stiffness);  // checks x as the CPU does
  if (energy) *energy = device_->energy();
  if (force) device_->download_force(*force);
}

Real Assembler::energy(const std::vector<Real>& x) const {
  Real e = 0;
  assemble(x, &e, nullptr, nullptr);
  return e;
}

std::vector<Real> Assembler::force(const std::vector<Real>& x) const {
  std::vector<Real> f;
  assemble(x, nullptr, &f, nullptr);
  return f;
}

Eigen::SparseMatrix<Real, Eigen::RowMajor, int> Assembler::to_sparse(const std::vector<Real>& K_values) const {
  SOFTIK_CHECK(K_values.size() == static_cast<size_t>(pattern_.nnz()),
               "K_values has " << K_values.size() << " entries, the pattern " << pattern_.nnz());
  return Eigen::Map<const Eigen::SparseMatrix<Real, Eigen::RowMajor, int>>(
      pattern_.rows, pattern_.rows, pattern_.nnz(), pattern_.row_ptr.data(), pattern_.col.data(), K_values.data());
}

Eigen::SparseMatrix<Real, Eigen::RowMajor, int> Assembler::stiffness(const std::vector<Real>& x) const {
  std::vector<Real> values;
  assemble(x, nullptr, nullptr, &values);
  return to_sparse(values);
}

std::vector<Real> Assembler::von_mises(const std::vector<Real>& x) const {
  SOFTIK_CHECK(x.size() == static_cast<size_t>(num_dofs_),
               "positions have " << x.size() << " entries, expected " << num_dofs_);
  std::vector<Real> out(static_cast<size_t>(mesh_.num_cells()));
  const CellLoop loop = cell_loop();
  assembly::CellStatus status;
  kernels_->von_mises(loop, x.data(), out.data(), status);
  if (status.first_nonfinite_dof != assembly::kNoIndex) check_status(status, x.data());
  return out;
}

namespace {
/// Per DOF: the lumped mass, or with load_share the consistent nodal integral (CellLumpedMass).
std::vector<Real> nodal_masses(const ElementKernels& kernels, const CellLoop& loop, int num_dofs, Real density,
                               bool load_share) {
  SOFTIK_CHECK(density > 0 && std::isfinite(density), "density must be positive and finite, got " << density);
  std::vector<Real> out(static_cast<size_t>(num_dofs), 0.0);
  kernels.lumped_mass(loop, density, load_share, out.data());
  return out;
}
}  // namespace

std::vector<Real> Assembler::lumped_mass(Real density) const {
  return nodal_masses(*kernels_, cell_loop(), num_dofs_, density, false);
}

std::vector<Real> Assembler::body_force_share(Real density) const {
  return nodal_masses(*kernels_, cell_loop(), num_dofs_, density, true);
}

std::vector<Real> Assembler::mass_matrix(Real density, bool lumped) const {
  SOFTIK_CHECK(density > 0 && std::isfinite(density), "density must be positive and finite, got " << density);
  std::vector<Real> out(static_cast<size_t>(pattern_.nnz()), 0.0);
  const CellLoop loop = cell_loop();
  kernels_->mass_matrix(loop, density, lumped, out.data());
  return out;
}

std::vector<char> fix_nodes(const Mesh& mesh, const std::vector<int>& nodes) {
  std::vector<char> fixed(static_cast<size_t>(mesh.num_dofs()), 0);
  for (int node : nodes) {
    SOFTIK_CHECK(node >= 0 && node < mesh.num_nodes(),
                 "fix_nodes: node " << node << " outside [0, " << mesh.num_nodes() << ")");
    for (int i = 0; i < mesh.dim; ++i) fixed[static_cast<size_t>(node) * mesh.dim + i] = 1;
  }
  return fixed;
}

std::unique_ptr<ElementKernels> make_element_kernels(const Mesh& mesh, const std::vector<Material>& materials,
                                                     const AssemblyOptions& options) {
  // The one element table (host/mesh/element_dispatch.hpp), as the CUDA backend uses it.
  return detail::dispatch_element(mesh.cell_type, [&](auto tag) {
    return make_element_kernels_for<typename decltype(tag)::type>(mesh, materials, options);
  });
}

}  // namespace softik
