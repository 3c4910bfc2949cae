// The softik command line against its documentation (docs/cli.md): every documented option and
// value is accepted and every option of --help is documented; the exit statuses 0/1/2/3 of
// success, input errors, non-convergence or unreached goals, and I/O errors; errors carry a kind
// and never name softik's own source files.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "softik/error.hpp"
#include "softik/material_library.hpp"
#include "softik/scene.hpp"
#include "tests/scene_test_support.hpp"

namespace softik {
namespace {

#ifdef SOFTIK_CLI_PATH

const fs::path kDocs = fs::path(SOFTIK_SOURCE_DIR) / "docs" / "cli.md";

/// One row of the options table of docs/cli.md.
struct DocumentedOption {
  std::string option;
  std::vector<std::string> commands;  ///< run, batch (or "all")
  std::vector<std::string> values;    ///< the `backticked` values; empty for a flag or a free value
  std::string value_text;             ///< the values cell as written
};

std::vector<std::string> backticked(const std::string& cell) {
  std::vector<std::string> words;
  const std::regex word("`([^`]+)`");
  for (auto it = std::sregex_iterator(cell.begin(), cell.end(), word); it != std::sregex_iterator(); ++it)
    words.push_back((*it)[1]);
  return words;
}

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(' '), b = s.find_last_not_of(' ');
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

std::vector<DocumentedOption> documented_options() {
  std::vector<DocumentedOption> options;
  std::istringstream in(read_file(kDocs));
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| `--", 0) != 0) continue;
    std::vector<std::string> cells;
    std::stringstream s(line.substr(1));
    for (std::string cell; std::getline(s, cell, '|');) cells.push_back(trim(cell));
    if (cells.size() < 4) continue;
    DocumentedOption o;
    o.option = backticked(cells[0]).at(0);
    std::stringstream commands(cells[1]);
    for (std::string c; std::getline(commands, c, ',');) o.commands.push_back(trim(c));
    o.values = backticked(cells[2]);
    o.value_text = cells[2];
    options.push_back(o);
  }
  return options;
}

TEST(Cli, DocumentedOptionsAreAccepted) {
  const std::vector<DocumentedOption> options = documented_options();
  ASSERT_GE(options.size(), 6u) << "no options table found in " << kDocs;
  const fs::path dir = fresh_dir("cli_docs");
  const fs::path err = dir / "stderr.txt";
  const std::string missing = (dir / "missing.yaml").string();
  int checked = 0;
  for (const DocumentedOption& o : options) {
    if (o.commands.size() == 1 && o.commands[0] == "all") {
      EXPECT_EQ(run_cli(o.option, err), 0) << o.option << ": " << read_file(err);
      ++checked;
      continue;
    }
    std::vector<std::string> values = o.values;
    if (values.empty() && !o.value_text.empty()) {
      // A free value: a folder or a number.
      values.push_back(o.value_text.find("integer") != std::string::npos ? "2" : (dir / "out2").string());
    }
    if (values.empty()) values.push_back("");  // a flag
    for (const std::string& command : o.commands) {
      for (const std::string& value : values) {
        // The scene file does not exist: an accepted command line gets as far as reading it; a
        // refused option stops before, with the usage text.
        std::string args = command + " " + missing;
        if (o.option != "--out") args += " --out " + (dir / "out").string();
        args += " " + o.option + (value.empty() ? "" : " " + value);
        const int status = run_cli(args, err);
        const std::string text = read_file(err);
        EXPECT_NE(status, 0) << args;
        EXPECT_EQ(text.find("usage:"), std::string::npos) << "documented but refused: " << args << "\n" << text;
        EXPECT_NE(text.find(missing), std::string::npos) << args << "\n" << text;
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 14);
}

TEST(Cli, EveryOptionOfHelpIsDocumented) {
  const fs::path dir = fresh_dir("cli_help");
  ASSERT_EQ(run_cli("--help", dir / "err.txt", dir / "help.txt"), 0);
  const std::string help = read_file(dir / "help.txt");
  std::set<std::string> documented;
  for (const DocumentedOption& o : documented_options()) documented.insert(o.option);
  const std::regex option("(^|[ \\[])(--[a-z][a-z-]*)");
  std::set<std::string> in_help;
  for (auto it = std::sregex_iterator(help.begin(), help.end(), option); it != std::sregex_iterator(); ++it)
    in_help.insert((*it)[2]);
  EXPECT_GE(in_help.size(), 6u) << help;
  for (const std::string& o : in_help) EXPECT_EQ(documented.count(o), 1u) << o << " is in --help but not in " << kDocs;
  for (const std::string& o : documented) EXPECT_EQ(in_help.count(o), 1u) << o << " is documented but not in --help";
}

TEST(Cli, LinearSolverAutoRunsAScene) {
  const fs::path dir = fresh_dir("cli_auto");
  write_file(dir / "s.yaml", kBlock +
                                 "loads: {pressure: {surface: cavity0, value: 1000}}\nsolver: {load_steps: 1}\n"
                                 "outputs: {vtu: false}\n");
  const fs::path err = dir / "stderr.txt";
  EXPECT_EQ(
      run_cli("run " + (dir / "s.yaml").string() + " --out " + (dir / "out").string() + " --linear-solver auto --quiet",
              err),
      0)
      << read_file(err);
}

/// The block with an inverse section whose goal (an elongation of 5 mm of a 30 mm block) lies far
/// beyond what a cavity at most 2 kPa can do.
std::string unreachable_scene() {
  return kBlock + R"(outputs: {vtu: false}
inverse:
  steps_per_target: 3
  actuators: [{type: pressure, name: cav, surface: cavity0, min_pressure: 0, max_pressure: 2000}]
  effectors:
    - {type: position, name: tip, point: [0.03, 0.006, 0.006], axes: [x], tolerance: 1.0e-6, goal: [0.035, 0.006, 0.006]}
)";
}

TEST(Cli, UnreachedGoalExitsWithStatusTwoAndSaysByHowMuch) {
  const fs::path dir = fresh_dir("cli_unreached");
  write_file(dir / "far.yaml", unreachable_scene());
  const fs::path err = dir / "stderr.txt", out = dir / "stdout.txt";
  EXPECT_EQ(run_cli("run " + (dir / "far.yaml").string() + " --out " + (dir / "out").string() + " --quiet", err, out),
            2)
      << read_file(err);
  const std::string text = read_file(err);
  EXPECT_NE(text.find("goals not reached"), std::string::npos) << text;
  EXPECT_NE(text.find("effector tip reached 0 of 1 goals: final error"), std::string::npos) << text;
  EXPECT_NE(text.find("tolerance 1e-06"), std::string::npos) << text;
  EXPECT_NE(text.find("why: "), std::string::npos) << text;
  // The summary and the CSV are still written.
  EXPECT_NE(read_file(out).find("NOT reached"), std::string::npos) << read_file(out);
  EXPECT_TRUE(fs::exists(dir / "out" / "far.csv"));
}

TEST(Cli, UnmetGoalsIsEmptyOnlyWhenEveryGoalWasReached) {
  SceneRunResult r;
  EXPECT_EQ(unmet_goals(r), "");  // a forward run
  r.inverse.enabled = true;
  r.inverse.effectors.push_back({"tip", "length", 1e-6, 0, 0, 2, 2});
  EXPECT_EQ(unmet_goals(r), "");
  r.inverse.effectors.push_back({"side", "length", 1e-6, 3e-3, 4e-3, 2, 1});
  r.inverse.last_message = "actuator cav at its upper bound";
  const std::string why = unmet_goals(r);
  EXPECT_NE(why.find("effector side reached 1 of 2 goals: final error 0.003, worst 0.004 (tolerance 1e-06"),
            std::string::npos)
      << why;
  EXPECT_EQ(why.find("effector tip"), std::string::npos) << why;
  EXPECT_NE(why.find("why: actuator cav at its upper bound"), std::string::npos) << why;
  r.inverse.effectors.pop_back();
  r.inverse.unconverged = 1;
  EXPECT_NE(unmet_goals(r).find("1 converged solve(s) did not converge"), std::string::npos);
}

TEST(Cli, NewtonFailureExitsWithStatusTwo) {
  const fs::path dir = fresh_dir("cli_newton");
  // A linear-elastic St Venant-Kirchhoff block cannot carry 100 MPa in its cavity: the cells
  // invert, and six step cuts do not help.
  write_file(dir / "burst.yaml",
             kBlock +
                 "loads: {pressure: {surface: cavity0, value: 1.0e8}}\nsolver: {load_steps: 1, max_iterations: 3}\n"
                 "outputs: {vtu: false}\n");
  const fs::path err = dir / "stderr.txt";
  EXPECT_EQ(run_cli("run " + (dir / "burst.yaml").string() + " --out " + (dir / "out").string() + " --quiet", err), 2)
      << read_file(err);
  EXPECT_NE(read_file(err).find("Newton failed at load factor"), std::string::npos) << read_file(err);
}

TEST(Cli, UnwritableOutputFolderExitsWithStatusThree) {
  const fs::path dir = fresh_dir("cli_io");
  write_file(dir / "s.yaml", kBlock +
                                 "loads: {pressure: {surface: cavity0, value: 1000}}\nsolver: {load_steps: 1}\n"
                                 "outputs: {vtu: false}\n");
  write_file(dir / "a_file", "not a folder");
  const fs::path err = dir / "stderr.txt";
  // The output folder would be inside a regular file: it cannot be created, even by root.
  const std::string out = (dir / "a_file" / "out").string();
  EXPECT_EQ(run_cli("run " + (dir / "s.yaml").string() + " --out " + out + " --quiet", err), 3) << read_file(err);
  EXPECT_NE(read_file(err).find(out), std::string::npos) << read_file(err);
}

TEST(Cli, ARerunWithFewerStepsLeavesNoStaleVtuAndKeepsTheUsersFiles) {
  const fs::path dir = fresh_dir("cli_rerun");
  const fs::path out = dir / "out", err = dir / "stderr.txt";
  const auto scene = [](int steps) {
    return kBlock +
           "loads: {pressure: {surface: cavity0, value: 1000}}\nsolver: {load_steps: " + std::to_string(steps) +
           "}\noutputs: {vtu: true}\n";
  };
  write_file(dir / "s.yaml", scene(4));
  ASSERT_EQ(run_cli("run " + (dir / "s.yaml").string() + " --out " + out.string() + " --quiet", err), 0)
      << read_file(err);
  ASSERT_TRUE(fs::exists(out / "s_0004.vtu"));
  write_file(out / "notes.txt", "mine");
  write_file(out / "s_final.vtu", "mine too");          // not softik's numbering
  write_file(out / "other_0003.vtu", "another scene");  // another scene's series
  write_file(dir / "s.yaml", scene(2));
  ASSERT_EQ(run_cli("run " + (dir / "s.yaml").string() + " --out " + out.string() + " --quiet", err), 0)
      << read_file(err);
  EXPECT_TRUE(fs::exists(out / "s_0002.vtu"));
  EXPECT_FALSE(fs::exists(out / "s_0003.vtu"));
  EXPECT_FALSE(fs::exists(out / "s_0004.vtu"));
  EXPECT_EQ(read_file(out / "s.pvd").find("s_0003.vtu"), std::string::npos);
  EXPECT_EQ(read_file(out / "notes.txt"), "mine");
  EXPECT_EQ(read_file(out / "s_final.vtu"), "mine too");
  EXPECT_EQ(read_file(out / "other_0003.vtu"), "another scene");
}

TEST(Cli, AFolderOrABinaryFileGivenAsASceneIsNamedForWhatItIs) {
  const fs::path dir = fresh_dir("cli_not_a_scene");
  const fs::path err = dir / "stderr.txt";
  fs::create_directories(dir / "folder.yaml");
  EXPECT_EQ(run_cli("run " + (dir / "folder.yaml").string() + " --out " + (dir / "out").string(), err), 1);
  EXPECT_NE(read_file(err).find("is a folder, not a scene file"), std::string::npos) << read_file(err);
  write_file(dir / "nul.yaml", std::string("mesh: {generator: {type: box}}\n\0materials: x\n", 45));
  EXPECT_EQ(run_cli("run " + (dir / "nul.yaml").string() + " --out " + (dir / "out").string(), err), 1);
  EXPECT_NE(read_file(err).find((dir / "nul.yaml").string() + ":2: a NUL byte"), std::string::npos) << read_file(err);
  EXPECT_EQ(run_cli("run " + (dir / "missing.yaml").string() + " --out " + (dir / "out").string(), err), 3);
  EXPECT_NE(read_file(err).find("no such file"), std::string::npos) << read_file(err);
}

TEST(Cli, MessagesNeverNameSoftiksSourceFiles) {
  const fs::path dir = fresh_dir("cli_source");
  const fs::path err = dir / "stderr.txt";
  const std::vector<std::string> scenes = {
      "mesh: {generator: {type: box}}\nmaterials: {law: linear, young: -1, poisson: 0.3}\n",
      "mesh: {generator: {type: box, divisions: [0, 1, 1]}}\nmaterials: {law: linear, young: 1, poisson: 0.3}\n",
      "mesh: {file: nowhere.msh}\nmaterials: {law: linear, young: 1, poisson: 0.3}\n",
      "mesh: {generator: {type: box}}\nmaterials: {law: neo_hookean, young: 1e5, poisson: 0.6}\n",
      "mesh: {generator: {type: box}}\nmaterials: {law: linear, young: 1e5, poisson: 0.3}\nsolver: {linear_solver: "
      "x}\n",
      "mesh: {generator: {type: box}}\nmaterials: {law: linear, young: 1e5, poisson: 0.3}\n",  // nothing fixed
      "{{{",
  };
  const std::regex source("[A-Za-z_]+\\.(cpp|hpp|cu|cuh|h):[0-9]+");
  for (size_t k = 0; k < scenes.size(); ++k) {
    const fs::path scene = dir / ("bad" + std::to_string(k) + ".yaml");
    write_file(scene, scenes[k]);
    const int status = run_cli("run " + scene.string() + " --out " + (dir / "out").string() + " --quiet", err);
    const std::string text = read_file(err);
    EXPECT_NE(status, 0) << scenes[k];
    EXPECT_NE(text.find("softik: error: "), std::string::npos) << text;
    EXPECT_FALSE(std::regex_search(text, source)) << "a softik source location in: " << text;
  }
}

TEST(Cli, MaterialsListsTheLibraryAndShowsOneWithItsSource) {
  const fs::path dir = fresh_dir("cli_materials");
  ASSERT_EQ(run_cli("materials", dir / "err.txt", dir / "list.txt"), 0) << read_file(dir / "err.txt");
  const std::string list = read_file(dir / "list.txt");
  for (const LibraryMaterial& m : material_library().materials) {  // every name, once per line
    EXPECT_NE(list.find("\n  " + m.name + "  " + m.title), std::string::npos) << m.name << " in\n" << list;
    for (const MaterialFit& f : m.fits) EXPECT_NE(list.find(f.law), std::string::npos) << f.id;
  }
  EXPECT_NE(list.find("dragon_skin_30  Dragon Skin 30 (Smooth-On): yeoh (default, fitted by softik)"),
            std::string::npos)
      << list;

  ASSERT_EQ(run_cli("materials ecoflex_00_30", dir / "err.txt", dir / "one.txt"), 0) << read_file(dir / "err.txt");
  const std::string one = read_file(dir / "one.txt");
  for (const std::string& expected :
       {std::string("fit steck2019_ogden3: law ogden (default)"),
        std::string("as printed (ogden_1972 convention, kPa): mu = [22, 0.4, -2], alpha = [1.3, 5, -2]"),
        std::string("softik's constants (Pa): mu = [14300, 1000, 2000]"), std::string("doi:10.1002/app.47025"),
        std::string("fit marechal2021_yeoh3: law yeoh (fitted by softik)"), std::string("density: 1070 kg/m^3"),
        std::string("largest deviation of the fit from them: 3.1 %")})
    EXPECT_NE(one.find(expected), std::string::npos) << expected << " in\n" << one;

  EXPECT_EQ(run_cli("materials ecoflex30", dir / "err.txt"), 1);
  EXPECT_NE(read_file(dir / "err.txt").find("unknown material 'ecoflex30'; did you mean 'ecoflex_00_30'?"),
            std::string::npos)
      << read_file(dir / "err.txt");
  EXPECT_EQ(run_cli("materials a b", dir / "err.txt"), 1);
  EXPECT_NE(read_file(dir / "err.txt").find("'materials' takes at most one name"), std::string::npos);
  EXPECT_EQ(run_cli("materials --out x", dir / "err.txt"), 1);
  EXPECT_NE(read_file(dir / "err.txt").find("'materials' takes no option"), std::string::npos);
}

#endif  // SOFTIK_CLI_PATH

TEST(ErrorKinds, ChecksCarryTheirKindAndKeepTheSourceApart) {
  try {
    SOFTIK_CHECK(1 + 1 == 3, "node " << 7 << " is fixed twice");
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "node 7 is fixed twice");
    EXPECT_EQ(e.kind(), ErrorKind::Input);
    EXPECT_NE(e.source().find("test_cli.cpp:"), std::string::npos) << e.source();
  }
  const auto kind_of = [](auto&& body) {
    try {
      body();
    } catch (const Error& e) {
      return e.kind();
    }
    return ErrorKind::Internal;
  };
  EXPECT_EQ(kind_of([] { SOFTIK_CHECK_NUMERICAL(false, "x"); }), ErrorKind::Numerical);
  EXPECT_EQ(kind_of([] { SOFTIK_CHECK_IO(false, "x"); }), ErrorKind::Io);
  EXPECT_EQ(kind_of([] { SOFTIK_CHECK_KIND(false, ErrorKind::Unsupported, "x"); }), ErrorKind::Unsupported);
  EXPECT_STREQ(error_kind_name(ErrorKind::Numerical), "numerical");
  EXPECT_STREQ(error_kind_name(ErrorKind::Io), "io");
}

}  // namespace
}  // namespace softik
