// What a batch file may ask for (batch.hpp): `constraints:` leave out the swept and sampled
// designs that violate them (a listed one is an error), `max_designs:` caps the designs, and a
// design's overrides may not overlap (which value wins would depend on their order).
#include <gtest/gtest.h>

#include <initializer_list>
#include <set>
#include <string>
#include <vector>

#include "softik/batch.hpp"
#include "softik/error.hpp"
#include "tests/batch_test_support.hpp"

namespace softik {
namespace {

/// parse_batch of `text` written to `dir`/b.yaml next to the base scene.
BatchSpec parse_in(const fs::path& dir, const std::string& text) {
  write_file(dir / "block.yaml", kBatchBase);
  write_file(dir / "b.yaml", text);
  return parse_batch((dir / "b.yaml").string());
}

/// The error parse_in throws.
std::string error_in(const fs::path& dir, const std::string& text) {
  return batch_error_of([&] { (void)parse_in(dir, text); });
}

/// error_in's message for `text` holds every one of `parts`.
void expect_error_holds(const fs::path& dir, const std::string& text, std::initializer_list<const char*> parts) {
  const std::string error = error_in(dir, text);
  for (const char* part : parts) EXPECT_NE(error.find(part), std::string::npos) << error;
}

/// The value `path` is set to in `design` (fails when it is not set).
double value_of(const BatchDesign& design, const std::string& path) {
  for (const auto& [key, value] : design.set)
    if (key == path) return std::stod(value);
  ADD_FAILURE() << design.name << " does not set " << path;
  return 0;
}

TEST(BatchConstraints, SweptDesignsViolatingAConstraintAreLeftOut) {
  const fs::path dir = fresh_dir("batch_constraints_sweep");
  const std::vector<double> youngs = {5.0e4, 1.0e5, 2.0e5}, pressures = {1000, 3000};
  const BatchSpec spec = parse_in(dir, R"(scene: block.yaml
sweep:
  materials.young: [5.0e4, 1.0e5, 2.0e5]
  loads.pressure.value: [1000, 3000]
constraints: ['loads.pressure.value / materials.young <= 0.02']
)");
  // The sweep's designs in file order (the last axis fastest), and which the test expects kept.
  std::vector<std::string> expected;
  std::vector<std::pair<double, double>> expected_values;
  size_t k = 0;
  for (double young : youngs)
    for (double pressure : pressures) {
      if (pressure / young <= 0.02) {
        expected.push_back("sweep" + std::to_string(k));
        expected_values.emplace_back(young, pressure);
      }
      ++k;
    }
  ASSERT_EQ(expected.size(), 4u);  // sweep0 (at the bound), sweep2, sweep4, sweep5
  ASSERT_EQ(spec.designs.size(), expected.size());
  EXPECT_EQ(spec.dropped, youngs.size() * pressures.size() - expected.size());
  EXPECT_EQ(spec.constraints, std::vector<std::string>{"loads.pressure.value / materials.young <= 0.02"});
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(spec.designs[i].name, expected[i]);
    EXPECT_EQ(value_of(spec.designs[i], "materials.young"), expected_values[i].first) << expected[i];
    EXPECT_EQ(value_of(spec.designs[i], "loads.pressure.value"), expected_values[i].second) << expected[i];
  }
  // A kept design's scene is still its own.
  EXPECT_EQ(design_scene(spec, spec.designs[1]).pressures[0].load.pressure, 1000);

