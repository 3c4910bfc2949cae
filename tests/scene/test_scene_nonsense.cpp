// Scenes that would once have been accepted and answered silently wrong, or crashed (issue 13,
// item 5 and 9): each is now an error naming the key and the fix, or, for an old law name, the
// same model as its new name.
#include <gtest/gtest.h>

#include <functional>

#include "tests/scene_test_support.hpp"
#include "softik/mesh_generator.hpp"
#include "softik/scene.hpp"

namespace softik {
namespace {

/// The message of the Error thrown by parsing and building `yaml` ("(no error)" if none).
/// A 2 x 1 plate of two Quad4 (a 2-D mesh: x, y only), clamped at x = 0 (nodes 0 and 3).
std::string plate(const std::string& rest) {
  static const fs::path dir = [] {
    const fs::path d = fresh_dir("scene_nonsense_plate");
    write_file(d / "plate.vtk",
               "# vtk DataFile Version 3.0\nplate\nASCII\nDATASET UNSTRUCTURED_GRID\n"
               "POINTS 6 double\n0 0 0\n1 0 0\n2 0 0\n0 1 0\n1 1 0\n2 1 0\n"
               "CELLS 2 10\n4 0 1 4 3\n4 1 2 5 4\nCELL_TYPES 2\n9\n9\n");
    return d;
  }();
  return "mesh: {file: " + (dir / "plate.vtk").string() +
         "}\n"
         "materials: {law: linear, young: 1.0e6, poisson: 0.3}\n"
         "formulation: linear\n"
         "fixed: [{nodes: [0, 3]}]\n" +
         rest;
}

TEST(SceneNonsense, ZComponentsOnA2dMeshAreErrors) {
  // The plate itself is a valid scene.
  ASSERT_EQ(scene_build_error(plate("loads: {forces: [{nodes: [2, 5], force: [1, 2, 0]}]}\n")), "(no error)");
  std::string e = scene_build_error(plate("loads: {forces: [{nodes: [2, 5], force: [1, 0, 5]}]}\n"));
  EXPECT_NE(e.find("loads.forces[0].force: has a z component (5) but the mesh is 2-D"), std::string::npos) << e;
  e = scene_build_error(plate("loads: {gravity: {density: 1000}}\n"));  // the default g is along z
  EXPECT_NE(e.find("loads.gravity.g: has a z component (-9.81)"), std::string::npos) << e;
  EXPECT_NE(e.find("[0, -9.81, 0]"), std::string::npos) << e;
  e = scene_build_error(plate("prescribed: [{nodes: [2, 5], displacement: [0.1, 0, 0.2]}]\n"));
  EXPECT_NE(e.find("prescribed[0].displacement: has a z component (0.2)"), std::string::npos) << e;
  e = scene_build_error(plate("loads: {forces: [{nodes: [2, 5], force: [0, 0, 0], components: [z]}]}\n"));
  EXPECT_NE(e.find("loads.forces[0].components: z alone"), std::string::npos) << e;
}

TEST(SceneNonsense, ANodeBothFixedAndPrescribedIsAnError) {
  const std::string block = kBlock;  // fixed: [{group: xmin}]
  std::string e = scene_build_error(block + "prescribed: [{nodes: [0], displacement: [0.001, 0, 0]}]\n");
  EXPECT_NE(e.find("prescribed[0]: node 0 (x) is also fixed by fixed[0]"), std::string::npos) << e;
  // Different components of the same node are fine.
  const std::string sliding = R"(mesh: {generator: {type: box, size: [1, 1, 1], cells: [2, 2, 2], cell_type: hex8}}
materials: {law: neo_hookean, young: 1.0e6, poisson: 0.3}
fixed: [{group: xmin, components: [y, z]}]
prescribed: [{group: xmin, components: [x], displacement: [-0.01, 0, 0]}, {group: xmax, components: [x], displacement: [0.01, 0, 0]}]
)";
  EXPECT_EQ(scene_build_error(sliding), "(no error)");
}

TEST(SceneNonsense, DerivedModuliThatOverflowNameYoungAndPoisson) {
  for (const std::string law : {"neo_hookean", "mooney_rivlin", "linear"}) {
    const std::string e = scene_build_error(
        "mesh: {generator: {type: box, size: [1, 1, 1], cells: [1, 1, 1]}}\n"
        "materials: {law: " +
        law +
        ", young: 1.0e308, poisson: 0.45}\n"
        "fixed: [{group: xmin}]\n");
    EXPECT_NE(e.find("Young's modulus E = 1e+308 with Poisson's ratio nu = 0.45 gives"), std::string::npos)
        << law << ": " << e;
    EXPECT_NE(e.find("s.yaml:2"), std::string::npos) << e;
  }
}

TEST(SceneNonsense, AHugeGeneratedMeshIsRefusedWithItsMemoryFigure) {
  const std::string e = scene_build_error(
      "mesh: {generator: {type: box, size: [1, 1, 1], cells: [100000, 100000, 100000]}}\n"
      "materials: {law: linear, young: 1.0e6, poisson: 0.3}\nfixed: [{group: xmin}]\n");
  EXPECT_NE(e.find("degrees of freedom"), std::string::npos) << e;
  try {
    check_generated_size("make_box", 5e8, 5e8, CellType::Hex8);  // 1.5e9 DOFs: fits an int, not in memory
    ADD_FAILURE() << "no error";
  } catch (const Error& err) {
    const std::string m = err.what();
    EXPECT_NE(m.find("GB"), std::string::npos) << m;
    EXPECT_NE(m.find("more than this machine's"), std::string::npos) << m;
  }
  EXPECT_NO_THROW(check_generated_size("make_box", 1e5, 1e5, CellType::Hex8));
}

TEST(SceneNonsense, AbsurdCountsAreCapped) {
  std::string e = scene_build_error(kBlock + "solver: {load_steps: 2000000000}\n");
  EXPECT_NE(e.find("solver.load_steps: 2000000000 is above the cap of 1000000"), std::string::npos) << e;
  e = scene_build_error(kBlock + "solver: {max_iterations: 100000000}\n");
  EXPECT_NE(e.find("solver.max_iterations: 100000000 is above the cap"), std::string::npos) << e;
  e = scene_build_error(kBlock + "solver: {load_steps: 500000}\n");  // allowed, but not 500,001 .vtu files
  EXPECT_NE(e.find("would write 500001 .vtu files (cap 100000)"), std::string::npos) << e;
  EXPECT_EQ(scene_build_error(kBlock + "solver: {load_steps: 500000}\noutputs: {vtu: false}\n"), "(no error)");
  EXPECT_EQ(scene_build_error(kBlock + "solver: {load_steps: 500000}\noutputs: {every: 10}\n"), "(no error)");
}

TEST(SceneNonsense, ChordContractionIsAResidualRatioBelowOne) {
  for (const char* bad : {"1.0", "1.5", "-0.1"}) {
    const std::string e = scene_build_error(kBlock + "solver: {chord_contraction: " + bad + "}\n");
    EXPECT_NE(e.find("s.yaml:"), std::string::npos) << bad << ": " << e;
    EXPECT_NE(e.find("solver.chord_contraction: a residual ratio in [0, 1)"), std::string::npos) << bad << ": " << e;
  }
  const std::string nan = scene_build_error(kBlock + "solver: {chord_contraction: nan}\n");
  EXPECT_NE(nan.find("solver.chord_contraction: expected a finite number"), std::string::npos) << nan;
  EXPECT_EQ(scene_build_error(kBlock + "solver: {chord_contraction: 0.5}\n"), "(no error)");
}

TEST(SceneNonsense, KrylovStepsNeedACountAndATolerance) {
  for (const char* bad : {"-1", "1001", "2.5"}) {
    const std::string e = scene_build_error(kBlock + "solver: {krylov_iterations: " + bad + "}\n");
    EXPECT_NE(e.find("s.yaml:"), std::string::npos) << bad << ": " << e;
    EXPECT_NE(e.find("krylov_iterations"), std::string::npos) << bad << ": " << e;
  }
  for (const char* bad : {"0", "1", "-1e-6", "nan"}) {
    const std::string e = scene_build_error(kBlock + "solver: {krylov_tolerance: " + bad + "}\n");
    EXPECT_NE(e.find("solver.krylov_tolerance"), std::string::npos) << bad << ": " << e;
  }
  EXPECT_EQ(scene_build_error(kBlock + "solver: {krylov_iterations: 0, krylov_tolerance: 1e-8}\n"), "(no error)");
}

TEST(SceneNonsense, ExtrapolateIsABoolean) {
  for (const char* bad : {"2", "maybe", "[true]"}) {
    const std::string e = scene_build_error(kBlock + "solver: {extrapolate: " + bad + "}\n");
    EXPECT_NE(e.find("s.yaml:"), std::string::npos) << bad << ": " << e;
    EXPECT_NE(e.find("extrapolate"), std::string::npos) << bad << ": " << e;
  }
  EXPECT_EQ(scene_build_error(kBlock + "solver: {extrapolate: false}\n"), "(no error)");
}

TEST(SceneNonsense, NeoHookeanD1IsAnAliasOfTheDecoupledNeoHookean) {
  auto material = [](const std::string& law) {
    return parse_scene_string(kBlock.substr(0, kBlock.find("materials:")) + "materials: {" + law +
                                  ", young: 2.0e5, poisson: 0.45}\nfixed: [{group: xmin}]\n",
                              "s.yaml")
        .materials.front();
  };
  const SceneMaterial old = material("law: neo_hookean_d1");
  const SceneMaterial now = material("law: neo_hookean_decoupled");
  EXPECT_EQ(old.law, "neo_hookean_decoupled");
  ASSERT_TRUE(std::holds_alternative<fem::NeoHookeanD1>(old.material));
  ASSERT_TRUE(std::holds_alternative<fem::NeoHookeanD1>(now.material));
  EXPECT_EQ(std::get<fem::NeoHookeanD1>(old.material).C10, std::get<fem::NeoHookeanD1>(now.material).C10);
  EXPECT_EQ(std::get<fem::NeoHookeanD1>(old.material).D1, std::get<fem::NeoHookeanD1>(now.material).D1);
  // Another volumetric form: Mooney-Rivlin with C01 = 0, the same shear and bulk moduli.
  const SceneMaterial logsq = material("law: neo_hookean_decoupled, volumetric: log_squared");
  ASSERT_TRUE(std::holds_alternative<fem::MooneyRivlin>(logsq.material));
  const auto& mr = std::get<fem::MooneyRivlin>(logsq.material);
  EXPECT_DOUBLE_EQ(mr.C10, std::get<fem::NeoHookeanD1>(now.material).C10);
  EXPECT_EQ(mr.C01, 0.0);
  EXPECT_EQ(mr.volumetric, fem::Volumetric::LogSquared);
  // The coupled laws take no volumetric key.
  try {
    (void)material("law: neo_hookean, volumetric: d1_form");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("volumetric"), std::string::npos) << e.what();
  }
}

