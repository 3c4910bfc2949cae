// Nothing is lost on a full disk (issue 13, item 2): `softik batch` keeps its results table
// complete while designs finish (temporary file renamed into place), and a write that fails is an
// I/O error (exit 3) naming the path, with the rows already written kept; `softik run` likewise
// keeps the CSV rows of the steps done. The full disk is simulated with a file-size limit
// (RLIMIT_FSIZE, `ulimit -f`) on the CLI process, with SIGXFSZ ignored so that a write beyond it
// fails with EFBIG as a write on a full disk fails with ENOSPC.
#include <gtest/gtest.h>

#include <string>

#include "tests/scene_test_support.hpp"
#include "softik/batch.hpp"

namespace softik {
namespace {

/// 40 one-step designs: each design's own CSV is a few hundred bytes, the table about 6 KiB.
void write_batch(const fs::path& dir) {
  write_file(dir / "block.yaml", kBlock + R"(loads: {pressure: {name: cavity, surface: cavity0, value: 1000}}
solver: {load_steps: 1}
outputs: {vtu: false, probes: [{name: tip, point: [0.03, 0.006, 0.006]}]}
)");
  std::string values;
  for (int k = 0; k < 40; ++k) values += (k ? ", " : "") + std::to_string(100 * (k + 1));
  write_file(dir / "sweep.yaml", "scene: block.yaml\nsweep: {loads.pressure.value: [" + values + "]}\n");
}

#ifdef SOFTIK_CLI_PATH
/// Runs the CLI with files limited to 4 blocks (2 KiB under dash, 4 KiB under bash).
int run_cli_on_small_disk(const std::string& arguments, const fs::path& stderr_file) {
  const std::string command = "sh -c 'ulimit -f 4; trap \"\" XFSZ; exec " + std::string(SOFTIK_CLI_PATH) + " " +
                              arguments + "' >/dev/null 2>" + stderr_file.string();
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(FullDisk, BatchKeepsTheRowsWrittenAndExitsWithAnIoError) {
  const fs::path dir = fresh_dir("full_disk_batch");
  write_batch(dir);
  const fs::path out = dir / "out", err = dir / "stderr.txt";
  EXPECT_EQ(run_cli_on_small_disk(
                "batch " + (dir / "sweep.yaml").string() + " --out " + out.string() + " --workers 1 --quiet", err),
            3)
      << read_file(err);
  const std::string message = read_file(err);
  EXPECT_NE(message.find((out / "sweep.csv").string()), std::string::npos) << message;
  EXPECT_NE(message.find("keeps the"), std::string::npos) << message;
  // The table holds a header and complete rows only: the designs finished before the disk filled.
  const auto rows = read_csv(out / "sweep.csv");
  ASSERT_GE(rows.size(), 2u) << "no design row was kept";
  EXPECT_LT(rows.size(), 41u);
  for (size_t r = 1; r < rows.size(); ++r) {
    EXPECT_EQ(rows[r].size(), rows[0].size()) << "row " << r << " is cut short";
    EXPECT_EQ(rows[r][0], "sweep" + std::to_string(r - 1));
    EXPECT_EQ(rows[r][1], "ok");
  }
  EXPECT_NE(message.find("keeps the " + std::to_string(rows.size() - 1) + " design rows"), std::string::npos)
      << message;
  EXPECT_FALSE(fs::exists(out / "sweep.csv.tmp"));
}

TEST(FullDisk, RunKeepsTheStepsWrittenAndExitsWithAnIoError) {
  const fs::path dir = fresh_dir("full_disk_run");
  write_file(dir / "block.yaml", kBlock + R"(loads: {pressure: {name: cavity, surface: cavity0, value: 1000}}
solver: {load_steps: 80}
outputs: {vtu: false, probes: [{name: tip, point: [0.03, 0.006, 0.006]}]}
)");
  const fs::path out = dir / "out", err = dir / "stderr.txt";
  EXPECT_EQ(run_cli_on_small_disk("run " + (dir / "block.yaml").string() + " --out " + out.string(), err), 3)
      << read_file(err);
  const std::string message = read_file(err);
  EXPECT_NE(message.find((out / "block.csv").string()), std::string::npos) << message;
  const auto rows = read_csv(out / "block.csv");
  ASSERT_GE(rows.size(), 2u) << "no step row was kept";
  EXPECT_LT(rows.size(), 81u);
}
#endif

TEST(FullDisk, TheBatchTableIsCompleteAfterEveryDesign) {
  const fs::path dir = fresh_dir("batch_live_table");
  write_batch(dir);
  const BatchSpec spec = parse_batch((dir / "sweep.yaml").string());
  BatchRunOptions options;
  options.out_dir = (dir / "out").string();
  options.workers = 2;
  options.csv_path = (dir / "table.csv").string();
  const BatchResult result = run_batch(spec, options);
  const auto rows = read_csv(dir / "table.csv");
  ASSERT_EQ(rows.size(), 41u);
  for (size_t r = 1; r < rows.size(); ++r) EXPECT_EQ(rows[r][0], "sweep" + std::to_string(r - 1));
  // An unwritable table is an I/O error naming it, after every design has run.
  options.csv_path = (dir / "no_such_folder" / "table.csv").string();
  try {
    (void)run_batch(spec, options);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_NE(std::string(e.what()).find(options.csv_path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No row could be written"), std::string::npos) << e.what();
  }
  (void)result;
}

}  // namespace
}  // namespace softik
