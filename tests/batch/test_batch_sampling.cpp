// Space-filling samples of designs (host/batch/sampling.hpp, `sample:` in batch files): the
// stratification each generator promises, the Sobol' sequence's first points, its nets in every
// pair of dimensions, determinism from the seed, and the batch reader's designs and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "host/batch/sampling.hpp"
#include "softik/batch.hpp"
#include "softik/error.hpp"
#include "tests/batch_test_support.hpp"

namespace softik {
namespace {

using batch_detail::kSobolMaxDimensions;
using batch_detail::latin_hypercube;
using batch_detail::sobol;

/// Points per box of the grid with 2^a cells along dimension j1 and 2^b along j2; each point in
/// [0, 1)^d, rows of d.
std::vector<int> box_counts(const std::vector<double>& x, int d, int j1, int j2, int a, int b) {
  std::vector<int> counts(static_cast<size_t>(1) << (a + b), 0);
  for (size_t i = 0; i * static_cast<size_t>(d) < x.size(); ++i) {
    const double u = x[i * static_cast<size_t>(d) + static_cast<size_t>(j1)];
    const double v = x[i * static_cast<size_t>(d) + static_cast<size_t>(j2)];
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
    const size_t p = static_cast<size_t>(std::floor(std::ldexp(u, a)));
    const size_t q = static_cast<size_t>(std::floor(std::ldexp(v, b)));
    ++counts[(p << b) + q];
  }
  return counts;
}

/// Whether every stratum [k/n, (k+1)/n) of dimension j holds exactly one of the n points.
bool stratified(const std::vector<double>& x, int n, int d, int j) {
  std::vector<int> hits(static_cast<size_t>(n), 0);
  for (int i = 0; i < n; ++i) {
    const double u = x[static_cast<size_t>(i) * static_cast<size_t>(d) + static_cast<size_t>(j)];
    if (!(u >= 0 && u < 1)) return false;
    ++hits[static_cast<size_t>(std::floor(u * n))];
  }
  for (int h : hits)
    if (h != 1) return false;
  return true;
}

TEST(BatchSampling, LatinHypercubePutsOnePointInEveryStratumOfEveryDimension) {
  for (int n : {1, 7, 100}) {
    const std::vector<double> x = latin_hypercube(n, 5, 42);
    ASSERT_EQ(x.size(), static_cast<size_t>(5 * n));
    for (int j = 0; j < 5; ++j) EXPECT_TRUE(stratified(x, n, 5, j)) << "n = " << n << ", dimension " << j;
  }
  // The seed decides everything: the same seed, the same points; another seed, other points.
  EXPECT_EQ(latin_hypercube(50, 3, 7), latin_hypercube(50, 3, 7));
  EXPECT_NE(latin_hypercube(50, 3, 7), latin_hypercube(50, 3, 8));
  // Strata are paired at random: the dimensions are not all the same permutation.
  const std::vector<double> x = latin_hypercube(100, 2, 1);
  int same = 0;
  for (int i = 0; i < 100; ++i) same += std::floor(x[2 * i] * 100) == std::floor(x[2 * i + 1] * 100) ? 1 : 0;
  EXPECT_LT(same, 10);
}

TEST(BatchSampling, SobolStartsWithTheKnownPoints) {
  // The first eight points of the plain (unshifted) two-dimensional Sobol' sequence in Gray-code
  // order, as tabulated by Bratley & Fox (1988) and reproduced by common implementations.
  const double expected[8][2] = {{0, 0},         {0.5, 0.5},     {0.75, 0.25},   {0.25, 0.75},
                                 {0.375, 0.375}, {0.875, 0.875}, {0.625, 0.125}, {0.125, 0.625}};
  const std::vector<double> x = sobol(8, 2, 0);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(x[2 * i], expected[i][0]) << i;
    EXPECT_EQ(x[2 * i + 1], expected[i][1]) << i;
  }
}

TEST(BatchSampling, SobolPointsFormNetsInEveryDimensionAndPair) {
  const int k = 10, n = 1 << k, d = kSobolMaxDimensions;
  for (std::uint64_t seed : {0u, 5u}) {  // a digital shift keeps every net
    const std::vector<double> x = sobol(n, d, seed);
    for (int j = 0; j < d; ++j) EXPECT_TRUE(stratified(x, n, d, j)) << "dimension " << j << ", seed " << seed;
    // Dimensions 0 and 1 form a (0, k, 2)-net: every box of volume 2^-k holds one point.
    for (int a = 0; a <= k; ++a)
      for (int c : box_counts(x, d, 0, 1, a, k - a)) EXPECT_EQ(c, 1) << "a = " << a << ", seed " << seed;
    // Every pair is a (t, k, 2)-net with t <= 4 (Joe & Kuo's direction numbers keep the
    // two-dimensional projections' t small): boxes of volume 2^(4-k) hold 16 points each. A wrong
    // polynomial or initial direction number breaks this.
    for (int j1 = 0; j1 < d; ++j1)
      for (int j2 = j1 + 1; j2 < d; ++j2)
        for (int a = 0; a <= k - 4; ++a)
          for (int c : box_counts(x, d, j1, j2, a, k - 4 - a))
            ASSERT_EQ(c, 16) << "dimensions " << j1 << ", " << j2 << ", a = " << a << ", seed " << seed;
  }
  EXPECT_EQ(sobol(64, 3, 9), sobol(64, 3, 9));
  EXPECT_NE(sobol(64, 3, 9), sobol(64, 3, 10));
  EXPECT_THROW(sobol(8, kSobolMaxDimensions + 1, 0), Error);
}

TEST(BatchSampling, SampleKeyGivesNamedDesignsFillingTheRanges) {
  const fs::path dir = batch_dir("batch_sample");
  write_block_batch(dir, R"(designs:
  - {name: soft, set: {materials.young: 5.0e4}}
sample:
  method: latin_hypercube
  count: 20
  seed: 3
  set: {materials.young: 1.5e5}
  ranges:
    loads.pressure.value: [2000, 8000]
    materials.poisson: [0.3, 0.45]
)");
  const BatchSpec spec = parse_batch((dir / "b.yaml").string());
  ASSERT_EQ(spec.designs.size(), 21u);
  EXPECT_EQ(spec.designs[0].name, "soft");
  std::set<int> pressure_strata, poisson_strata;
  for (int i = 0; i < 20; ++i) {
    const BatchDesign& d = spec.designs[static_cast<size_t>(i) + 1];
    EXPECT_EQ(d.name, "sample" + std::to_string(i));
    ASSERT_EQ(d.set.size(), 3u);
    EXPECT_EQ(d.set[0].first, "materials.young");  // `set`: held for every sampled design
    EXPECT_EQ(d.set[0].second, "1.5e5");
    EXPECT_EQ(d.set[1].first, "loads.pressure.value");
    EXPECT_EQ(d.set[2].first, "materials.poisson");
    const double p = std::stod(d.set[1].second), nu = std::stod(d.set[2].second);
    EXPECT_GE(p, 2000);
    EXPECT_LT(p, 8000);
    EXPECT_GE(nu, 0.3);
    EXPECT_LT(nu, 0.45);
    pressure_strata.insert(static_cast<int>(std::floor((p - 2000) / 6000 * 20)));
    poisson_strata.insert(static_cast<int>(std::floor((nu - 0.3) / 0.15 * 20)));
  }
  EXPECT_EQ(pressure_strata.size(), 20u);  // a Latin hypercube in the ranges' own units
  EXPECT_EQ(poisson_strata.size(), 20u);
  // Each design is a scene with its values (checked by the reader before anything runs).
  const Scene s = design_scene(spec, spec.designs[5]);
  ASSERT_EQ(s.pressures.size(), 1u);
  EXPECT_NEAR(s.pressures[0].load.pressure, std::stod(spec.designs[5].set[1].second), 1e-6);
  // The same file, the same designs.
  const BatchSpec again = parse_batch((dir / "b.yaml").string());
  for (size_t i = 0; i < spec.designs.size(); ++i) EXPECT_EQ(again.designs[i].set, spec.designs[i].set);
}

TEST(BatchSampling, BadSamplesAreNamedWithTheirLine) {
  const fs::path dir = batch_dir("batch_sample_errors");
  struct Case {
    std::string sample, message;
  };
  const std::string eleven = [] {
    std::string r;
    for (int i = 0; i < 11; ++i) r += "    p" + std::to_string(i) + ": [0, 1]\n";
    return r;
  }();
  const std::vector<Case> cases = {
      {"  count: 0\n  ranges: {materials.poisson: [0.3, 0.4]}\n",
       "sample.count: the number of designs, 1 to max_designs (100000; got 0)"},
      {"  count: 4\n  ranges: {materials.poisson: [0.4, 0.3]}\n", "sample.ranges.materials.poisson: expected [lo, hi]"},
      {"  count: 4\n  ranges: {materials.poisson: [0.3]}\n", "expected [lo, hi] with finite lo < hi"},
      {"  count: 4\n  method: halton\n  ranges: {materials.poisson: [0.3, 0.4]}\n", "halton"},
      {"  count: 4\n", "missing required key 'ranges'"},
      {"  count: 4\n  seed: -1\n  ranges: {materials.poisson: [0.3, 0.4]}\n", "sample.seed: must be >= 0"},
      {"  count: 4\n  method: sobol\n  ranges:\n" + eleven, "method sobol supports up to 10"},
      {"  count: 4\n  ranges: {materials.no_such_key: [0.3, 0.4]}\n", "no_such_key"},
      {"  count: 4\n  set: {materials.poisson: 0.35}\n  ranges: {materials.poisson: [0.3, 0.4]}\n",
       "sample.set.materials.poisson: also in sample.ranges"},
  };
  for (const Case& c : cases) {
    write_file(dir / "b.yaml", "scene: block.yaml\nsample:\n" + c.sample);
    const std::string error = batch_error_of([&] { (void)parse_batch((dir / "b.yaml").string()); });
    EXPECT_NE(error.find(c.message), std::string::npos) << c.sample << "\n -> " << error;
    EXPECT_NE(error.find("b.yaml"), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace softik
