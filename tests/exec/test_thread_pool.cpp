// softik's pool of host threads (exec/thread_pool.hpp) and the host policies of forall over it:
// every part and index runs exactly once, the colours' blocks are covered, atomics under
// contention, an exception from a worker's part reaches the caller, a second thread's run falls
// back to serial, an idle pool does not spin (its workers sleep after their spin window), and a
// forked child starts its own pool.
#include <gtest/gtest.h>

#include <dirent.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "softik/exec/forall.hpp"
#include "softik/exec/thread_pool.hpp"

namespace softik::exec {
namespace {

TEST(ThreadPool, EveryPartRunsOnceWithTheCallerAsPartZero) {
  ASSERT_GE(pool_size(), 1);
  for (int threads : {1, 2, 3, 8}) {
    const int expect = std::min(threads, pool_size());
    std::vector<std::atomic<int>> runs(16);
    std::atomic<int> seen_p{0};
    const std::thread::id caller = std::this_thread::get_id();
    bool caller_was_zero = false;
    parallel(threads, [&](int t, int p) {
      runs[static_cast<size_t>(t)].fetch_add(1);
      seen_p.store(p);
      if (t == 0) caller_was_zero = std::this_thread::get_id() == caller;
    });
    EXPECT_EQ(seen_p.load(), expect) << threads << " threads asked";
    for (int t = 0; t < 16; ++t) EXPECT_EQ(runs[static_cast<size_t>(t)].load(), t < expect ? 1 : 0) << "part " << t;
    EXPECT_TRUE(caller_was_zero);
  }
}

TEST(ThreadPool, HostCellsAndHostColoursCoverEveryIndexOnce) {
  const int n = 100000;
  for (int threads : {1, 2, 4}) {
    std::vector<int> hits(static_cast<size_t>(n), 0);
    forall(HostCells{threads}, n, [&](int i) { ++hits[static_cast<size_t>(i)]; });
    for (int i = 0; i < n; ++i) ASSERT_EQ(hits[static_cast<size_t>(i)], 1) << "HostCells, index " << i;
    // Blocks of 7 cells in 3 colours, given in a scrambled order; a short last block.
    const int block = 7, blocks = (n + block - 1) / block;
    std::vector<int> color_ptr{0}, color_blocks;
    for (int k = 0; k < 3; ++k) {
      for (int b = blocks - 1; b >= 0; --b)
        if (b % 3 == k) color_blocks.push_back(b);
      color_ptr.push_back(static_cast<int>(color_blocks.size()));
    }
    HostColours colours{color_ptr.data(), color_blocks.data(), 3, block, threads};
    std::fill(hits.begin(), hits.end(), 0);
    forall(colours, n, [&](int i) { ++hits[static_cast<size_t>(i)]; });
    for (int i = 0; i < n; ++i) ASSERT_EQ(hits[static_cast<size_t>(i)], 1) << "HostColours, index " << i;
  }
}

TEST(ThreadPool, AtomicsHoldUnderContention) {
  const int n = 200000;
  Real sum = 0;
  int smallest = n;
  forall(HostCells{pool_size()}, n, [&](int i) {
    atomic_add(&sum, 1.0);  // integers: exact in any order
    atomic_min(&smallest, (i * 7919) % n);
  });
  EXPECT_EQ(sum, static_cast<Real>(n));
  EXPECT_EQ(smallest, 0);
}

TEST(ThreadPool, AnExceptionFromAPartReachesTheCaller) {
  for (int failing : {0, 1}) {
    if (failing >= pool_size()) continue;
    EXPECT_THROW(parallel(2,
                          [&](int t, int) {
                            if (t == failing) throw std::runtime_error("part failed");
                          }),
                 std::runtime_error)
        << "part " << failing;
  }
  std::atomic<int> parts{0};  // the pool works on after it
  parallel(2, [&](int, int) { parts.fetch_add(1); });
  EXPECT_EQ(parts.load(), std::min(2, pool_size()));
}

TEST(ThreadPool, RunsFromTwoThreadsAtOnceBothComplete) {
  const int n = 50000;
  std::vector<int> a(static_cast<size_t>(n), 0), b(static_cast<size_t>(n), 0);
  std::thread other([&] {
    for (int r = 0; r < 50; ++r) forall(HostCells{2}, n, [&](int i) { ++b[static_cast<size_t>(i)]; });
  });
  for (int r = 0; r < 50; ++r) forall(HostCells{2}, n, [&](int i) { ++a[static_cast<size_t>(i)]; });
  other.join();
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(a[static_cast<size_t>(i)], 50) << i;
    ASSERT_EQ(b[static_cast<size_t>(i)], 50) << i;
  }
}

/// CPU time (clock ticks) of this process's threads named kPoolThreadName, and how many there are.
std::pair<long, int> pool_cpu_ticks() {
  long ticks = 0;
  int threads = 0;
  DIR* dir = opendir("/proc/self/task");
  if (!dir) return {-1, 0};
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    const std::string base = std::string("/proc/self/task/") + e->d_name;
    std::ifstream comm(base + "/comm");
    std::string name;
    std::getline(comm, name);
    if (name != kPoolThreadName) continue;
    std::ifstream stat(base + "/stat");
    std::string line;
    std::getline(stat, line);
    std::istringstream fields(line.substr(line.rfind(')') + 2));  // after "pid (comm) "
    std::string field;
    long utime = 0, stime = 0;
    for (int k = 3; k <= 15 && fields >> field; ++k) {  // fields 14 and 15: utime, stime
      if (k == 14) utime = std::stol(field);
      if (k == 15) stime = std::stol(field);
    }
    ticks += utime + stime;
    ++threads;
  }
  closedir(dir);
  return {ticks, threads};
}

TEST(ThreadPool, AnIdlePoolDoesNotSpin) {
  if (pool_size() < 2) GTEST_SKIP() << "one hardware thread: the pool has no workers";
  // Busy workers, then 300 ms idle: a worker that kept spinning would burn about 30 clock ticks
  // in that time; sleeping ones none (the bound allows the last spin of at most
  // kMaxSpinMicroseconds and a tick of rounding). Only the pool's threads are counted
  // (OpenBLAS's own spin for a while after the library loads).
  std::atomic<long> work{0};
  forall(HostCells{pool_size()}, 100000, [&](int i) { work.fetch_add(i % 3); });
  const auto [before, threads] = pool_cpu_ticks();
  ASSERT_EQ(threads, pool_size() - 1) << "the workers are named " << kPoolThreadName;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const long idle = pool_cpu_ticks().first - before;
  std::printf("the pool's threads used %ld clock ticks (1/%ld s) over 300 ms idle\n", idle, sysconf(_SC_CLK_TCK));
  EXPECT_LE(idle, 2 * threads);
}

}  // namespace
}  // namespace softik::exec

#include <sys/wait.h>
#include <unistd.h>

namespace softik::exec {
namespace {

TEST(ThreadPool, AForkedChildStartsAPoolOfItsOwn) {
  // The parent's workers do not exist in a child of fork(): waiting for them would hang.
  forall(HostCells{pool_size()}, 10000, [](int) {});  // the parent's pool is running
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::vector<int> hits(20000, 0);
    forall(HostCells{2}, 20000, [&](int i) { ++hits[static_cast<size_t>(i)]; });
    for (int h : hits)
      if (h != 1) _exit(2);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace softik::exec
