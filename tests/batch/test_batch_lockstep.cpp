// Lockstep evaluation of a batch (BatchSpec::lockstep, host/batch/design_batch.hpp): the barrier
// runs one pass for every design still solving and hands each its own results and failures; the
// designs of one mesh form a group; a batch in lockstep gives exactly the table of the designs
// run one by one (on the CPU twin bitwise: the same assembly arithmetic), with fewer assembly
// passes than design assemblies; a design that fails leaves its group without stalling it.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "host/batch/batch_csv.hpp"
#include "host/batch/design_batch.hpp"
#include "softik/batch.hpp"
#include "softik/error.hpp"
#include "softik/material.hpp"
#include "softik/mesh_generator.hpp"
#include "tests/batch_test_support.hpp"
#include "tests/mesh_helpers.hpp"

namespace softik {
namespace {

using batch_detail::DesignBatch;

/// An engine that records which designs every pass held, returns x[0] + 1 as the "energy" and
/// fails design `fail_design` at its `fail_at`-th pass.
class RecordingEngine final : public DesignAssemblyEngine {
 public:
  RecordingEngine(int designs, int fail_design, int fail_at)
      : designs_(designs),
        fail_design_(fail_design),
        fail_at_(fail_at),
        energy_(static_cast<size_t>(designs), 0),
        count_(static_cast<size_t>(designs), 0) {}
  int num_designs() const override { return designs_; }
  void assemble(const std::vector<const std::vector<Real>*>& x, bool, bool, bool,
                std::vector<std::exception_ptr>& failures) override {
    failures.assign(x.size(), nullptr);
    std::set<int> held;
    for (size_t d = 0; d < x.size(); ++d) {
      if (!x[d]) continue;
      held.insert(static_cast<int>(d));
      energy_[d] = (*x[d])[0] + 1;
      if (static_cast<int>(d) == fail_design_ && ++count_[d] == fail_at_)
        failures[d] = std::make_exception_ptr(Error("design failed here", ErrorKind::Numerical));
    }
    passes.push_back(held);
  }
  Real energy(int d) const override { return energy_[static_cast<size_t>(d)]; }
  void download_force(int, std::vector<Real>& f) const override { f.clear(); }
  void download_K_values(int, std::vector<Real>& K) const override { K.clear(); }
  const Real* device_K_values(int) const override { return nullptr; }
  bool on_device() const override { return false; }

  std::vector<std::set<int>> passes;

