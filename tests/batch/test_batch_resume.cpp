// Resuming an interrupted batch (BatchRunOptions::resume, `softik batch --resume`): the designs
// with an ok row in the table at csv_path keep that row as it is and are not run again, the
// others run, and the final table is the table of one whole run; a table of another batch (a
// design it has not, an override value it does not give, not a results table) is an error.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "host/batch/batch_csv.hpp"
#include "softik/batch.hpp"
#include "softik/error.hpp"
#include "tests/batch_test_support.hpp"

namespace softik {
namespace {

const std::string kResumeBatch = R"(scene: block.yaml
workers: 2
sweep:
  loads.pressure.value: [1000, 2000, 3000, 4000]
)";

size_t table_column(const Table& table, const std::string& name) {
  for (size_t c = 0; c < table[0].size(); ++c)
    if (table[0][c] == name) return c;
  ADD_FAILURE() << "no column " << name;
  return 0;
}

/// A run of the batch at `dir`/b.yaml keeping its table at `dir`/b.csv.
BatchResult run(const BatchSpec& spec, const fs::path& dir, bool resume, std::ostream* progress = nullptr) {
  BatchRunOptions options;
  options.out_dir = (dir / "out").string();
  options.csv_path = (dir / "b.csv").string();
  options.workers = 2;
  options.resume = resume;
  options.progress = progress;
  return run_batch(spec, options);
}

TEST(BatchResume, FinishedDesignsKeepTheirRowsAndTheOthersRun) {
  const fs::path dir = batch_dir("batch_resume_skip");
  write_file(dir / "b.yaml", kResumeBatch);
  const BatchSpec spec = parse_batch((dir / "b.yaml").string());
  ASSERT_EQ(spec.designs.size(), 4u);
  const BatchResult whole = run(spec, dir, false);
  EXPECT_EQ(whole.resumed, 0u);
  const Table full = cells(dir / "b.csv");
  ASSERT_EQ(full.size(), 5u);
  const size_t uz = table_column(full, "uz_tip"), seconds = table_column(full, "seconds");

  // An interrupted run: only sweep1 and sweep3 finished; sweep1's row holds a sentinel.
  Table cut = {full[0], full[2], full[4]};
  ASSERT_EQ(cut[1][0], "sweep1");
  ASSERT_NE(cut[1][uz], "12345");
  cut[1][uz] = "12345";
  write_file(dir / "b.csv", csv_text(cut));

  std::ostringstream progress;
  const BatchResult again = run(spec, dir, true, &progress);
  EXPECT_EQ(again.resumed, 2u);
  ASSERT_EQ(again.designs.size(), 4u);
  for (size_t k = 0; k < 4; ++k) {
    const DesignResult& d = again.designs[k];
    EXPECT_EQ(d.name, spec.designs[k].name);
    EXPECT_TRUE(d.ok) << d.error;
    if (k == 1 || k == 3) {  // finished before: kept
      EXPECT_TRUE(d.resumed) << d.name;
      EXPECT_EQ(d.run.seconds, 0) << d.name << " was run again";
    } else {
      EXPECT_FALSE(d.resumed) << d.name;
      EXPECT_GT(d.run.seconds, 0) << d.name << " was not run";
    }
  }
  // Only the unfinished designs ran (one progress line each).
  EXPECT_NE(progress.str().find("design sweep0: ok"), std::string::npos) << progress.str();
  EXPECT_NE(progress.str().find("design sweep2: ok"), std::string::npos) << progress.str();
  EXPECT_EQ(progress.str().find("sweep1"), std::string::npos) << progress.str();
  EXPECT_EQ(progress.str().find("sweep3"), std::string::npos) << progress.str();

  const Table final_table = cells(dir / "b.csv");
  ASSERT_EQ(final_table.size(), 5u) << read_file(dir / "b.csv");
  EXPECT_EQ(final_table[0], full[0]) << "the same columns in the same order";
  for (size_t r = 1; r < 5; ++r) {
    EXPECT_EQ(final_table[r][0], spec.designs[r - 1].name) << "rows in the batch's order";
    ASSERT_EQ(final_table[r].size(), full[r].size()) << final_table[r][0];
    for (size_t c = 0; c < full[r].size(); ++c) {
      if (c == seconds && (r == 1 || r == 3)) continue;  // wall time of a design that ran again
      if (r == 2 && c == uz) continue;
      EXPECT_EQ(final_table[r][c], full[r][c]) << final_table[r][0] << " " << full[0][c];
    }
  }
  EXPECT_EQ(final_table[2][uz], "12345") << "sweep1's row is kept, not recomputed";
  EXPECT_EQ(final_table[2][seconds], full[2][seconds]) << "sweep1's row is kept with its wall time";
  EXPECT_EQ(final_table[4][seconds], full[4][seconds]) << "sweep3's row is kept with its wall time";
  bool sentinel_in_row = false;
  for (const auto& [name, value] : again.designs[1].row) sentinel_in_row |= name == "uz_tip" && value == "12345";
  EXPECT_TRUE(sentinel_in_row) << "DesignResult::row of a resumed design holds its table row";
}

TEST(BatchResume, RowsWithStatusErrorRunAgain) {
  const fs::path dir = batch_dir("batch_resume_error");
  write_file(dir / "b.yaml", kResumeBatch);
  const BatchSpec spec = parse_batch((dir / "b.yaml").string());
  (void)run(spec, dir, false);
  const Table full = cells(dir / "b.csv");
  ASSERT_EQ(full.size(), 5u);
  const size_t uz = table_column(full, "uz_tip");
  Table failed = full;
  failed[3][1] = "error";  // sweep2 failed before
  failed[3][2] = "it failed, once";
  failed[3][uz] = "12345";
  write_file(dir / "b.csv", csv_text(failed));

  std::ostringstream progress;
  const BatchResult again = run(spec, dir, true, &progress);
  EXPECT_EQ(again.resumed, 3u);
  EXPECT_FALSE(again.designs[2].resumed);
  EXPECT_TRUE(again.designs[2].ok) << again.designs[2].error;
  EXPECT_GT(again.designs[2].run.seconds, 0);
  for (size_t k : {0u, 1u, 3u}) EXPECT_TRUE(again.designs[k].resumed) << k;
  EXPECT_NE(progress.str().find("design sweep2: ok"), std::string::npos) << progress.str();
  EXPECT_EQ(progress.str().find("sweep0"), std::string::npos) << progress.str();
  const Table final_table = cells(dir / "b.csv");
  ASSERT_EQ(final_table.size(), 5u);
  EXPECT_EQ(final_table[3][0], "sweep2");
  EXPECT_EQ(final_table[3][1], "ok");
  EXPECT_EQ(final_table[3][2], "");
  EXPECT_EQ(final_table[3][uz], full[3][uz]) << "sweep2 was computed again";
}

TEST(BatchResume, NoTableRunsEveryDesign) {
  const fs::path dir = batch_dir("batch_resume_none");
  write_file(dir / "b.yaml", "scene: block.yaml\nsweep: {loads.pressure.value: [1000, 3000]}\n");
  const BatchSpec spec = parse_batch((dir / "b.yaml").string());
  ASSERT_FALSE(fs::exists(dir / "b.csv"));
  const BatchResult result = run(spec, dir, true);
  EXPECT_EQ(result.resumed, 0u);
  ASSERT_EQ(result.designs.size(), 2u);
  for (const DesignResult& d : result.designs) {
    EXPECT_TRUE(d.ok) << d.error;
    EXPECT_FALSE(d.resumed);
    EXPECT_GT(d.run.seconds, 0);
  }
  const Table table = cells(dir / "b.csv");
  ASSERT_EQ(table.size(), 3u);
  EXPECT_EQ(table[1][0], "sweep0");
  EXPECT_EQ(table[2][0], "sweep1");
}

TEST(BatchResume, TablesOfAnotherBatchAreErrors) {
  const fs::path dir = batch_dir("batch_resume_errors");
  write_file(dir / "b.yaml", "scene: block.yaml\nsweep: {loads.pressure.value: [1000, 3000]}\n");
  const BatchSpec spec = parse_batch((dir / "b.yaml").string());
  const std::string header = "design,status,error,loads.pressure.value,uz_tip\n";
  auto resume_error = [&](const std::string& table) {
    write_file(dir / "b.csv", table);
    return batch_error_of([&] { (void)run(spec, dir, true); });
  };
  const std::string ghost = resume_error(header + "sweep0,ok,,1000,0.5\nghost,ok,,1000,0.5\n");
  EXPECT_NE(ghost.find("'ghost'"), std::string::npos) << ghost;
  const std::string changed = resume_error(header + "sweep0,ok,,1000,0.5\nsweep1,ok,,3500,0.5\n");
  EXPECT_NE(changed.find("'sweep1'"), std::string::npos) << changed;
  EXPECT_NE(changed.find("loads.pressure.value"), std::string::npos) << changed;
  const std::string not_table = resume_error("name,status,error,uz_tip\nsweep0,ok,,0.5\n");
  EXPECT_NE(not_table.find("design,status,error"), std::string::npos) << not_table;
  EXPECT_NE(not_table.find("b.csv"), std::string::npos) << not_table;
  EXPECT_NE(resume_error("x,y\n1,2\n"), "(no error)");
  // Nothing ran: the table is left as it was.
  EXPECT_EQ(read_file(dir / "b.csv"), "x,y\n1,2\n");
  EXPECT_FALSE(fs::exists(dir / "out" / "sweep0"));
  // Resuming needs the table's path.
  BatchRunOptions options;
  options.out_dir = (dir / "out").string();
  options.resume = true;
  EXPECT_NE(batch_error_of([&] { (void)run_batch(spec, options); }), "(no error)");
}

TEST(BatchResume, UnmetGoalsOfAResumedDesignComeFromItsRow) {
  DesignResult d;
  d.name = "e";
  d.ok = true;
  d.resumed = true;
  d.row = {{"uz_tip", "0.001"}, {"unmet_goals", "effector e reached 0 of 1 goals\n"}};
  EXPECT_EQ(unmet_goals(d), "effector e reached 0 of 1 goals\n");
  d.row = {{"uz_tip", "0.001"}};
  EXPECT_EQ(unmet_goals(d), "");
  d.row = {{"unmet_goals", "effector e reached 0 of 1 goals\n"}};
  d.ok = false;
  EXPECT_EQ(unmet_goals(d), "") << "a failed design has no unmet goals";
}

#ifdef SOFTIK_CLI_PATH
TEST(BatchResume, CommandLineResumesTheTableInOut) {
  const fs::path dir = batch_dir("batch_resume_cli");
  write_file(dir / "B.yaml", "scene: block.yaml\nworkers: 2\nsweep: {loads.pressure.value: [1000, 2000, 3000]}\n");
  const std::string batch = "batch " + (dir / "B.yaml").string() + " --out " + (dir / "out").string() + " --quiet";
  const fs::path table = dir / "out" / "B.csv", so = dir / "stdout.txt", se = dir / "stderr.txt";
  ASSERT_EQ(run_cli(batch, se, so), 0) << read_file(se);
  const Table full = cells(table);
  ASSERT_EQ(full.size(), 4u);
  const size_t uz = table_column(full, "uz_tip");
  Table cut = {full[0], full[1], full[3]};  // sweep1's row lost; sweep0's marked
  cut[1][uz] = "12345";
  write_file(table, csv_text(cut));
  ASSERT_EQ(run_cli(batch + " --resume", se, so), 0) << read_file(se);
  EXPECT_NE(read_file(so).find("2 resumed"), std::string::npos) << "how many were resumed: " << read_file(so);
  const Table final_table = cells(table);
  ASSERT_EQ(final_table.size(), 4u) << read_file(table);
  for (size_t r = 1; r < 4; ++r) EXPECT_EQ(final_table[r][0], "sweep" + std::to_string(r - 1));
  EXPECT_EQ(final_table[1][uz], "12345") << "sweep0 was resumed, not run again";
  EXPECT_EQ(final_table[2][1], "ok");
  EXPECT_EQ(final_table[2][uz], full[2][uz]) << "sweep1 was run again";
}
#endif

}  // namespace
}  // namespace softik
