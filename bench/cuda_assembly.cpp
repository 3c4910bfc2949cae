// Force + tangent stiffness assembly throughput (cells/s) on the GPU (softik::cuda::DeviceAssembler),
// with the CPU Assembler on the same meshes as the baseline (up to ~1M cells; all hardware threads).
// Cases: {corotational (polar, rotated tangent), neo-Hookean} Tet4 x boxes of ~10k, 100k, 1M and
// 10M cells (aspect 4:1:1, clamped at x = 0, bent and stretched); Tet4CorotationalScatter: the
// first with the GPU's atomic scatter of K instead of its gathered stiffness (DeviceAssembler::
// set_block_gather(false), host/assembly/block_gather.hpp), up to 1M cells; Tet4CorotationalForce:
// the force alone (a chord step's assembly), up to 1M cells; corotational Tet4 with the
// consistent tangent (the tracking step's), neo-Hookean Tet10, Hex8 and
// Hex8 with the mean dilatation (dilatation: cell_mean), and Tet10 with it, on ~10k to 1M cells,
// and Tet4 with the average nodal pressure (dilatation: nodal_mean: nodal passes and the
// second-ring term) on ~10k and 100k cells (the cost of the quadratic and locking-free elements
// next to Tet4). dofs_per_second counts the element DOFs assembled (cells x nodes per cell x 3).
//
// GPU timing: wall clock of one synchronous DeviceAssembler::assemble(d_x) call, x already on
// the device (memset of the outputs, the kernel, the 16-byte status read-back). Counters:
// cells_per_second, roofline_fraction = cells_per_second / 4e9 (the ~4 G tets/s HBM roofline of
// an H100; the project's target is 0.5), device_GB (what the assembler holds).
// A size whose host or device memory does not fit is skipped with the reason.
//
//   ./build-gpu/bench/bench_cuda_assembly --benchmark_counters_tabular=true
//
// GPU/Tet4NeoHookeanDesigns/...: DeviceAssembler::assemble_designs, one launch over designs x
// cells of the same mesh with different parameters (the batch kernel); cells_per_second counts
// designs x cells.
//
// Results: bench/RESULTS.md (note the device: H100 or H200).
#include <benchmark/benchmark.h>

#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cuda/assembly/device_assembler.hpp"
#include "run_benchmarks.hpp"
#include "softik/assembly.hpp"
#include "softik/backend.hpp"
#include "softik/mesh_generator.hpp"

