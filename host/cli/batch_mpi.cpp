// `softik batch --mpi` (batch_mpi.hpp). Messages, all on MPI_COMM_WORLD between rank 0 and one
// other rank r:
//   r -> 0  kTagResult  a serialised DesignResult (empty: r is ready for its first design)
//   0 -> r  kTagDesign  the index of the design to evaluate (one uint64)
//   0 -> r  kTagStop    no more designs (empty)
#include "host/cli/batch_mpi.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "host/cli/command_line.hpp"
#include "host/cli/gpu_per_rank.hpp"
#include "softik/error.hpp"

#ifdef SOFTIK_HAVE_MPI
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <exception>
#include <future>
#include <mutex>
#endif

namespace softik::cli {

#ifndef SOFTIK_HAVE_MPI

bool mpi_built() { return false; }

MpiSession::MpiSession(bool enabled) {
  SOFTIK_CHECK_KIND(!enabled, ErrorKind::Unsupported,
                    "--mpi: this softik was built without MPI; install an MPI (Debian: apt-get install libopenmpi-dev "
                    "openmpi-bin, as scripts/setup.sh does) and configure again (SOFTIK_MPI=AUTO or ON), or split the "
                    "batch with --shard i/n instead");
}
MpiSession::~MpiSession() = default;
BatchResult MpiSession::run(const BatchSpec& spec, BatchRunOptions options) { return run_batch(spec, options); }
void MpiSession::evaluate_designs(const BatchSpec&, BatchRunOptions) {}
void MpiSession::abort(int status) { std::exit(status); }

#else

bool mpi_built() { return true; }

namespace {

constexpr int kTagResult = 1, kTagDesign = 2, kTagStop = 3;

/// Length-prefixed fields of a DesignResult (a design's row, not its SceneRunResult).
class Writer {
 public:
  void text(const std::string& s) {
    number(s.size());
    bytes_.insert(bytes_.end(), s.begin(), s.end());
  }
  void number(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) bytes_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  const std::vector<char>& bytes() const { return bytes_; }

 private:
  std::vector<char> bytes_;
};

class Reader {
 public:
  explicit Reader(const std::vector<char>& bytes) : bytes_(bytes) {}
  std::uint64_t number() {
    SOFTIK_CHECK(at_ + 8 <= bytes_.size(), "--mpi: a truncated message from a rank");
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes_[at_ + i])) << (8 * i);
    at_ += 8;
    return v;
  }
  std::string text() {
    const std::uint64_t n = number();
    SOFTIK_CHECK(n <= bytes_.size() - at_, "--mpi: a truncated message from a rank");
    std::string s(bytes_.data() + at_, n);
    at_ += n;
    return s;
  }

 private:
  const std::vector<char>& bytes_;
  size_t at_ = 0;
};

std::vector<char> serialise(const BatchDesign& design, const DesignResult& r) {
  Writer w;
  w.text(r.name);
  w.number(r.ok ? 1 : 0);
  w.text(r.error);
  w.number(static_cast<std::uint64_t>(r.error_kind));
  const auto row = design_row(design, r);
  w.number(row.size());
  for (const auto& [column, value] : row) {
    w.text(column);
    w.text(value);
  }
  return w.bytes();
}

DesignResult deserialise(const std::vector<char>& bytes) {
  Reader in(bytes);
  DesignResult r;
  r.name = in.text();
  r.ok = in.number() != 0;
  r.error = in.text();
  r.error_kind = static_cast<ErrorKind>(in.number());
  const std::uint64_t columns = in.number();
  for (std::uint64_t c = 0; c < columns; ++c) {
    std::string column = in.text();
    r.row.emplace_back(std::move(column), in.text());
  }
  return r;
}

/// Waits for a message with one of the tags from `source` (MPI_ANY_SOURCE: any), polling every
/// millisecond rather than spinning in a blocking receive; true with its status when one came.
bool poll(int source, int tag, MPI_Status& status) {
  int flag = 0;
  MPI_Iprobe(source, tag, MPI_COMM_WORLD, &flag, &status);
  return flag != 0;
}

std::vector<char> receive(const MPI_Status& status) {
  int count = 0;
  MPI_Get_count(&status, MPI_CHAR, &count);
  std::vector<char> bytes(static_cast<size_t>(count));
  MPI_Recv(bytes.data(), count, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return bytes;
}

void sleep_a_moment() { std::this_thread::sleep_for(std::chrono::milliseconds(1)); }

/// The node's NVIDIA GPUs as the driver lists them (no CUDA call: the runtime must not start
/// before CUDA_VISIBLE_DEVICES is set).
int node_gpus() {
  std::error_code ec;
  int n = 0;
  for (std::filesystem::directory_iterator it("/proc/driver/nvidia/gpus", ec), end; !ec && it != end; it.increment(ec))
    ++n;
  return n;
}

}  // namespace

