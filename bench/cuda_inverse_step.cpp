// One real-time inverse step (InverseSolver::step) of the pneumatic finger vs mesh size, on the
// GPU (AssemblyOptions::backend = Backend::Cuda: force + stiffness on the device) with each GPU
// linear solver, and on the CPU (all hardware threads, CHOLMOD, or Eigen where softik was built
// without CHOLMOD) as the baseline in the same binary. The project's targets on an H100:
// 100k tets <= 5 ms per step, 1M tets <= 50 ms.
//
// Model: make_finger (100 x 20 x 20 mm, one box cavity), Tet4, grid cells 3.34, 2, 1.334, 1.3,
// 0.91 and 0.59 mm: 9.8k, 24k, 83k, 126k, 298k and 1.01M tets (named 10k, 30k, 83k, 125k, 300k,
// 1M; the 10 cm finger's grid only takes these steps, so it has no 100k-tet size),
// and the same finger 122 mm long at 1.334 mm: 100.6k tets ("100k", the target's size);
// corotational linear silicone (E = 200 kPa, nu = 0.45, polar rotation, rotated tangent R K0 R^T:
// symmetric positive definite, as the dense Cholesky and PCG need; bench/inverse_step.cpp uses
// the consistent tangent), base fixed;
// one cavity pressure actuator (0..50 kPa) and a tip position effector (the tip-face node
// nearest (L, 10, 20) mm for the length L, goal 10 mm up and 2 mm back, axes x and z), as in
// bench/inverse_step.cpp.
// The factorisation is refreshed every step (InverseOptions::reuse_factorization = 0).
// Tracking cases (.../tracking/reuse:R/...), as bench/inverse_step.cpp's BM_InverseTracking: 60
// untimed steps bring the tip to (L - 1.5, 10, 25.5) mm (at most 1 mm per step), then the goal moves
// on a 0.5 mm circle in the bending plane (100 steps per turn), one step per goal sample, the
// factorisation refreshed every step (R = 0) or kept for up to R steps near equilibrium (chord
// steps); with the consistent tangent and the actuator's stiffness (InverseOptions::
// actuator_stiffness), so that K goes through the host (the actuator's stiffness is added there)
// on every backend; counters `refactored` (fraction of steps that factorised), `kept_columns`
// (constraint columns per step taken from the last solve on the kept factor) and `tip_error_um`
// (mean predicted distance to the moving goal: least squares, one pressure cannot follow a circle).
//
// Contact cases (.../contacts:N/...; the 10k model only, CPU and GPU/cudss): the
// fixed-goal step with a wall 0.5 mm above the finger's top face over the tip and the N top-face
// nodes nearest the tip as contact candidates (their forces are unknowns of the step's QP:
// docs/inverse_contact.md), as bench/inverse_step.cpp's BM_InverseStepWithContacts; 10 untimed
// steps press the tip on the wall; counters contacts, pressed and pivots per step.
// Cases, size by size: CPU/<cholmod|eigen>, GPU/cuda-dense (sizes with <= kGpuDenseMaxDofs =
// 20k free DOFs), GPU/cudss (skipped when the build has no cuDSS), GPU/cuda-pcg. Without a
// usable device every GPU case is skipped ("no CUDA device: <reason>"); the CPU baseline is
// skipped above 300k tets (a step takes seconds there: compare the GPU rows with the 300k CPU
// row) and, with Eigen instead of CHOLMOD, above 30k tets; sizes whose host memory estimate
// does not fit are skipped with the numbers, and GPU cases whose device memory does not fit
// with the solver's or assembler's message.
//
// Each case (assembler, solver with its analysis, inverse solver, state x) is built once and
// kept between the harness's runs of the case; one step runs untimed before the timing (the
// analysis and first factorisation, the CUDA context). Timing: the wall time of one step;
// counters per step in milliseconds, means over the timed steps, from InverseStepReport:
// assembly_ms (f, K and the constraint rows), factor_ms, solves_ms (Steps I-II), qp_ms
// (constraint-space solve), update_ms (Step III); and tets, free_dofs, half_solves (fraction
// of steps on the forward-solve-only path).
//
//   ./build-gpu/bench/bench_cuda_inverse_step --benchmark_counters_tabular=true
//   ./build-gpu/bench/bench_cuda_inverse_step --benchmark_filter='tets:100k/' --benchmark_counters_tabular=true
//   ./build/bench/bench_cuda_inverse_step --benchmark_filter='^CPU/.*tets:10k/'   # CPU baseline only
//
// Results: bench/RESULTS.md (note the device: H100 or H200, and the host's core count for the
// CPU rows).
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench_wall.hpp"
#include "inverse_phases.hpp"
#include "run_benchmarks.hpp"
#include "softik/actuator_generator.hpp"
#include "softik/backend.hpp"
#include "softik/contact.hpp"
#include "softik/error.hpp"
#include "softik/inverse.hpp"

