// Batch evaluation of designs (batch.hpp, `softik batch`): the batch file reader, overrides of the
// base scene's keys, sweeps, the concurrent runner (the same answers as running each design's
// scene alone) and the one-row-per-design CSV.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <vector>

#include "host/io/atomic_file.hpp"
#include "softik/batch.hpp"
#include "softik/error.hpp"
#include "tests/batch_test_support.hpp"

namespace softik {
namespace {

TEST(Batch, SweepIsTheCartesianProductInFileOrder) {
  const fs::path dir = batch_dir("batch_sweep");
  write_block_batch(dir, R"(designs:
  - {name: soft, set: {materials.young: 5.0e4}}
sweep:
  loads.pressure.value: [1000, 2000, 3000]
  materials.poisson: [0.3, 0.4]
)");
  const BatchSpec spec = parse_batch((dir / "b.yaml").string());
  EXPECT_EQ(spec.scene_path, (dir / "block.yaml").lexically_normal().string());
  ASSERT_EQ(spec.designs.size(), 7u);
  EXPECT_EQ(spec.designs[0].name, "soft");
  ASSERT_EQ(spec.designs[0].set.size(), 1u);
  EXPECT_EQ(spec.designs[0].set[0].first, "materials.young");
  // The last axis varies fastest: (1000, 0.3), (1000, 0.4), (2000, 0.3), ...
  const char* pressures[] = {"1000", "1000", "2000", "2000", "3000", "3000"};
  const char* poissons[] = {"0.3", "0.4", "0.3", "0.4", "0.3", "0.4"};
  for (size_t k = 0; k < 6; ++k) {
    const BatchDesign& d = spec.designs[k + 1];
    EXPECT_EQ(d.name, "sweep" + std::to_string(k));
    ASSERT_EQ(d.set.size(), 2u);
    EXPECT_EQ(d.set[0].first, "loads.pressure.value");
    EXPECT_EQ(d.set[0].second, pressures[k]);
    EXPECT_EQ(d.set[1].second, poissons[k]);
  }
  // The overrides reach the parsed scene (a one-element map given as a list works by index too).
  const Scene s = design_scene(spec, spec.designs[4]);
  ASSERT_EQ(s.pressures.size(), 1u);
  EXPECT_EQ(s.pressures[0].load.pressure, 2000);
  const BatchDesign indexed{"i", {{"loads.pressure[0].value", "4321"}}};
  write_file(dir / "list.yaml", kBlock + "loads: {pressure: [{surface: cavity0, value: 1}]}\n");
  BatchSpec list_spec = spec;
  list_spec.scene_path = (dir / "list.yaml").string();
  EXPECT_EQ(design_scene(list_spec, indexed).pressures[0].load.pressure, 4321);
}

TEST(Batch, BadBatchFilesNameTheProblem) {
  const fs::path dir = batch_dir("batch_errors");
  const BatchErrorCase cases[] = {
      {"designs: [{name: a}]\n", "missing required key 'scene'"},
      {"scene: block.yaml\n", "needs 'designs'"},
      {"scene: block.yaml\nworkers: -1\ndesigns: [{name: a}]\n", "workers: must be >= 0"},
      {"scene: block.yaml\nfrobnicate: 1\ndesigns: [{name: a}]\n", "frobnicate"},
      {"scene: block.yaml\ndesigns: [{name: a}, {name: a}]\n", "two designs are named 'a'"},
      {"scene: block.yaml\ndesigns: [{name: 'a b'}]\n", "a b"},
      {"scene: block.yaml\nsweep: {materials.young: []}\n", "non-empty list"},
      {"scene: missing.yaml\ndesigns: [{name: a}]\n", "cannot open base scene"},
      {"scene: block.yaml\ndesigns: [{name: a, set: {materials.nothing.young: 1}}]\n",
       "design 'a': override 'materials.nothing.young': materials has no key 'nothing'"},
      {"scene: block.yaml\ndesigns: [{name: a, set: {'fixed[3].group': xmax}}]\n", "fixed has 1 entries, no [3]"},
      {"scene: block.yaml\ndesigns: [{name: a, set: {materials.young: -5}}]\n", "in design 'a' of"},
      {"scene: block.yaml\ndesigns: [{name: a, set: {solver.colour: red}}]\n", "colour"},
  };
  for (const BatchErrorCase& c : cases) {
    const std::string message = batch_file_error(dir, c.text);
    EXPECT_NE(message.find(c.expected), std::string::npos) << c.text << "\n-> " << message;
  }
  // A negative modulus fails in the base scene's reader, which names the key and the override.
  const std::string message =
      batch_file_error(dir, "scene: block.yaml\ndesigns: [{name: neg, set: {materials.young: -5}}]\n");
  EXPECT_NE(message.find("Young's modulus"), std::string::npos) << message;
  EXPECT_NE(message.find("overrides: materials.young = -5"), std::string::npos) << message;
}

TEST(Batch, ConcurrentRunGivesEachDesignsOwnAnswer) {
  const fs::path dir = batch_dir("batch_run");
  write_block_batch(dir, R"(workers: 3
sweep:
  loads.pressure.value: [2000, 4000, 6000]
  materials.young: [1.0e5, 2.0e5]
)");
  const BatchSpec spec = parse_batch((dir / "b.yaml").string());
  BatchRunOptions options;
  options.out_dir = (dir / "out").string();
  const BatchResult result = run_batch(spec, options);
  ASSERT_EQ(result.designs.size(), 6u);
  EXPECT_EQ(result.workers, 3);
  EXPECT_GT(result.designs_per_second(), 0);
  for (size_t k = 0; k < 6; ++k) {
    const DesignResult& d = result.designs[k];
    ASSERT_TRUE(d.ok) << d.error;
    // The same answer as the design's scene run on its own, to round-off (the batch runs its
    // factorisations with fewer BLAS threads, which sums in another order; the assembly is
    // deterministic for any thread count).
    Scene scene = design_scene(spec, spec.designs[k]);
    SceneRunOptions alone;
    alone.out_dir = (dir / ("alone" + std::to_string(k))).string();
    const SceneRunResult reference = run_scene(scene, alone);
    ASSERT_EQ(d.run.probes.size(), 1u);
    const auto& u_ref = reference.probes[0].displacement;
    const Real scale = std::max({std::abs(u_ref[0]), std::abs(u_ref[1]), std::abs(u_ref[2])});
    ASSERT_GT(scale, 0);
    for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(d.run.probes[0].displacement[i], u_ref[i], 1e-10 * scale) << k;
    EXPECT_NEAR(d.run.pressures[0].volume, reference.pressures[0].volume, 1e-12 * reference.pressures[0].volume);
    EXPECT_TRUE(fs::exists(fs::path(options.out_dir) / d.name / "block.csv")) << d.name;
  }
  // Physics across the sweep: the tip moves more at a higher pressure and less in a stiffer body.
  const Real ux_2k_soft = result.designs[0].run.probes[0].displacement[0];
  const Real ux_2k_stiff = result.designs[1].run.probes[0].displacement[0];
  const Real ux_6k_soft = result.designs[4].run.probes[0].displacement[0];
  EXPECT_GT(ux_2k_soft, 0);
  EXPECT_GT(ux_6k_soft, 2.5 * ux_2k_soft);
  EXPECT_LT(ux_2k_stiff, 0.6 * ux_2k_soft);

  std::ostringstream csv;
  write_batch_csv(spec, result, csv);
  write_file(dir / "b.csv", csv.str());
  const auto rows = read_csv(dir / "b.csv");
  ASSERT_EQ(rows.size(), 7u);
  std::map<std::string, size_t> column;
  for (size_t c = 0; c < rows[0].size(); ++c) column[rows[0][c]] = c;
  for (const char* name : {"design", "status", "loads.pressure.value", "materials.young", "ux_tip", "volume_cavity",
                           "pressure_cavity", "newton_iterations"})
    EXPECT_EQ(column.count(name), 1u) << name;
  for (size_t k = 0; k < 6; ++k) {
    EXPECT_EQ(rows[k + 1][column["design"]], spec.designs[k].name);
    EXPECT_EQ(rows[k + 1][column["status"]], "ok");
    EXPECT_NEAR(std::stod(rows[k + 1][column["ux_tip"]]), result.designs[k].run.probes[0].displacement[0],
                1e-9 * std::abs(result.designs[k].run.probes[0].displacement[0]));
    EXPECT_EQ(std::stod(rows[k + 1][column["pressure_cavity"]]), std::stod(spec.designs[k].set[0].second));
  }
}

TEST(Batch, AFailingDesignIsRecordedAndTheOthersRun) {
  const fs::path dir = batch_dir("batch_fail");
  // Nothing fixed: the stiffness is singular (a clear error), the other design runs.
  write_block_batch(dir, R"(workers: 2
designs:
  - {name: good}
  - {name: floating, set: {fixed: []}}
)");
  const BatchSpec spec = parse_batch((dir / "b.yaml").string());
  BatchRunOptions options;
  options.out_dir = (dir / "out").string();
  const BatchResult result = run_batch(spec, options);
  ASSERT_EQ(result.designs.size(), 2u);
  EXPECT_TRUE(result.designs[0].ok) << result.designs[0].error;
  EXPECT_FALSE(result.designs[1].ok);
  EXPECT_NE(result.designs[1].error.find("singular"), std::string::npos) << result.designs[1].error;
  std::ostringstream csv;
  write_batch_csv(spec, result, csv);
  EXPECT_NE(csv.str().find("floating,error,"), std::string::npos) << csv.str();
}

TEST(Batch, CliWritesOneRowPerDesign) {
  const fs::path dir = batch_dir("batch_cli");
  write_file(dir / "sweep.yaml", "scene: block.yaml\nsweep: {loads.pressure.value: [1000, 3000]}\n");
  const fs::path out = dir / "out", so = dir / "stdout.txt", se = dir / "stderr.txt";
  ASSERT_EQ(
      run_cli("batch " + (dir / "sweep.yaml").string() + " --out " + out.string() + " --workers 2 --quiet", se, so), 0)
      << read_file(se);
  EXPECT_NE(read_file(so).find("2/2 designs ok"), std::string::npos) << read_file(so);
  const auto rows = read_csv(out / "sweep.csv");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1][0], "sweep0");
  EXPECT_EQ(rows[2][1], "ok");
  EXPECT_EQ(run_cli("batch " + (dir / "sweep.yaml").string() + " --out " + out.string() + " --workers x", se, so), 1);
  EXPECT_NE(read_file(se).find("--workers must be an integer"), std::string::npos) << read_file(se);
  EXPECT_EQ(run_cli("batch " + (dir / "sweep.yaml").string() + " --out " + out.string() + " --backend gpu", se, so), 1);
  EXPECT_NE(read_file(se).find("--backend must be cpu or cuda"), std::string::npos) << read_file(se);
  EXPECT_EQ(run_cli("batch " + (dir / "sweep.yaml").string(), se, so), 1);
  EXPECT_NE(read_file(se).find("'batch' needs --out DIR"), std::string::npos) << read_file(se);
}