MpiSession::MpiSession(bool enabled) : active_(enabled) {
  if (!active_) return;
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &node_rank_);
  MPI_Comm_size(node, &node_ranks_);
  int leader = rank_;  // the world rank of the node's first rank (the lowest: key = world rank)
  MPI_Bcast(&leader, 1, MPI_INT, 0, node);
  node_has_coordinator_ = leader == 0;
  MPI_Comm_free(&node);
  if (provided < MPI_THREAD_FUNNELED) {
    if (rank_ == 0) std::cerr << "softik: error: --mpi: this MPI does not support MPI_THREAD_FUNNELED\n";
    abort(kExitInput);
  }
  const std::string device = visible_device_for_rank(std::getenv("CUDA_VISIBLE_DEVICES"), node_gpus(), node_rank_);
  if (!device.empty()) setenv("CUDA_VISIBLE_DEVICES", device.c_str(), 1);
}

MpiSession::~MpiSession() {
  if (active_) MPI_Finalize();
}

void MpiSession::abort(int status) {
  if (active_) MPI_Abort(MPI_COMM_WORLD, status);
  std::exit(status);
}

BatchResult MpiSession::run(const BatchSpec& spec, BatchRunOptions options) {
  if (ranks_ <= 1) return run_batch(spec, options);
  struct Job {
    size_t index;
    std::promise<DesignResult> result;
  };
  std::mutex mutex;  // guards queue
  std::deque<Job*> queue;
  options.workers = ranks_ - 1;  // one thread per evaluating rank, each waiting for its design's result
  options.evaluate = [&](size_t index) {
    Job job{index, {}};
    std::future<DesignResult> result = job.result.get_future();
    {
      const std::lock_guard<std::mutex> lock(mutex);
      queue.push_back(&job);
    }
    return result.get();
  };
  BatchResult result;
  std::exception_ptr failure;
  std::atomic<bool> done{false};
  std::thread runner([&] {
    try {
      result = run_batch(spec, options);
    } catch (...) {
      failure = std::current_exception();
    }
    done = true;
  });
  std::vector<Job*> at_rank(static_cast<size_t>(ranks_), nullptr);
  std::deque<int> idle;
  size_t busy = 0;
  for (;;) {
    bool progressed = false;
    MPI_Status status;
    if (poll(MPI_ANY_SOURCE, kTagResult, status)) {
      const std::vector<char> bytes = receive(status);
      Job*& job = at_rank[static_cast<size_t>(status.MPI_SOURCE)];
      if (job) {
        try {
          job->result.set_value(deserialise(bytes));
        } catch (...) {
          job->result.set_exception(std::current_exception());
        }
        job = nullptr;
        --busy;
      }
      idle.push_back(status.MPI_SOURCE);
      progressed = true;
    }
    {
      const std::lock_guard<std::mutex> lock(mutex);
      while (!queue.empty() && !idle.empty()) {
        Job* job = queue.front();
        queue.pop_front();
        const int r = idle.front();
        idle.pop_front();
        at_rank[static_cast<size_t>(r)] = job;
        ++busy;
        const std::uint64_t index = job->index;
        MPI_Send(&index, 1, MPI_UINT64_T, r, kTagDesign, MPI_COMM_WORLD);
        progressed = true;
      }
    }
    if (done && busy == 0) break;
    if (!progressed) sleep_a_moment();
  }
  runner.join();
  for (int r = 1; r < ranks_; ++r) MPI_Send(nullptr, 0, MPI_CHAR, r, kTagStop, MPI_COMM_WORLD);
  if (failure) std::rethrow_exception(failure);
  return result;
}

void MpiSession::evaluate_designs(const BatchSpec& spec, BatchRunOptions options) {
  if (ranks_ <= 1) return;
  const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // The node's cores shared by its evaluating ranks (rank 0 mostly waits).
  options.threads = std::max(1, hardware / std::max(1, node_ranks_ - (node_has_coordinator_ ? 1 : 0)));
  MPI_Send(nullptr, 0, MPI_CHAR, 0, kTagResult, MPI_COMM_WORLD);  // ready
  for (;;) {
    MPI_Status status;
    if (!poll(0, MPI_ANY_TAG, status)) {
      sleep_a_moment();
      continue;
    }
    if (status.MPI_TAG == kTagStop) {
      MPI_Recv(nullptr, 0, MPI_CHAR, 0, kTagStop, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      return;
    }
    std::uint64_t index = 0;
    MPI_Recv(&index, 1, MPI_UINT64_T, 0, kTagDesign, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    SOFTIK_CHECK(index < spec.designs.size(), "--mpi: rank 0 sent design "
                                                  << index << " of " << spec.designs.size()
                                                  << " (do all ranks read the same batch file?)");
    const DesignResult r = run_design(spec, static_cast<size_t>(index), options);
    const std::vector<char> bytes = serialise(spec.designs[static_cast<size_t>(index)], r);
    MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_CHAR, 0, kTagResult, MPI_COMM_WORLD);
  }
}

#endif

}  // namespace softik::cli
