// Batches split across machines (batch_shard, merge_batch_shards, `softik batch --shard i/n` and
// `--merge n`): the shards partition the designs, the merged table equals one run's table
// (values to round-off, the wall times aside), and every way a merge can go wrong is named.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "host/batch/batch_csv.hpp"
#include "softik/batch.hpp"
#include "softik/error.hpp"
#include "tests/batch_test_support.hpp"

namespace softik {
namespace {

const std::string kShardBatch = R"(scene: block.yaml
workers: 2
designs:
  - {name: broken, set: {materials.young: 1.0e-9}}
  - {name: soft, set: {materials.young: 5.0e4}}
sweep:
  loads.pressure.value: [2000, 4000, 6000]
)";

TEST(BatchShards, ShardsPartitionTheDesignsRoundRobin) {
  const fs::path dir = batch_dir("batch_shards_split");
  write_file(dir / "b.yaml", kShardBatch);
  const BatchSpec spec = parse_batch((dir / "b.yaml").string());
  ASSERT_EQ(spec.designs.size(), 5u);
  for (int n : {1, 2, 3, 7}) {
    std::multiset<std::string> all;
    for (int i = 0; i < n; ++i) {
      const BatchSpec part = batch_shard(spec, i, n);
      for (size_t j = 0; j < part.designs.size(); ++j) {
        EXPECT_EQ(part.designs[j].name, spec.designs[static_cast<size_t>(i) + j * static_cast<size_t>(n)].name);
        EXPECT_EQ(part.designs[j].set, spec.designs[static_cast<size_t>(i) + j * static_cast<size_t>(n)].set);
        all.insert(part.designs[j].name);
      }
      EXPECT_EQ(part.scene_path, spec.scene_path);
    }
    EXPECT_EQ(all.size(), spec.designs.size()) << n;
    for (const BatchDesign& d : spec.designs) EXPECT_EQ(all.count(d.name), 1u) << n;
  }
  EXPECT_NE(batch_error_of([&] { (void)batch_shard(spec, 2, 2); }).find("expected 0 <= i < n"), std::string::npos);
  EXPECT_NE(batch_error_of([&] { (void)batch_shard(spec, 0, 0); }).find("expected 0 <= i < n"), std::string::npos);
  EXPECT_EQ(batch_shard_csv_path("out", spec, 1, 3), "out/b.shard-1-of-3.csv");
}

TEST(BatchShards, MergedTablesAreTheTableOfOneRun) {
  const fs::path dir = batch_dir("batch_shards_merge");
  write_file(dir / "b.yaml", kShardBatch);
  const BatchSpec spec = parse_batch((dir / "b.yaml").string());
  BatchRunOptions options;
  options.out_dir = (dir / "whole").string();
  write_batch_csv_file(spec, run_batch(spec, options), (dir / "whole.csv").string());
  const int n = 2;
  options.out_dir = (dir / "shards").string();
  for (int i = 0; i < n; ++i) {
    const BatchSpec part = batch_shard(spec, i, n);
    write_batch_csv_file(part, run_batch(part, options), batch_shard_csv_path(options.out_dir, spec, i, n));
  }
  const BatchMergeResult merged = merge_batch_shards(spec, options.out_dir, n, (dir / "merged.csv").string());
  EXPECT_EQ(merged.rows, 5u);
  EXPECT_EQ(merged.ok, 4u);  // "broken" fails in both

  const auto whole = cells(dir / "whole.csv"), joined = cells(dir / "merged.csv");
  ASSERT_EQ(joined.size(), whole.size());
  ASSERT_EQ(joined[0], whole[0]) << "the same columns in the same order";
  for (size_t r = 1; r < whole.size(); ++r) {
    ASSERT_EQ(joined[r].size(), whole[r].size());
    for (size_t c = 0; c < whole[r].size(); ++c) {
      if (whole[0][c] == "seconds") continue;  // wall time
      const std::string &a = joined[r][c], &b = whole[r][c];
      char *end_a = nullptr, *end_b = nullptr;
      const double x = std::strtod(a.c_str(), &end_a), y = std::strtod(b.c_str(), &end_b);
      if (!a.empty() && *end_a == '\0' && !b.empty() && *end_b == '\0')
        EXPECT_NEAR(x, y, 1e-8 * std::max(std::abs(y), 1e-12)) << whole[r][0] << " " << whole[0][c];
      else
        EXPECT_EQ(a, b) << whole[r][0] << " " << whole[0][c];
    }
  }

  // What goes wrong is named: a shard's table missing, a row missing, a row in the wrong split,
  // a row twice, a table cut short.
  const std::string shards = options.out_dir;
  const std::string merged_path = (dir / "again.csv").string();
  EXPECT_NE(batch_error_of([&] {
              (void)merge_batch_shards(spec, shards, 3, merged_path);
            }).find("cannot read the table of shard 0 of 3"),
            std::string::npos);
  const fs::path t1 = batch_shard_csv_path(shards, spec, 1, n);
  const std::string original = read_file(t1);
  const std::string header = original.substr(0, original.find('\n') + 1);
  const std::string body = original.substr(header.size());
  const std::string first_row = body.substr(0, body.find('\n') + 1);  // "soft,ok,..." (design 1)
  write_file(t1, header + body.substr(first_row.size()));
  const std::string missing = batch_error_of([&] { (void)merge_batch_shards(spec, shards, n, merged_path); });
  EXPECT_NE(missing.find("1 of 5 designs have no row in the shard tables: soft (shard 1)"), std::string::npos)
      << missing;
  EXPECT_FALSE(fs::exists(merged_path)) << "nothing written when the merge fails";
  write_file(t1, original + first_row);
  EXPECT_NE(batch_error_of([&] {
              (void)merge_batch_shards(spec, shards, n, merged_path);
            }).find("design 'soft' has two rows"),
            std::string::npos);
  write_file(batch_shard_csv_path(shards, spec, 0, n), read_file(batch_shard_csv_path(shards, spec, 0, n)) + first_row);
  write_file(t1, original);
  EXPECT_NE(batch_error_of([&] {
              (void)merge_batch_shards(spec, shards, n, merged_path);
            }).find("design 'soft' belongs to shard 1 of 2, not 0"),
            std::string::npos);
  write_file(batch_shard_csv_path(shards, spec, 0, n), header + "sweep0,ok,\"cut short\n");
  EXPECT_NE(batch_error_of([&] {
              (void)merge_batch_shards(spec, shards, n, merged_path);
            }).find("a quoted field is not closed"),
            std::string::npos);
}

#ifdef SOFTIK_CLI_PATH
TEST(BatchShards, CommandLineRunsShardsAndMerges) {
  const fs::path dir = batch_dir("batch_shards_cli");
  write_file(dir / "b.yaml", kShardBatch);
  const std::string batch = "batch " + (dir / "b.yaml").string() + " --out " + (dir / "out").string();
  for (int i = 0; i < 3; ++i) {  // shard 0 holds design 0, "broken": its status says a design failed
    const int status = run_cli(batch + " --quiet --shard " + std::to_string(i) + "/3", dir / "err.txt");
    if (i == 0)
      EXPECT_NE(status, 0);
    else
      EXPECT_EQ(status, 0) << read_file(dir / "err.txt");
    EXPECT_TRUE(fs::exists(dir / "out" / ("b.shard-" + std::to_string(i) + "-of-3.csv")));
  }
  ASSERT_EQ(run_cli(batch + " --merge 3", dir / "err.txt", dir / "merge.txt"), 0) << read_file(dir / "err.txt");
  EXPECT_NE(read_file(dir / "merge.txt").find("merged 5 designs (4 ok) from 3 shard tables"), std::string::npos)
      << read_file(dir / "merge.txt");
  EXPECT_EQ(cells(dir / "out" / "b.csv").size(), 6u);
  for (const char* bad : {" --shard 3/3", " --shard x", " --merge 0", " --merge 2 --shard 0/2"}) {
    EXPECT_EQ(run_cli(batch + bad, dir / "err.txt"), 1) << bad;
    EXPECT_NE(read_file(dir / "err.txt").find("softik: error: --"), std::string::npos)
        << bad << ": " << read_file(dir / "err.txt");
  }
}
#endif

}  // namespace
}  // namespace softik