namespace {

using softik::Real;

struct Size {
  const char* name;
  int target;          ///< nominal tets
  Real cell;           ///< make_finger grid cell (m)
  Real length = 0.10;  ///< the finger's length (m)
};
const Size kSizes[] = {
    {"10k", 10000, 0.00334},  {"30k", 30000, 0.002},     {"83k", 83000, 0.001334}, {"100k", 100000, 0.001334, 0.122},
    {"125k", 125000, 0.0013}, {"300k", 300000, 0.00091}, {"1M", 1000000, 0.00059},
};

constexpr int kCpuMaxTets = 300000;      ///< CHOLMOD: a step of the 1M model takes tens of seconds
constexpr int kEigenMaxTets = 30000;     ///< Eigen SimplicialLDLT: ~1 min per factorisation at 83k tets
constexpr int kGpuDenseMaxTets = 30000;  ///< sizes registered for cuda-dense (n <= kGpuDenseMaxDofs)
/// Host bytes per Tet4 cell: mesh + assembler (slot map, CSR pattern, rest data) ~1.1 kB, with
/// a margin; the CPU case adds the sparse factor (nnz(L) ~300 per tet at 100k tets, growing
/// slowly), the GPU case the host copies of K and the solver's staging buffers.
constexpr double kHostBytesPerCell = 3000, kCpuFactorBytesPerCell = 8000, kGpuHostBytesPerCell = 3000;

double available_host_bytes() {
  return static_cast<double>(sysconf(_SC_AVPHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
}

/// One mesh size alive at a time (1M tets hold several GB); its assemblers are built on first use.
struct Problem {
  int size = -1;
  softik::Mesh mesh;
  std::unique_ptr<softik::Assembler> cpu, gpu;                        // rotated tangent
  std::unique_ptr<softik::Assembler> cpu_consistent, gpu_consistent;  // consistent tangent (tracking)
  int tip_node = -1;
};

/// One case alive at a time: its solver, the inverse solver and the state x.
struct Case {
  int size = -1;
  softik::Backend backend = softik::Backend::Cpu;
  softik::LinearSolverKind kind = softik::LinearSolverKind::Automatic;
  int reuse = -1;                ///< -1: the fixed-goal step; >= 0: tracking with this reuse_factorization
  int contacts = 0;              ///< the fixed-goal step against a wall with this many contact candidates
  std::array<Real, 3> centre{};  ///< tracking: the tip position the circle is centred on
  int sample = 0;                ///< tracking: the next goal sample
  std::unique_ptr<softik::LinearSolver> solver;
  std::unique_ptr<softik::InverseSolver> inverse;
  std::vector<Real> x;
};

std::unique_ptr<Problem> g_problem;
std::unique_ptr<Case> g_case;

Problem& problem(int size) {
  if (g_problem && g_problem->size == size) return *g_problem;
  g_case.reset();
  g_problem.reset();
  auto p = std::make_unique<Problem>();
  p->size = size;
  softik::FingerSpec spec;
  spec.cell_size = kSizes[size].cell;
  spec.length = kSizes[size].length;
  spec.cell_type = softik::CellType::Tet4;
  p->mesh = softik::make_finger(spec);
  // The tip position effector's node: the one nearest (L, 10, 20) mm (the top edge of the tip face).
  const std::array<Real, 3> tip{spec.length, 0.01, 0.02};
  Real best = std::numeric_limits<Real>::infinity();
  for (int k = 0; k < p->mesh.num_nodes(); ++k) {
    Real d = 0;
    for (int i = 0; i < 3; ++i) d += (p->mesh.X[3 * k + i] - tip[i]) * (p->mesh.X[3 * k + i] - tip[i]);
    if (d < best) {
      best = d;
      p->tip_node = k;
    }
  }
  g_problem = std::move(p);
  return *g_problem;
}

/// The problem's assembler for a backend: the rotated (SPD) tangent for the fixed-goal step, the
/// consistent one for tracking (with the actuator's stiffness the step is then Newton's method on
/// equilibrium, as in bench/inverse_step.cpp; with the rotated tangent and no actuator stiffness
/// the tracking finger never comes near equilibrium, so a factorisation is never kept).
const softik::Assembler& assembler(Problem& p, softik::Backend backend, bool consistent = false) {
  const bool cpu = backend == softik::Backend::Cpu;
  std::unique_ptr<softik::Assembler>& slot =
      consistent ? (cpu ? p.cpu_consistent : p.gpu_consistent) : (cpu ? p.cpu : p.gpu);
  if (!slot) {
    softik::AssemblyOptions options;  // corotational, polar rotation
    options.backend = backend;
    options.corotational_tangent =
        consistent ? softik::fem::CorotationalTangent::Consistent : softik::fem::CorotationalTangent::Rotated;
    slot = std::make_unique<softik::Assembler>(
        p.mesh, std::vector<softik::Material>{softik::fem::LinearElastic::from_young_poisson(2e5, 0.45)},
        softik::fix_nodes(p.mesh, p.mesh.node_groups.at("xmin")), options);
  }
  return *slot;
}

softik::PositionEffector& tip_effector(Case& c) {
  return static_cast<softik::PositionEffector&>(*c.inverse->constraints()[1]);
}

/// The case, built and warmed up (one untimed step) on first use. Throws softik::Error when
/// it cannot be built (device memory, a solver failure).
Case& inverse_case(int size, softik::Backend backend, softik::LinearSolverKind kind, int reuse, int contacts) {
  if (g_case && g_case->size == size && g_case->backend == backend && g_case->kind == kind && g_case->reuse == reuse &&
      g_case->contacts == contacts)
    return *g_case;
  g_case.reset();  // frees the previous case's device memory first
  Problem& p = problem(size);
  const softik::Assembler& a = assembler(p, backend, reuse >= 0);
  auto c = std::make_unique<Case>();
  c->size = size;
  c->backend = backend;
  c->kind = kind;
  c->reuse = reuse;
  c->contacts = contacts;
  c->solver = softik::make_linear_solver(kind);
  softik::InverseOptions options;
  options.reuse_factorization = std::max(reuse, 0);
  options.actuator_stiffness = reuse >= 0;
  c->inverse = std::make_unique<softik::InverseSolver>(a, *c->solver, softik::Loads{}, options);
  softik::SurfacePressureActuatorSpec act;
  act.name = "cavity";
  act.cavity.name = "cavity";
  act.cavity.surface = p.mesh.surface_groups.at("cavity");
  act.pressure = {0, 50e3};
  c->inverse->add(softik::make_surface_pressure_actuator(p.mesh, act));
  softik::PositionEffectorSpec eff;
  eff.name = "tip";
  eff.point = softik::AttachedPoint::node(p.tip_node);
  const Real L = kSizes[size].length;
  eff.goal = {L - 0.002, 0.01, 0.03};  // 10 mm up: within the 50 kPa range (least squares over x, z)
  eff.axes = {true, false, true};
  c->inverse->add(softik::make_position_effector(p.mesh, eff));
  if (contacts > 0) {  // a wall over the tip (bench_wall.hpp)
    softik::ContactOptions co;
    SOFTIK_CHECK(wall_over_tip(p.mesh, contacts, co),
                 "the finger's top face has fewer nodes than the " << contacts << " contacts asked for");
    c->inverse->set_contact(co);
  }
  c->x = p.mesh.rest_positions();
  c->inverse->step(c->x);  // analysis, first factorisation, CUDA context: untimed
  for (int k = 0; contacts > 0 && k < 10; ++k) c->inverse->step(c->x);  // the tip pressed on the wall: untimed
  if (reuse >= 0) {  // tracking: settle at the circle's start, untimed
    auto& tip = tip_effector(*c);
    tip.set_goal({L - 0.0015, 0.01, 0.0255});
    tip.set_max_shift(1e-3);
    for (int k = 0; k < 60; ++k) c->inverse->step(c->x);
    tip.set_max_shift(0);
    c->centre = tip.position(c->x);
  }
  g_case = std::move(c);
  return *g_case;
}

void BM_InverseStep(benchmark::State& state, int size, softik::Backend backend, softik::LinearSolverKind kind,
                    int reuse, int contacts) {
  const Size& s = kSizes[size];
  const bool gpu = backend == softik::Backend::Cuda;
  state.SetLabel(std::string(gpu ? "GPU " : "CPU ") + softik::linear_solver_kind_name(kind));
  if (gpu) {
    std::string reason;
    if (!softik::cuda::device_available(&reason)) {
      state.SkipWithError(("no CUDA device: " + reason).c_str());
      return;
    }
    if (kind == softik::LinearSolverKind::Cudss && !softik::have_cudss_solver()) {
      state.SkipWithError("skipped: this build has no cuDSS (configure with SOFTIK_WITH_CUDSS and nvidia-cudss-cu13)");
      return;
    }
  } else {
    const bool eigen = kind == softik::LinearSolverKind::EigenLDLT;
    if (s.target > (eigen ? kEigenMaxTets : kCpuMaxTets)) {
      state.SkipWithError(eigen ? "skipped: Eigen SimplicialLDLT above 30k tets takes minutes per step (build with "
                                  "CHOLMOD for the CPU baseline)"
                                : "skipped: CPU (CHOLMOD) above 300k tets is too slow (tens of seconds per step); "
                                  "compare with the 300k CPU row");
      return;
    }
  }
  const double need = s.target * (kHostBytesPerCell + (gpu ? kGpuHostBytesPerCell : kCpuFactorBytesPerCell));
  if (!(g_problem && g_problem->size == size) && need > available_host_bytes()) {
    state.SkipWithError(("skipped: " + std::to_string(s.target) + " tets need about " + std::to_string(need / 1e9) +
                         " GB of host memory, " + std::to_string(available_host_bytes() / 1e9) + " GB available")
                            .c_str());
    return;
  }
  Case* c = nullptr;
  try {
    c = &inverse_case(size, backend, kind, reuse, contacts);
  } catch (const std::exception& e) {
    g_case.reset();
    state.SkipWithError((std::string("skipped: ") + e.what()).c_str());
    return;
  }
  const softik::Assembler& a = assembler(*g_problem, backend, reuse >= 0);
  if (kind == softik::LinearSolverKind::CudaDense && a.num_free_dofs() > softik::kGpuDenseMaxDofs) {
    state.SkipWithError(("skipped: " + std::to_string(a.num_free_dofs()) +
                         " free DOFs > kGpuDenseMaxDofs = " + std::to_string(softik::kGpuDenseMaxDofs))
                            .c_str());
    return;
  }
  InversePhaseTimes phases;
  int half = 0, refactored = 0, kept = 0;
  Real error = 0, in_step = 0, pressed = 0, pivots = 0;
  bool failed = false;
  for (auto _ : state) {
    try {
      if (reuse >= 0) {
        const Real angle = 2 * 3.141592653589793 * c->sample++ / 100;
        tip_effector(*c).set_goal(
            {c->centre[0] + 5e-4 * std::cos(angle), c->centre[1], c->centre[2] + 5e-4 * std::sin(angle)});
      }
      const softik::InverseStepReport r = c->inverse->step(c->x);
      phases.add(r);
      half += r.half_solves ? 1 : 0;
      refactored += r.refactored ? 1 : 0;
      kept += r.kept_columns;
      error += r.effector_error;
      in_step += r.contacts, pressed += r.pressed_contacts, pivots += r.contact_pivots;
    } catch (const std::exception& e) {
      g_case.reset();
      state.SkipWithError((std::string("step failed: ") + e.what()).c_str());
      failed = true;
      break;
    }
  }
  if (failed) return;
  const Real n = static_cast<Real>(state.iterations());
  state.counters["tets"] = g_problem->mesh.num_cells();
  state.counters["free_dofs"] = a.num_free_dofs();
  phases.set_counters(state, n);
  state.counters["half_solves"] = half / n;
  state.counters["refactored"] = refactored / n;
  if (reuse >= 0) {
    state.counters["tip_error_um"] = 1e6 * error / n;
    state.counters["kept_columns"] = kept / n;
  }
  if (contacts > 0) {
    state.counters["contacts"] = in_step / n;
    state.counters["pressed"] = pressed / n;
    state.counters["pivots"] = pivots / n;
  }
}

}  // namespace

int main(int argc, char** argv) {
  using softik::LinearSolverKind;
  // Registered (and so run) size by size, CPU then GPU: one mesh alive at a time.
  const LinearSolverKind cpu = softik::choose_linear_solver(softik::Backend::Cpu, 0);
  const int num_sizes = static_cast<int>(sizeof(kSizes) / sizeof(kSizes[0]));
  for (int size = 0; size < num_sizes; ++size) {
    struct Entry {
      softik::Backend backend;
      LinearSolverKind kind;
      int reuse;
      int contacts;
    };
    std::vector<Entry> cases{
        {softik::Backend::Cpu, cpu, -1, 0}, {softik::Backend::Cpu, cpu, 0, 0}, {softik::Backend::Cpu, cpu, 10, 0}};
    if (kSizes[size].target <= kGpuDenseMaxTets)
      cases.push_back({softik::Backend::Cuda, LinearSolverKind::CudaDense, -1, 0});
    cases.push_back({softik::Backend::Cuda, LinearSolverKind::Cudss, -1, 0});
    cases.push_back({softik::Backend::Cuda, LinearSolverKind::Cudss, 0, 0});
    for (int reuse : {10, 100, 1000}) cases.push_back({softik::Backend::Cuda, LinearSolverKind::Cudss, reuse, 0});
    cases.push_back({softik::Backend::Cuda, LinearSolverKind::CudaPcg, -1, 0});
    if (size == 0)  // contacts on the 10k model, CPU and GPU in one binary
      for (int n : {10, 100}) {
        cases.push_back({softik::Backend::Cpu, cpu, -1, n});
        cases.push_back({softik::Backend::Cuda, LinearSolverKind::Cudss, -1, n});
      }
    for (const Entry& e : cases) {
      const std::string name =
          std::string(e.backend == softik::Backend::Cpu ? "CPU/" : "GPU/") + softik::linear_solver_kind_name(e.kind) +
          (e.reuse >= 0 ? "/tracking/reuse:" + std::to_string(e.reuse) : "") +
          (e.contacts > 0 ? "/contacts:" + std::to_string(e.contacts) : "") + "/tets:" + kSizes[size].name;
      benchmark::RegisterBenchmark(name.c_str(), BM_InverseStep, size, e.backend, e.kind, e.reuse, e.contacts)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->MinTime(0.5);
    }
  }
  return run_benchmarks(argc, argv);
}