// Deep nesting made yaml-cpp stop with "bad file" at line 1 (its recursion guard); a NUL byte
// cut the document short for a scene given as text (the Python Scene.from_string) or a batch
// file; a huge file was read whole. Each is now an error naming the file and the cause.
TEST(SceneNonsense, YamlBeyondTheReadersLimitsIsNamedForWhatItIs) {
  const auto error_of = [](const std::string& text) {
    try {
      (void)parse_scene_string(text, "s.yaml");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  const std::string deep = "materials: " + std::string(5000, '[') + "1" + std::string(5000, ']') + "\n";
  const std::string e = error_of(deep);
  EXPECT_NE(e.find("s.yaml: lists and maps nested about"), std::string::npos) << e;
  EXPECT_EQ(e.find("bad file"), std::string::npos) << e;
  std::string maps = "materials:\n";
  for (int i = 0; i < 2000; ++i) maps += std::string(static_cast<size_t>(2 * i + 2), ' ') + "a:\n";
  EXPECT_NE(error_of(maps).find("levels deep"), std::string::npos) << error_of(maps);
  const std::string nul = error_of(std::string("mesh: {generator: {type: box}}\n\0materials: x\n", 45));
  EXPECT_NE(nul.find("s.yaml:2: a NUL byte"), std::string::npos) << nul;
  const std::string huge = "# " + std::string(65u << 20, 'x') + "\n";
  EXPECT_NE(error_of(huge).find("s.yaml: the file has 68157443 bytes, more than the 67108864"), std::string::npos)
      << error_of(huge).substr(0, 200);
  // Nesting a real scene needs (a few levels) still reads.
  EXPECT_EQ(error_of("mesh: {generator: {type: box}}\n").find("nested"), std::string::npos);
}

}  // namespace
}  // namespace softik