// A design's name becomes its folder in --out: every name that could reach outside --out, or
// take a file the batch writes itself, is refused with the name and the rule (issue: a design
// named '..' wrote into the parent of --out and its stale-file cleanup deleted files there).
TEST(Batch, DesignNamesAreOneSafePathComponent) {
  const fs::path dir = batch_dir("batch_names");
  const BatchErrorCase cases[] = {
      // the design's name, and the error
      {"'..'", "names the output folder's parent"},
      {"'.'", "names the output folder itself"},
      {"''", "expected a non-empty text"},
      {"'a/b'", "path separator"},
      {"'..\\\\x'", "path separator"},
      {"\"a\\tb\"", "control character"},
      {"b.csv", "taken by the batch's own files"},  // the batch file is b.yaml: its table is b.csv
      {"b.summary.csv", "taken by the batch's own files"},
  };
  for (const BatchErrorCase& c : cases) {
    const std::string message =
        batch_file_error(dir, std::string("scene: block.yaml\ndesigns: [{name: ") + c.text + "}]\n");
    EXPECT_NE(message.find(c.expected), std::string::npos) << c.text << "\n-> " << message;
    EXPECT_NE(message.find("b.yaml:2:"), std::string::npos) << message;  // the key's line
    EXPECT_NE(message.find("designs[0].name"), std::string::npos) << message;
  }
  // Names that merely contain dots or the stem elsewhere are fine.
  for (const char* ok : {"b", "b2", "v1.5", "..a", "a..", "my_b.csv", "b_csv"}) {
    BatchSpec spec;
    spec.path = (dir / "b.yaml").string();
    EXPECT_NO_THROW(check_design_name(spec, ok)) << ok;
  }
  BatchSpec api;
  api.path = (dir / "b.yaml").string();
  EXPECT_NE(batch_error_of([&] { check_design_name(api, ""); }).find("it is empty"), std::string::npos);
  // A scene's own name is one path component too (it names <name>.csv in --out).
  EXPECT_NE(scene_build_error(kBatchBase + "name: '..'\n").find("names the output folder's parent"), std::string::npos);
}

