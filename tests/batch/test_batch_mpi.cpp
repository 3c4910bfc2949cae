// `softik batch --mpi` (host/cli/batch_mpi.hpp): several local MPI ranks share a batch and write
// the table one process writes; a resumed MPI run redoes only the designs without a row (what a
// rank that died leaves); which GPU each rank sees (host/cli/gpu_per_rank.hpp).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "host/batch/batch_csv.hpp"
#include "host/cli/gpu_per_rank.hpp"
#include "tests/batch_test_support.hpp"

namespace softik {
namespace {

TEST(BatchMpi, EachRankOnANodeSeesOneOfItsGpus) {
  using cli::visible_device_for_rank;
  // The node's GPUs, round robin over its ranks.
  EXPECT_EQ(visible_device_for_rank(nullptr, 4, 0), "0");
  EXPECT_EQ(visible_device_for_rank(nullptr, 4, 3), "3");
  EXPECT_EQ(visible_device_for_rank(nullptr, 4, 5), "1");
  // The job's own list (indices or UUIDs) is kept to: rank k gets its k-th entry.
  EXPECT_EQ(visible_device_for_rank("2,3", 8, 0), "2");
  EXPECT_EQ(visible_device_for_rank("2,3", 8, 1), "3");
  EXPECT_EQ(visible_device_for_rank("GPU-a1,GPU-b2,GPU-c3", 8, 4), "GPU-b2");
  // No GPU, or a job given none (an empty list): the variable is left alone.
  EXPECT_EQ(visible_device_for_rank(nullptr, 0, 2), "");
  EXPECT_EQ(visible_device_for_rank("", 4, 1), "");
}

#ifdef SOFTIK_CLI_PATH
#ifdef SOFTIK_MPIEXEC

/// The table's records without the `seconds` column (the only one that differs between runs).
std::vector<std::vector<std::string>> table_without_seconds(const fs::path& path) {
  std::vector<std::vector<std::string>> records = batch_detail::read_csv(read_file(path), path.string());
  if (records.empty()) return records;
  size_t seconds = records[0].size();
  for (size_t c = 0; c < records[0].size(); ++c)
    if (records[0][c] == "seconds") seconds = c;
  for (auto& r : records)
    if (seconds < r.size()) r.erase(r.begin() + static_cast<long>(seconds));
  return records;
}

/// mpiexec -n ranks softik batch ... Open MPI is told to run as root too (CI runs as root) and
/// to place more ranks than the machine has cores (2 on CI); other MPIs ignore these variables.
int run_mpi(int ranks, const std::string& arguments, const fs::path& err, const fs::path& out) {
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 1);
  // Under AddressSanitizer (scripts/test.sh --sanitize) the ranks' leak check is off: Open MPI's
  // plugins are unloaded before LeakSanitizer reports, so their allocations come from no module
  // a suppression could name. Every other check stays on, and the same runner code is
  // leak-checked without MPI by the other batch tests.
  const char* asan = std::getenv("ASAN_OPTIONS");
  const std::string options = std::string(asan ? asan : "") + (asan && *asan ? ":" : "") + "detect_leaks=0";
  const std::string command = "ASAN_OPTIONS='" + options + "' " + std::string(SOFTIK_MPIEXEC) + " -n " +
                              std::to_string(ranks) + " " + SOFTIK_CLI_PATH + " " + arguments + " >" + out.string() +
                              " 2>" + err.string();
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(BatchMpi, RanksShareTheDesignsAndWriteTheTableOneProcessWrites) {
  const fs::path dir = batch_dir("batch_mpi");
  write_block_batch(dir, R"(workers: 2
designs:
  - {name: soft, set: {materials.young: 5.0e4}}
sweep:
  loads.pressure.value: [1000, 2500, 4000]
  materials.poisson: [0.3, 0.45]
)");
  const std::string batch = "batch " + (dir / "b.yaml").string() + " --quiet --out ";
  ASSERT_EQ(run_cli(batch + (dir / "one").string(), dir / "err1.txt"), 0) << read_file(dir / "err1.txt");
  ASSERT_EQ(run_mpi(3, batch + (dir / "mpi").string() + " --mpi", dir / "err2.txt", dir / "out2.txt"), 0)
      << read_file(dir / "err2.txt");
  const auto one = table_without_seconds(dir / "one" / "b.csv");
  ASSERT_EQ(one.size(), 8u);  // header + 7 designs
  EXPECT_EQ(table_without_seconds(dir / "mpi" / "b.csv"), one);
  EXPECT_NE(read_file(dir / "out2.txt").find("7/7 designs ok"), std::string::npos) << read_file(dir / "out2.txt");
  for (const char* design : {"soft", "sweep0", "sweep5"})
    EXPECT_TRUE(fs::exists(dir / "mpi" / design))
        << design << ": each design's own outputs, from whichever rank ran it";

  // A rank that dies ends the job with the rows that arrived; --resume redoes only the others.
  auto records = batch_detail::read_csv(read_file(dir / "mpi" / "b.csv"), "b.csv");
  std::string kept;
  for (size_t r = 0; r < records.size(); ++r) {
    if (r == 2 || r == 5) continue;  // sweep0 and sweep3 never arrived
    for (size_t c = 0; c < records[r].size(); ++c) kept += (c ? "," : "") + batch_detail::csv_field(records[r][c]);
    kept += "\n";
  }
  write_file(dir / "mpi" / "b.csv", kept);
  ASSERT_EQ(run_mpi(2, batch + (dir / "mpi").string() + " --mpi --resume", dir / "err3.txt", dir / "out3.txt"), 0)
      << read_file(dir / "err3.txt");
  EXPECT_EQ(table_without_seconds(dir / "mpi" / "b.csv"), one);
  EXPECT_NE(read_file(dir / "out3.txt").find("5 resumed"), std::string::npos) << read_file(dir / "out3.txt");
  // The kept rows were not recomputed: their seconds are the first run's.
  const auto after = batch_detail::read_csv(read_file(dir / "mpi" / "b.csv"), "b.csv");
  EXPECT_EQ(after[1], records[1]);
  EXPECT_EQ(after[3], records[3]);
}

#else

TEST(BatchMpi, WithoutMpiTheOptionSaysHowToGetIt) {
  const fs::path dir = batch_dir("batch_no_mpi");
  write_file(dir / "b.yaml", "scene: block.yaml\nsweep: {loads.pressure.value: [1000]}\n");
  ASSERT_EQ(
      run_cli("batch " + (dir / "b.yaml").string() + " --out " + (dir / "out").string() + " --mpi", dir / "err.txt"),
      1);
  EXPECT_NE(read_file(dir / "err.txt").find("built without MPI"), std::string::npos) << read_file(dir / "err.txt");
}

#endif
#endif

}  // namespace
}  // namespace softik