  // The other comparisons, and a constraint every design meets.
  const BatchSpec strict = parse_in(dir, R"(scene: block.yaml
sweep: {materials.young: [5.0e4, 1.0e5, 2.0e5]}
constraints: ['materials.young > 5.0e4', '2 * (materials.young - 1.0e5) < 1.0e5 + 1']
)");
  ASSERT_EQ(strict.designs.size(), 1u);
  EXPECT_EQ(strict.designs[0].name, "sweep1");
  EXPECT_EQ(strict.dropped, 2u);
  const BatchSpec all = parse_in(dir,
                                 "scene: block.yaml\nsweep: {materials.young: [5.0e4, 1.0e5]}\n"
                                 "constraints: ['materials.young >= 5.0e4']\n");
  EXPECT_EQ(all.designs.size(), 2u);
  EXPECT_EQ(all.dropped, 0u);
}

TEST(BatchConstraints, SampledDesignsViolatingAConstraintAreLeftOut) {
  const fs::path dir = fresh_dir("batch_constraints_sample");
  const std::string sample =
      "scene: block.yaml\nsample: {method: sobol, count: 16, ranges: {materials.young: [5.0e4, 2.0e5]}}\n";
  const BatchSpec unconstrained = parse_in(dir, sample);
  ASSERT_EQ(unconstrained.designs.size(), 16u);
  std::vector<std::string> expected;
  for (const BatchDesign& d : unconstrained.designs)
    if (value_of(d, "materials.young") >= 1.2e5) expected.push_back(d.name);
  ASSERT_GT(expected.size(), 0u);
  ASSERT_LT(expected.size(), 16u);
  const BatchSpec spec = parse_in(dir, sample + "constraints: ['materials.young >= 1.2e5']\n");
  std::vector<std::string> names;
  for (const BatchDesign& d : spec.designs) names.push_back(d.name);
  EXPECT_EQ(names, expected) << "the same samples, names unchanged";
  EXPECT_EQ(spec.dropped, 16u - expected.size());
}

TEST(BatchConstraints, AConstraintReadsTheBaseScenesValue) {
  const fs::path dir = fresh_dir("batch_constraints_base");
  // The base scene's poisson is 0.45; no design overrides it.
  const std::string sweep = "scene: block.yaml\nsweep: {materials.young: [5.0e4, 1.0e5, 2.0e5]}\n";
  EXPECT_EQ(parse_in(dir, sweep + "constraints: ['materials.poisson < 0.46']\n").designs.size(), 3u);
  const std::string none = error_in(dir, sweep + "constraints: ['materials.poisson < 0.45']\n");
  EXPECT_NE(none.find("violate"), std::string::npos) << none;
  // young swept, poisson from the base: 5e4 * 0.45 = 22500 is left out.
  const BatchSpec mixed = parse_in(dir, sweep + "constraints: ['materials.young * materials.poisson > 3.0e4']\n");
  ASSERT_EQ(mixed.designs.size(), 2u);
  EXPECT_EQ(mixed.designs[0].name, "sweep1");
  EXPECT_EQ(mixed.designs[1].name, "sweep2");
  // A design's override wins over the base's value.
  const BatchSpec overridden = parse_in(dir,
                                        "scene: block.yaml\nsweep: {materials.poisson: [0.3, 0.45, 0.49]}\n"
                                        "constraints: ['materials.poisson < 0.45']\n");
  ASSERT_EQ(overridden.designs.size(), 1u);
  EXPECT_EQ(overridden.designs[0].name, "sweep0");
}

TEST(BatchConstraints, AListedDesignViolatingAConstraintIsAnError) {
  const fs::path dir = fresh_dir("batch_constraints_listed");
  const std::string error = error_in(dir, R"(scene: block.yaml
designs:
  - {name: fine, set: {materials.young: 1.0e5}}
  - {name: floppy, set: {materials.young: 1.0e3}}
sweep: {materials.young: [1.0e3, 2.0e5]}
constraints: ['materials.young >= 1.0e4']
)");
  EXPECT_NE(error.find("'floppy'"), std::string::npos) << error;
  EXPECT_NE(error.find("materials.young >= 1.0e4"), std::string::npos) << error;
  // Listed designs that meet it run beside the kept swept ones.
  const BatchSpec spec = parse_in(dir, R"(scene: block.yaml
designs: [{name: fine, set: {materials.young: 1.0e5}}]
sweep: {materials.young: [1.0e3, 2.0e5]}
constraints: ['materials.young >= 1.0e4']
)");
  ASSERT_EQ(spec.designs.size(), 2u);
  EXPECT_EQ(spec.designs[0].name, "fine");
  EXPECT_EQ(spec.designs[1].name, "sweep1");
  EXPECT_EQ(spec.dropped, 1u);
}

TEST(BatchConstraints, BadConstraintsNameThePathOrTheLine) {
  const fs::path dir = fresh_dir("batch_constraints_bad");
  const std::string sweep = "scene: block.yaml\nsweep: {materials.young: [5.0e4, 1.0e5]}\n";
  for (const char* path : {"materials.density", "materials.law", "loads.pressure.nothing"}) {
    const std::string error = error_in(dir, sweep + "constraints: ['" + path + " > 0']\n");
    EXPECT_NE(error.find(std::string("'") + path + "'"), std::string::npos) << path << ": " << error;
  }
  const std::string file = (dir / "b.yaml").string();
  for (const char* constraint : {"materials.young + 1", "materials.young > 1 < 2", "materials.young"}) {
    const std::string bad = sweep + "constraints:\n  - 'materials.young > 0'\n  - '" + constraint + "'\n";
    const std::string error = error_in(dir, bad);
    EXPECT_NE(error.find(file + ":5:"), std::string::npos) << constraint << ": " << error;
    EXPECT_NE(error.find(constraint), std::string::npos) << constraint << ": " << error;
  }
}

TEST(BatchConstraints, ABatchWithNoDesignIsAnError) {
  const fs::path dir = fresh_dir("batch_constraints_empty");
  const std::string dropped = error_in(dir,
                                       "scene: block.yaml\nsweep: {materials.young: [5.0e4, 1.0e5]}\n"
                                       "constraints: ['materials.young > 1.0e6']\n");
  EXPECT_NE(dropped.find("violate"), std::string::npos) << dropped;
  EXPECT_NE(dropped.find("2"), std::string::npos) << dropped;
  const std::string empty = error_in(dir, "scene: block.yaml\ndesigns: []\n");
  EXPECT_NE(empty.find("no design"), std::string::npos) << empty;
}

TEST(BatchConstraints, MaxDesignsCapsTheBatch) {
  const fs::path dir = fresh_dir("batch_constraints_max");
  const std::string sweep = "scene: block.yaml\nmax_designs: 4\nsweep:\n  materials.young: [5.0e4, 1.0e5]\n";
  EXPECT_EQ(parse_in(dir, sweep + "  loads.pressure.value: [1000, 3000]\n").designs.size(), 4u) << "4 is allowed";
  const std::string swept = error_in(dir, sweep + "  loads.pressure.value: [1000, 2000, 3000]\n");
  EXPECT_NE(swept.find("max_designs"), std::string::npos) << swept;
  const std::string sampled = error_in(
      dir, "scene: block.yaml\nmax_designs: 4\nsample: {count: 5, ranges: {materials.young: [5.0e4, 2.0e5]}}\n");
  EXPECT_NE(sampled.find("max_designs"), std::string::npos) << sampled;
  const std::string together =
      error_in(dir,
               "scene: block.yaml\nmax_designs: 4\n"
               "designs: [{name: a}, {name: b}]\nsweep: {materials.young: [5.0e4, 1.0e5, 2.0e5]}\n");
  EXPECT_NE(together.find("max_designs"), std::string::npos) << together;
  const std::string zero = error_in(dir, "scene: block.yaml\nmax_designs: 0\ndesigns: [{name: a}]\n");
  EXPECT_NE(zero.find("max_designs"), std::string::npos) << zero;
  EXPECT_EQ(parse_in(dir, "scene: block.yaml\ndesigns: [{name: a}]\n").max_designs, 100000u) << "the default";
}

TEST(BatchConstraints, OverlappingOverridesAreErrors) {
  const fs::path dir = fresh_dir("batch_constraints_overlap");
  expect_error_holds(dir, R"(scene: block.yaml
designs:
  - name: a
    set:
      loads.pressure.value: 1000
      loads.pressure: {name: cavity, surface: cavity0, value: 2000}
)",
                     {"overlaps", "loads.pressure.value"});
  // Two spellings of one path (the same node): an error naming both.
  expect_error_holds(dir,
                     "scene: block.yaml\ndesigns: [{name: a, set: {'materials[0].young': 1.0e5, "
                     "materials.0.young: 2.0e5}}]\n",
                     {"names the same node as", "'materials.0.young'", "'materials[0].young'"});
  expect_error_holds(dir,
                     "scene: block.yaml\ndesigns: [{name: a, set: {materials.young: 1.0e5, "
                     "materials.young: 2.0e5}}]\n",
                     {"is given twice"});
  expect_error_holds(dir, R"(scene: block.yaml
sweep:
  materials: [{law: neo_hookean, young: 1.0e5, poisson: 0.4}]
  materials.young: [5.0e4, 1.0e5]
)",
                     {"overlaps"});
  expect_error_holds(dir, R"(scene: block.yaml
sample:
  count: 4
  ranges: {materials.young: [5.0e4, 2.0e5]}
  set: {materials: {law: neo_hookean, young: 1.0e5, poisson: 0.4}}
)",
                     {"overlaps sample.ranges.materials.young"});
  expect_error_holds(dir, R"(scene: block.yaml
sample:
  count: 4
  ranges: {materials.young: [5.0e4, 2.0e5]}
  set: {materials.young: 1.0e5}
)",
                     {"sample.ranges"});
  // Siblings do not overlap, nor do keys that share a prefix of letters.
  EXPECT_EQ(parse_in(dir,
                     "scene: block.yaml\ndesigns: [{name: a, set: {materials.young: 1.0e5, materials.poisson: 0.4, "
                     "loads.pressure.value: 1000, loads.pressure.name: cavity}}]\n")
                .designs[0]
                .set.size(),
            4u);
}

TEST(BatchConstraints, AHugeListIndexIsACleanError) {
  const fs::path dir = fresh_dir("batch_constraints_index");
  for (const char* path : {"'loads.pressure[99999999999].value'", "loads.pressure.99999999999.value"}) {
    std::string error;
    try {
      error = error_in(dir, std::string("scene: block.yaml\ndesigns: [{name: a, set: {") + path + ": 1000}}]\n");
    } catch (const std::exception& e) {
      FAIL() << path << ": not a softik::Error: " << e.what();
    }
    EXPECT_NE(error.find("too large"), std::string::npos) << path << ": " << error;
  }
  std::string error;
  try {
    error = error_in(dir,
                     "scene: block.yaml\nsweep: {materials.young: [5.0e4]}\n"
                     "constraints: ['loads.pressure[99999999999].value > 0']\n");
  } catch (const std::exception& e) {
    FAIL() << "constraint: not a softik::Error: " << e.what();
  }
  EXPECT_NE(error.find("99999999999"), std::string::npos) << error;
}

}  // namespace
}  // namespace softik