// A spec built in code (the C++ API, the Python module) gets the same check before anything runs:
// files planted beside --out, named as the scene's outputs and the stale-output cleanup's targets,
// survive a batch whose design is named '..', and so does everything when the names are fine.
TEST(Batch, NothingOutsideOutIsWrittenOrDeleted) {
  const fs::path dir = batch_dir("batch_escape");
  const fs::path out = dir / "out";
  fs::create_directories(out);
  // What a run of the base scene (named after block.yaml: 'block') would write or delete in a folder.
  const std::vector<std::string> planted = {"block.csv", "block.pvd", "block_0001.vtu", "b.csv", "keep.txt"};
  for (const std::string& f : planted) write_file(dir / f, "planted " + f + "\n");
  BatchSpec spec;
  spec.path = (dir / "b.yaml").string();
  spec.scene_path = (dir / "block.yaml").string();
  spec.workers = 1;
  BatchRunOptions options;
  options.out_dir = out.string();
  options.csv_path = (out / "b.csv").string();
  for (const char* bad : {"..", ".", "../out2", "b.csv"}) {
    spec.designs = {BatchDesign{"fine", {}}, BatchDesign{bad, {}}};
    const std::string message = batch_error_of([&] { run_batch(spec, options); });
    EXPECT_NE(message.find(std::string("design name '") + bad + "'"), std::string::npos) << message;
    // run_design (an MPI rank's call) refuses it too, as that design's error.
    const DesignResult r = run_design(spec, 1, options);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("design name"), std::string::npos) << r.error;
  }
  EXPECT_FALSE(fs::exists(out / "fine")) << "a design ran although another's name was refused";
  EXPECT_FALSE(fs::exists(dir / "out2"));
  spec.designs = {BatchDesign{"fine", {}}, BatchDesign{"v1.5", {{"loads.pressure.value", "3000"}}}};
  const BatchResult result = run_batch(spec, options);
  ASSERT_EQ(result.designs.size(), 2u);
  EXPECT_TRUE(result.designs[0].ok && result.designs[1].ok) << result.designs[0].error << result.designs[1].error;
  EXPECT_TRUE(fs::exists(out / "fine" / "block.csv"));
  EXPECT_TRUE(fs::exists(out / "b.csv"));
  for (const std::string& f : planted) EXPECT_EQ(read_file(dir / f), "planted " + f + "\n") << f;
  std::vector<std::string> beside;
  for (const auto& e : fs::directory_iterator(dir)) beside.push_back(e.path().filename().string());
  std::sort(beside.begin(), beside.end());
  const std::vector<std::string> expected = {"b.csv",          "block.csv", "block.pvd", "block.yaml",
                                             "block_0001.vtu", "keep.txt",  "out"};
  EXPECT_EQ(beside, expected);
}

// The results table cannot replace a folder of its name: the write is an I/O error (it was
// swallowed: a successful removal of the temporary file cleared the rename's error code).
TEST(Batch, ATableThatCannotReplaceAFolderIsAnIoError) {
  const fs::path dir = fresh_dir("batch_table_folder");
  fs::create_directories(dir / "t.csv" / "inside");
  try {
    detail::write_atomically((dir / "t.csv").string(), "design,status,error\n");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_NE(std::string(e.what()).find("a folder of that name is in the way"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_directory(dir / "t.csv" / "inside"));
  EXPECT_FALSE(fs::exists(dir / "t.csv.tmp"));
}

}  // namespace
}  // namespace softik