namespace {

using softik::Real;

constexpr double kRooflineCellsPerSecond = 4e9;
constexpr int kCpuMaxCells = 1200000;
/// Host bytes per Tet4 cell while a problem is alive (mesh, slot map, rest data, CSR pattern,
/// the pattern build's adjacency lists): about 1.1 kB, with a margin.
constexpr double kHostBytesPerCell = 3000;

/// The element, the formulation and the volumetric treatment of a case.
struct Case {
  const char* name;
  softik::CellType type;
  bool corotational;
  softik::fem::Dilatation dilatation;
  softik::fem::CorotationalTangent tangent = softik::fem::CorotationalTangent::Rotated;
  bool scatter = false;     ///< the GPU's atomic scatter of K even where it gathers (set_block_gather(false))
  bool force_only = false;  ///< the force alone (a chord step's assembly), no K
};

const Case kCases[] = {
    {"Tet4Corotational", softik::CellType::Tet4, true, softik::fem::Dilatation::Pointwise},
    {"Tet4NeoHookean", softik::CellType::Tet4, false, softik::fem::Dilatation::Pointwise},
    {"Tet4CorotationalConsistent", softik::CellType::Tet4, true, softik::fem::Dilatation::Pointwise,
     softik::fem::CorotationalTangent::Consistent},
    {"Tet10NeoHookean", softik::CellType::Tet10, false, softik::fem::Dilatation::Pointwise},
    {"Tet10NeoHookeanCellMean", softik::CellType::Tet10, false, softik::fem::Dilatation::CellMean},
    {"Hex8NeoHookean", softik::CellType::Hex8, false, softik::fem::Dilatation::Pointwise},
    {"Hex8NeoHookeanCellMean", softik::CellType::Hex8, false, softik::fem::Dilatation::CellMean},
    {"Tet4NeoHookeanNodalMean", softik::CellType::Tet4, false, softik::fem::Dilatation::NodalMean},
    {"Tet4CorotationalScatter", softik::CellType::Tet4, true, softik::fem::Dilatation::Pointwise,
     softik::fem::CorotationalTangent::Rotated, true},
    {"Tet4CorotationalForce", softik::CellType::Tet4, true, softik::fem::Dilatation::Pointwise,
     softik::fem::CorotationalTangent::Rotated, false, true},
};
constexpr int kTet4Corotational = 0, kTet4NeoHookean = 1;

struct Problem {
  int law = kTet4Corotational;  ///< index into kCases
  int target = 0;
  softik::Mesh mesh;
  std::vector<Real> x;
  std::unique_ptr<softik::Assembler> cpu;
  std::unique_ptr<softik::cuda::DeviceAssembler> gpu;
  std::string skip;  ///< why this size cannot run (memory), empty when it can
  std::string gpu_skip;
};

int cells_per_cube(softik::CellType type) { return type == softik::CellType::Hex8 ? 1 : 6; }

/// n such that the 4n x n x n box has about `target` cells of this type.
int cubes_per_side(int law, int target) {
  return std::max(1, static_cast<int>(std::lround(std::cbrt(target / (4.0 * cells_per_cube(kCases[law].type))))));
}

double available_host_bytes() {
  return static_cast<double>(sysconf(_SC_AVPHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
}

/// One problem alive at a time: a 10M-cell one holds ~11 GB of host and ~10 GB of device memory.
/// Benchmarks are registered so that both backends of one (law, size) run back to back.
Problem& problem(int law, int target) {
  static std::unique_ptr<Problem> current;
  if (current && current->law == law && current->target == target) return *current;
  current.reset();
  current = std::make_unique<Problem>();
  Problem& p = *current;
  p.law = law;
  p.target = target;
  const Case& c = kCases[law];
  const int n = cubes_per_side(law, target);
  const double cells = 4.0 * cells_per_cube(c.type) * n * n * n;
  // Bytes per cell grow with the element's entries (the slot map and CSR pattern): x (nd/12)^2.
  const double nd = 3.0 * softik::nodes_per_cell(c.type);
  if (cells * kHostBytesPerCell * std::max(1.0, nd * nd / 144.0) > available_host_bytes()) {
    p.skip = "skipped: " + std::to_string(static_cast<long long>(cells)) + " cells need about " +
             std::to_string(cells * kHostBytesPerCell * std::max(1.0, nd * nd / 144.0) / 1e9) + " GB of host memory, " +
             std::to_string(available_host_bytes() / 1e9) + " GB available";
    return p;
  }
  softik::BoxSpec spec;
  spec.size = {4.0, 1.0, 1.0};
  spec.cells = {4 * n, n, n};
  p.mesh = softik::make_box(3, c.type, spec);
  p.x = p.mesh.rest_positions();
  for (int k = 0; k < p.mesh.num_nodes(); ++k) {
    const Real X = p.mesh.X[3 * k];
    p.x[3 * k + 0] *= 1.02;
    p.x[3 * k + 2] += 0.05 * X * X;
  }
  softik::AssemblyOptions options;
  options.formulation = c.corotational ? softik::Formulation::Corotational : softik::Formulation::Hyperelastic;
  options.dilatation = c.dilatation;
  options.corotational_tangent = c.tangent;
  const softik::Material material = c.corotational
                                        ? softik::Material(softik::fem::LinearElastic::from_young_poisson(1e5, 0.45))
                                        : softik::Material(softik::fem::NeoHookean::from_young_poisson(1e5, 0.45));
  p.cpu = std::make_unique<softik::Assembler>(p.mesh, std::vector<softik::Material>{material},
                                              softik::fix_nodes(p.mesh, p.mesh.node_groups.at("xmin")), options);
  return p;
}

/// The problem's GPU assembler, built on first use (nullptr, with p.gpu_skip set, when it does
/// not fit on the device).
softik::cuda::DeviceAssembler* gpu_assembler(Problem& p) {
  if (!p.gpu && p.gpu_skip.empty()) {
    try {
      p.gpu = std::make_unique<softik::cuda::DeviceAssembler>(*p.cpu);  // throws when the device is too small
      p.gpu->set_block_gather(!kCases[p.law].scatter);
      p.gpu->assemble(p.x);  // uploads x, warms up
    } catch (const softik::Error& e) {
      p.gpu.reset();
      p.gpu_skip = std::string("skipped: ") + e.what();
    }
  }
  return p.gpu.get();
}

void set_common_counters(benchmark::State& state, const Problem& p) {
  const double cells = p.mesh.num_cells();
  state.SetLabel(kCases[p.law].name);
  state.counters["cells"] = cells;
  state.counters["dofs_per_second"] = benchmark::Counter(cells * 3 * softik::nodes_per_cell(p.mesh.cell_type),
                                                         benchmark::Counter::kIsIterationInvariantRate);
  state.counters["free_dofs"] = p.cpu->num_free_dofs();
  state.counters["nnz"] = p.cpu->pattern().nnz();
  state.counters["cells_per_second"] = benchmark::Counter(cells, benchmark::Counter::kIsIterationInvariantRate);
}

/// The problem and its GPU assembler, or null after state.SkipWithError (no device, or the size
/// does not fit host or device memory).
softik::cuda::DeviceAssembler* ready_gpu(benchmark::State& state, int law, int target, Problem*& out) {
  std::string reason;
  if (!softik::cuda::device_available(&reason)) {
    state.SkipWithError(("no usable CUDA device: " + reason).c_str());
    return nullptr;
  }
  Problem& p = problem(law, target);
  out = &p;
  if (!p.skip.empty()) {
    state.SkipWithError(p.skip.c_str());
    return nullptr;
  }
  softik::cuda::DeviceAssembler* gpu = gpu_assembler(p);
  if (!gpu) state.SkipWithError(p.gpu_skip.c_str());
  return gpu;
}

void BM_GpuAssembly(benchmark::State& state, int law, int target) {
  Problem* problem_ = nullptr;
  softik::cuda::DeviceAssembler* gpu = ready_gpu(state, law, target, problem_);
  if (!gpu) return;
  Problem& p = *problem_;
  const Real* d_x = gpu->device_positions();
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    gpu->assemble(d_x, {false, true, !kCases[law].force_only});  // synchronous: force (and K) on the device
    const auto stop = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(stop - start).count());
  }
  set_common_counters(state, p);
  // cells_per_second / 4e9 (a rate counter: cells / 4e9 per second).
  state.counters["roofline_fraction"] =
      benchmark::Counter(p.mesh.num_cells() / kRooflineCellsPerSecond, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["device_GB"] = softik::cuda::DeviceAssembler::required_device_bytes(*p.cpu) / 1e9;
}

/// Designs x cells in one launch (DeviceAssembler::assemble_designs): `designs` neo-Hookean
/// parameter sets of the same mesh, each at the problem's state; cells_per_second counts
/// designs x cells.
void BM_GpuDesignsAssembly(benchmark::State& state, int target, int designs) {
  Problem* problem_ = nullptr;
  softik::cuda::DeviceAssembler* gpu = ready_gpu(state, kTet4NeoHookean, target, problem_);
  if (!gpu) return;
  Problem& p = *problem_;
  std::vector<std::vector<softik::Material>> materials;
  for (int d = 0; d < designs; ++d)
    materials.push_back({softik::fem::NeoHookean::from_young_poisson(1e5 * (1 + 0.1 * d), 0.45)});
  try {
    gpu->set_designs(materials);
  } catch (const softik::Error& e) {
    state.SkipWithError((std::string("skipped: ") + e.what()).c_str());
    return;
  }
  for (int d = 0; d < designs; ++d)
    if (cudaMemcpy(gpu->device_design_positions() + static_cast<std::size_t>(d) * p.x.size(), p.x.data(),
                   p.x.size() * sizeof(Real), cudaMemcpyHostToDevice) != cudaSuccess) {
      state.SkipWithError("cudaMemcpy of the design positions failed");
      return;
    }
  gpu->assemble_designs(gpu->device_design_positions());  // warm-up
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    gpu->assemble_designs(gpu->device_design_positions());
    const auto stop = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(stop - start).count());
  }
  const double cells = static_cast<double>(p.mesh.num_cells()) * designs;
  state.SetLabel("Tet4 neo-Hookean designs");
  state.counters["designs"] = designs;
  state.counters["cells"] = p.mesh.num_cells();
  state.counters["cells_per_second"] = benchmark::Counter(cells, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["designs_per_second"] = benchmark::Counter(designs, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["roofline_fraction"] =
      benchmark::Counter(cells / kRooflineCellsPerSecond, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_CpuAssembly(benchmark::State& state, int law, int target) {
  Problem& p = problem(law, target);
  if (!p.skip.empty()) {
    state.SkipWithError(p.skip.c_str());
    return;
  }
  std::vector<Real> force, K;
  p.cpu->assemble(p.x, nullptr, &force, &K);
  for (auto _ : state) {
    p.cpu->assemble(p.x, nullptr, &force, &K);
    benchmark::DoNotOptimize(K.data());
    benchmark::ClobberMemory();
  }
  set_common_counters(state, p);
  state.counters["threads"] = p.cpu->options().num_threads;
}

}  // namespace

int main(int argc, char** argv) {
  // Registered (and so run) law by law, size by size, GPU then CPU: one problem alive at a time.
  for (int law = 0; law < static_cast<int>(std::size(kCases)); ++law)
    for (int target : {10000, 100000, 1000000, 10000000}) {
      if (law > kTet4NeoHookean && target > 1000000) continue;  // the other elements up to 1M cells
      // The average nodal pressure up to 100k cells: its host tables (built twice, by the CPU
      // Assembler and for the upload) take about a minute per million cells to build.
      if (kCases[law].dilatation == softik::fem::Dilatation::NodalMean && target > 100000) continue;
      const std::string suffix = std::string(kCases[law].name) + "/cells:" + std::to_string(target);
      benchmark::RegisterBenchmark(("GPU/" + suffix).c_str(), BM_GpuAssembly, law, target)
          ->Unit(benchmark::kMillisecond)
          ->UseManualTime()
          ->MinTime(0.5);
      const int n = cubes_per_side(law, target);
      if (4 * cells_per_cube(kCases[law].type) * n * n * n <= kCpuMaxCells && !kCases[law].scatter &&
          !kCases[law].force_only)
        benchmark::RegisterBenchmark(("CPU/" + suffix).c_str(), BM_CpuAssembly, law, target)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime()
            ->MinTime(0.5);
    }
  // One launch over designs x cells: the batch kernel on a ~10k-cell model (a 5k-tet actuator's
  // scale), 1 to 256 designs.
  for (int designs : {1, 16, 64, 256})
    benchmark::RegisterBenchmark(("GPU/Tet4NeoHookeanDesigns/cells:10000/designs:" + std::to_string(designs)).c_str(),
                                 BM_GpuDesignsAssembly, 10000, designs)
        ->Unit(benchmark::kMillisecond)
        ->UseManualTime()
        ->MinTime(0.5);
  return run_benchmarks(argc, argv);
}
