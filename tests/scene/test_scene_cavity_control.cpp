// Scenes with volume-controlled and gas cavities (loads.pressure `control`, issue 17 item 3): the
// balloon inflated by volume passes its pressure maximum on the incompressible closed form; a gas
// cavity ends where Boyle's law holds for the solved pressure; and every bad value of the new keys
// is an error naming its key and position.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "softik/scene.hpp"
#include "tests/balloon.hpp"
#include "tests/scene_test_support.hpp"

namespace softik {
namespace {

const fs::path kExample = fs::path(SOFTIK_SOURCE_DIR) / "examples" / "balloon" / "balloon_volume.yaml";

TEST(SceneCavityControl, TheBalloonInflatedByVolumePassesItsPressureMaximumOnTheAnalyticCurve) {
  ASSERT_TRUE(fs::exists(kExample)) << kExample;
  const fs::path out = fresh_dir("cavity_volume_balloon");
  const SceneRunResult r = run_scene(parse_scene(kExample.string()), {out.string(), nullptr, nullptr});
  EXPECT_NEAR(r.load_factor, 1.0, 1e-12);
  const auto rows = read_csv(out / "balloon_volume.csv");
  ASSERT_GE(rows.size(), 42u);  // header, the rest state, 40 load steps (more where a step was cut)
  const size_t p_col = column(rows[0], "p_inner"), v_col = column(rows[0], "volume_inner");
  const Real mu = 1e5, V0 = std::stod(rows[1][v_col]);
  // The inner stretch from the cavity's volume: V = V0 la^3.
  const Real p_max =
      balloon_test::golden_max([&](Real l) { return balloon_test::balloon_pressure(mu, 1.2, l); }, 1.0001, 3.0).second;
  Real largest = 0, worst = 0;
  size_t at = 0;
  for (size_t k = 2; k < rows.size(); ++k) {
    const Real p = std::stod(rows[k][p_col]), la = std::cbrt(std::stod(rows[k][v_col]) / V0);
    worst = std::max(worst, std::abs(p - balloon_test::balloon_pressure(mu, 1.2, la)) / p_max);
    if (p > largest) largest = p, at = k;
  }
  std::printf(
      "volume-controlled balloon scene: curve within %.2e p_max, largest pressure %.1f Pa (analytic maximum %.1f)\n",
      worst, largest, p_max);
  EXPECT_LT(worst, 1e-3);
  EXPECT_GT(at, 2u);
  EXPECT_LT(at, rows.size() - 3) << "the maximum lies inside the path, not at its end";
  EXPECT_LT(std::stod(rows.back()[p_col]), 0.97 * largest) << "past the maximum the pressure falls";
  EXPECT_NEAR(std::stod(rows.back()[v_col]) - V0, 2.5e-6, 1e-9 * 2.5e-6) << "the imposed volume growth";
}

// A 30 mm block with a 10 x 10 x 10 mm cavity holding twice the air it had at ambient pressure.
const std::string kGasBlock = R"(name: gas
mesh: {generator: {type: multi_cavity, size: [0.03, 0.03, 0.03], cavities: [[0.01, 0.01, 0.01, 0.01, 0.01, 0.01]], cell_size: 0.005, cell_type: hex8}}
materials: {law: neo_hookean, young: 1.0e6, poisson: 0.45}
fixed: [{group: zmin}]
loads:
  pressure:
    - {surface: cavity0, control: gas, gas_amount: 0.2026500, ambient_pressure: 101325}
solver: {load_steps: 5}
outputs: {vtu: false}
)";

TEST(SceneCavityControl, AGasCavityEndsWhereBoylesLawHolds) {
  const fs::path out = fresh_dir("cavity_gas_block");
  const SceneRunResult r = run_scene(parse_scene_string(kGasBlock, "gas.yaml"), {out.string(), nullptr, nullptr});
  const auto rows = read_csv(out / "gas.csv");
  ASSERT_EQ(rows.size(), 7u);
  const size_t p_col = column(rows[0], "p_cavity0"), v_col = column(rows[0], "volume_cavity0");
  const Real p = std::stod(rows.back()[p_col]), V = std::stod(rows.back()[v_col]), V0 = std::stod(rows[1][v_col]);
  std::printf("gas cavity: p = %.2f Pa, V = %.4e m^3 (V0 %.4e): (p + P_atm) V = %.7f J\n", p, V, V0, (p + 101325) * V);
  EXPECT_NEAR((p + 101325) * V, 0.20265, 1e-8 * 0.20265);  // Boyle's law at the solved state (CSV digits)
  EXPECT_GT(V, V0) << "the gas inflates the cavity";
  EXPECT_GT(p, 0);
  EXPECT_LT(p, 101325) << "softer than a rigid cavity, whose gauge pressure would be P_atm";
  ASSERT_EQ(r.pressures.size(), 1u);
  EXPECT_NEAR(r.pressures[0].pressure, p, 1e-9 * p);  // the summary's pressure is the CSV's (10 digits)
}

TEST(SceneCavityControl, BadValuesNameTheirKey) {
  const std::string head =
      R"(mesh: {generator: {type: multi_cavity, cavities: [[0.02, 0.01, 0.01, 0.02, 0.01, 0.01]], cell_type: hex8}}
materials: {law: neo_hookean, young: 1.0e5, poisson: 0.45}
fixed: [{group: xmin}]
)";
  const SceneErrorCase cases[] = {
      {head + "loads: {pressure: [{surface: cavity0, control: volume, value: 1000, volume_growth: 1e-6}]}\n",
       "the solve finds the pressure; remove value"},
      {head + "loads: {pressure: [{surface: cavity0, value: 1000, volume_growth: 1e-6}]}\n",
       "applies to control: volume or gas"},
      {head + "loads: {pressure: [{surface: cavity0, control: volume}]}\n", "volume_growth"},
      {head + "loads: {pressure: [{surface: cavity0, control: gas}]}\n", "gas_amount"},
      {head + "loads: {pressure: [{surface: cavity0, control: gas, gas_amount: -1}]}\n", "gas_amount: must be > 0"},
      {head + "loads: {pressure: [{surface: cavity0, control: gas, gas_amount: 1, ambient_pressure: -5}]}\n",
       "ambient_pressure: must be >= 0"},
      {head + "loads: {pressure: [{surface: cavity0, control: gas, gas_amount: 1, volume_growth: 1e-6}]}\n",
       "applies to control: volume"},
      {head + "loads: {pressure: [{surface: cavity0, control: vacuum}]}\n", "pressure, volume, gas"},
      {head + "loads: {pressure: [{surface: cavity0, control: volume, volume_growth: 1e-6, closed: false}]}\n",
       "needs a closed cavity"},
      {head + "loads: {pressure: [{surface: cavity0, control: volume, volume_growth: 1e-6, over_time: [[0, 0], [1, "
              "1]]}]}\n",
       "applies to control: pressure"},
      {head + "loads: {pressure: [{surface: cavity0, control: volume, volume_growth: 1e-6, follower: false}]}\n",
       "needs a follower load"},
      {head + "loads: {pressure: [{surface: cavity0, control: volume, volume_growth: 1e-6}]}\ndynamics: {dt: 0.01, "
              "duration: 0.1, density: 1000}\n",
       "static load-ramp runs only"},
  };
  expect_scene_build_errors(cases);
}

}  // namespace
}  // namespace softik