 private:
  int designs_, fail_design_, fail_at_;
  std::vector<Real> energy_;
  std::vector<int> count_;
};

TEST(BatchLockstep, OnePassServesEveryDesignStillSolvingAndEachGetsItsOwnResult) {
  // Design d posts posts[d] times (its value d*100 + k), then leaves: pass k holds exactly the
  // designs with more than k posts, and each reads back its own value.
  const std::vector<int> posts = {5, 2, 3};
  auto engine = std::make_unique<RecordingEngine>(3, -1, 0);
  RecordingEngine* recorder = engine.get();
  DesignBatch batch(std::move(engine));
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int d = 0; d < 3; ++d)
    threads.emplace_back([&, d] {
      for (int k = 0; k < posts[static_cast<size_t>(d)]; ++k) {
        const std::vector<Real> x = {Real(d * 100 + k)};
        batch.post(d, x, true, false, false);
        if (batch.engine().energy(d) != x[0] + 1) ++wrong;
        std::this_thread::sleep_for(std::chrono::microseconds(100 * (d + 1)));  // out of phase
      }
      batch.leave(d);
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong, 0);
  ASSERT_EQ(recorder->passes.size(), 5u);
  EXPECT_EQ(batch.passes(), 5u);
  EXPECT_EQ(batch.design_passes(), 10u);
  for (size_t k = 0; k < 5; ++k) {
    std::set<int> expected;
    for (int d = 0; d < 3; ++d)
      if (posts[static_cast<size_t>(d)] > static_cast<int>(k)) expected.insert(d);
    EXPECT_EQ(recorder->passes[k], expected) << "pass " << k;
  }
}

TEST(BatchLockstep, AFailureReachesOnlyItsDesignAndTheOthersGoOn) {
  DesignBatch batch(std::make_unique<RecordingEngine>(2, 1, 2));
  std::string error1;
  int served0 = 0;
  std::thread t1([&] {
    const std::vector<Real> x = {1};
    try {
      for (int k = 0; k < 3; ++k) batch.post(1, x, false, true, false);
    } catch (const Error& e) {
      error1 = e.what();
    }
    batch.leave(1);  // as a failed design's slot does
  });
  const std::vector<Real> x = {0};
  for (int k = 0; k < 4; ++k) {
    batch.post(0, x, false, true, false);
    ++served0;
  }
  batch.leave(0);
  t1.join();
  EXPECT_EQ(served0, 4);
  EXPECT_NE(error1.find("design failed here"), std::string::npos) << error1;
  EXPECT_EQ(batch.passes(), 4u);  // two with both designs, two with design 0 alone
  EXPECT_EQ(batch.design_passes(), 6u);
  EXPECT_THROW(batch.post(0, x, false, true, false), Error);  // a design that left cannot post
}

/// A small Hex8 block (mesh_generator) as an Assembler with one material, fixed at x = 0 (or at
/// node 0 only).
Assembler block_assembler(Real young, int cells_x, bool fix_xmin, bool neo_hookean = true) {
  const Mesh mesh = box_mesh(CellType::Hex8, {cells_x, 2, 2}, {0.02, 0.01, 0.01});
  const std::vector<int> nodes = fix_xmin ? mesh.node_groups.at("xmin") : std::vector<int>{0};
  AssemblyOptions options;
  options.formulation = Formulation::Hyperelastic;
  const Material m = neo_hookean ? Material(fem::NeoHookean::from_young_poisson(young, 0.4))
                                 : Material(fem::SaintVenantKirchhoff::from_young_poisson(young, 0.4));
  return Assembler(mesh, {m}, fix_nodes(mesh, nodes), options);
}

TEST(BatchLockstep, DesignsOfOneMeshGroupTogetherOthersDoNot) {
  const Assembler a = block_assembler(1e5, 4, true);
  EXPECT_TRUE(batch_detail::same_assembly(a, block_assembler(3e5, 4, true)));          // another material: one group
  EXPECT_FALSE(batch_detail::same_assembly(a, block_assembler(1e5, 5, true)));         // another mesh
  EXPECT_FALSE(batch_detail::same_assembly(a, block_assembler(1e5, 4, false)));        // other fixed DOFs
  EXPECT_FALSE(batch_detail::same_assembly(a, block_assembler(1e5, 4, true, false)));  // another law
  Mesh moved = a.mesh();
  moved.X[5] += 1e-4;  // another geometry of the same topology: one group, each its own rest data
  const Assembler b(moved, a.materials(), fix_nodes(moved, moved.node_groups.at("xmin")), a.options());
  EXPECT_TRUE(batch_detail::same_assembly(a, b));
  Mesh renumbered = a.mesh();
  // Cells 0 and 1 numbered the other way round: the same body, another topology (CSR slots).
  std::swap_ranges(renumbered.cells.begin(), renumbered.cells.begin() + 8, renumbered.cells.begin() + 8);
  EXPECT_NE(renumbered.cells, a.mesh().cells);
  const Assembler c(renumbered, a.materials(), fix_nodes(renumbered, renumbered.node_groups.at("xmin")), a.options());
  EXPECT_FALSE(batch_detail::same_assembly(a, c));
}

/// The table without its `seconds` column (wall time differs from run to run).
Table without_seconds(Table t) {
  size_t s = 0;
  while (s < t[0].size() && t[0][s] != "seconds") ++s;
  for (auto& row : t)
    if (s < row.size()) row.erase(row.begin() + static_cast<std::ptrdiff_t>(s));
  return t;
}

/// Runs the batch `yaml` with `lockstep: <mode>` appended, in dir/<mode>.
BatchResult run_mode(const fs::path& dir, const std::string& yaml, const std::string& mode) {
  return run_batch_text(dir, mode, yaml + "lockstep: " + mode + "\n");
}

/// Runs the batch `yaml` one design at a time (dir/off) and in lockstep (dir/on): every design
/// succeeds, all in one group whose shared passes are fewer than its design assemblies, and the
/// two tables are the same but for the wall times. The lockstep run.
BatchResult expect_one_lockstep_group(const fs::path& dir, const std::string& yaml) {
  const BatchResult off = run_mode(dir, yaml, "off");
  const BatchResult on = run_mode(dir, yaml, "on");
  for (const DesignResult& d : on.designs) EXPECT_TRUE(d.ok) << d.name << ": " << d.error;
  EXPECT_EQ(on.lockstep.groups, 1u);
  EXPECT_LT(on.lockstep.passes, on.lockstep.design_passes);
  EXPECT_EQ(without_seconds(cells(dir / "on" / "b.csv")), without_seconds(cells(dir / "off" / "b.csv")));
  return on;
}

TEST(BatchLockstep, GivesTheTableOfTheDesignsRunOneByOne) {
  const fs::path dir = batch_dir("batch_lockstep_table");
  // Two block lengths (cell counts) x two widths (the same cells, other rest positions) x two
  // materials x two pressures: two groups of eight, each holding two geometries; the stiffer
  // designs converge in fewer iterations and leave their passes early.
  const std::string yaml = "scene: block.yaml\nworkers: 2\n" + kLockstepSweep;
  const BatchResult off = run_mode(dir, yaml, "off");
  const BatchResult on = run_mode(dir, yaml, "on");
  for (const DesignResult& d : on.designs) EXPECT_TRUE(d.ok) << d.name << ": " << d.error;
  EXPECT_EQ(off.lockstep.waves, 0u);
  EXPECT_EQ(on.lockstep.waves, 1u);
  EXPECT_EQ(on.lockstep.groups, 2u);
  EXPECT_GT(on.lockstep.passes, 0u);
  // Every design assembled in a shared pass: far fewer passes than design assemblies.
  EXPECT_LT(2 * on.lockstep.passes, on.lockstep.design_passes);
  EXPECT_EQ(without_seconds(cells(dir / "on" / "b.csv")), without_seconds(cells(dir / "off" / "b.csv")));
  // The designs' own outputs too (their per-step CSVs, bitwise but for the elapsed time).
  for (const DesignResult& d : on.designs) {
    const Table a = cells(dir / "on" / d.name / "block.csv"), b = cells(dir / "off" / d.name / "block.csv");
    EXPECT_EQ(without_seconds(a), without_seconds(b)) << d.name;
  }
}

TEST(BatchLockstep, WavesOfLockstepDesignsAndAFailingDesignDoesNotStallItsGroup) {
  const fs::path dir = batch_dir("batch_lockstep_waves");
  // 5 designs in waves of 2; `crush` is a pressure the block cannot carry with no step cut left:
  // it fails, alone, while its wave's other design finishes as it would alone.
  const std::string yaml = R"(scene: block.yaml
lockstep_designs: 2
designs:
  - {name: a, set: {loads.pressure.value: 2000}}
  - {name: crush, set: {loads.pressure.value: 5.0e6, solver.max_step_cuts: 0, solver.max_iterations: 4}}
  - {name: b, set: {loads.pressure.value: 4000}}
  - {name: c, set: {loads.pressure.value: 6000}}
  - {name: d, set: {loads.pressure.value: 8000}}
)";
  const BatchResult off = run_mode(dir, yaml, "off");
  const BatchResult on = run_mode(dir, yaml, "on");
  EXPECT_EQ(on.lockstep.waves, 3u);
  EXPECT_EQ(on.lockstep.groups, 3u);
  EXPECT_EQ(on.workers, 2);
  ASSERT_EQ(on.designs.size(), 5u);
  EXPECT_FALSE(on.designs[1].ok);
  EXPECT_EQ(on.designs[1].error, off.designs[1].error);
  EXPECT_EQ(on.designs[1].error_kind, ErrorKind::Numerical);
  for (size_t k : {0u, 2u, 3u, 4u}) EXPECT_TRUE(on.designs[k].ok) << on.designs[k].error;
  EXPECT_EQ(without_seconds(cells(dir / "on" / "b.csv")), without_seconds(cells(dir / "off" / "b.csv")));
}

TEST(BatchLockstep, InverseDesignsRunInLockstepToo) {
  const fs::path dir = fresh_dir("batch_lockstep_inverse");
  write_file(dir / "inv.yaml", kBlock + R"(outputs: {vtu: false}
inverse:
  mode: converged
  actuators: [{type: pressure, name: cav, surface: cavity0, min_pressure: 0, max_pressure: 20000}]
  effectors:
    - {type: position, name: tip, point: [0.03, 0.006, 0.006], axes: [x], tolerance: 1.0e-7, goal: [0.0302, 0.006, 0.006]}
)");
  expect_one_lockstep_group(dir, R"(scene: inv.yaml
sweep:
  materials.young: [1.0e5, 2.0e5, 3.0e5]
)");
}

TEST(BatchLockstep, DynamicDesignsWithContactRunInLockstepToo) {
  // A block dropped on a table (tests/scene/test_scene_dynamics.cpp): implicit time steps, each with
  // its Newton iterations and the frictional contact loop, all through the shared passes.
  const fs::path dir = fresh_dir("batch_lockstep_dynamics");
  write_file(dir / "drop.yaml", R"(name: drop
mesh: {generator: {type: box, size: [0.05, 0.05, 0.05], origin: [0, 0, 0.002], cells: [2, 2, 2], cell_type: hex8}}
formulation: linear
materials: {law: linear, young: 1.0e5, poisson: 0.3}
loads:
  gravity: {density: 1000}
dynamics: {dt: 0.01, duration: 0.2}
contact:
  obstacles:
    - {name: table, type: plane, point: [0, 0, 0], normal: [0, 0, 1], friction: 0.4}
outputs: {every: 5, vtu: false, probes: [{name: top, point: [0.025, 0.025, 0.052]}]}
)");
  const BatchResult on = expect_one_lockstep_group(dir, R"(scene: drop.yaml
sweep:
  materials.young: [1.0e5, 3.0e5]
  contact.obstacles[0].friction: [0.2, 0.6]
)");
  for (const DesignResult& d : on.designs)
    EXPECT_EQ(without_seconds(cells(dir / "on" / d.name / "drop.csv")),
              without_seconds(cells(dir / "off" / d.name / "drop.csv")))
        << d.name;
}

TEST(BatchLockstep, ResumedBatchesRunOnlyTheMissingDesignsInLockstep) {
  const fs::path dir = batch_dir("batch_lockstep_resume");
  write_file(dir / "b.yaml", "scene: block.yaml\nlockstep: on\nsweep: {loads.pressure.value: [2000, 4000, 6000]}\n");
  const BatchSpec spec = parse_batch((dir / "b.yaml").string());
  BatchRunOptions options;
  options.out_dir = (dir / "out").string();
  options.csv_path = (dir / "out" / "b.csv").string();
  const BatchResult all = run_batch(spec, options);
  const Table full = without_seconds(cells(dir / "out" / "b.csv"));
  // Drop the middle design's row, then resume: one design in one wave, the others kept.
  Table t = cells(dir / "out" / "b.csv");
  t.erase(t.begin() + 2);
  write_file(dir / "out" / "b.csv", csv_text(t));
  options.resume = true;
  const BatchResult resumed = run_batch(spec, options);
  EXPECT_EQ(all.lockstep.design_passes > 0, true);
  EXPECT_EQ(resumed.resumed, 2u);
  EXPECT_EQ(resumed.lockstep.waves, 1u);
  EXPECT_EQ(resumed.workers, 1);
  EXPECT_EQ(resumed.lockstep.passes, resumed.lockstep.design_passes);  // one design: every pass its own
  EXPECT_EQ(without_seconds(cells(dir / "out" / "b.csv")), full);
}

TEST(BatchLockstep, BadKeysAreNamed) {
  const fs::path dir = batch_dir("batch_lockstep_keys");
  const std::string base = "scene: block.yaml\nsweep: {loads.pressure.value: [1000]}\n";
  const std::string mode =
      batch_error_of([&] { parse_batch_string(base + "lockstep: sometimes\n", (dir / "b.yaml").string()); });
  EXPECT_NE(mode.find("b.yaml:3:"), std::string::npos) << mode;
  EXPECT_NE(mode.find("lockstep"), std::string::npos) << mode;
  EXPECT_NE(mode.find("auto"), std::string::npos) << mode;
  for (const char* bad : {"0", "5000", "-1"}) {
    const std::string e = batch_error_of(
        [&] { parse_batch_string(base + "lockstep_designs: " + bad + "\n", (dir / "b.yaml").string()); });
    EXPECT_NE(e.find("lockstep_designs: the designs assembled together per wave, 1 to 4096"), std::string::npos) << e;
  }
  const BatchSpec spec = parse_batch_string(base + "lockstep: on\nlockstep_designs: 7\n", (dir / "b.yaml").string());
  EXPECT_EQ(spec.lockstep, BatchLockstep::On);
  EXPECT_EQ(spec.lockstep_designs, 7);
  EXPECT_EQ(parse_batch_string(base, (dir / "b.yaml").string()).lockstep, BatchLockstep::Auto);
}

}  // namespace
}  // namespace softik
