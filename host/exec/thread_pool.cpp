// softik's pool of host threads (include/softik/exec/thread_pool.hpp).
#include "softik/exec/thread_pool.hpp"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define SOFTIK_PAUSE() _mm_pause()
#else
#define SOFTIK_PAUSE() std::this_thread::yield()
#endif

namespace softik::exec {

namespace {

class Pool {
 public:
  explicit Pool(int workers) {
    for (int id = 1; id <= workers; ++id)
      std::thread([this, id] {
        pthread_setname_np(pthread_self(), kPoolThreadName);  // as top and /proc show it
        work(id);
      }).detach();
    size_ = workers + 1;
  }

  int size() const { return size_; }

  /// Spinning workers go to sleep now.
  void rest() { rest_.fetch_add(1, std::memory_order_relaxed); }

  void run(int threads, void (*task)(void*, int, int), void* context) {
    const int p = std::min(threads, size_);
    std::unique_lock<std::mutex> busy(run_, std::try_to_lock);
    if (p <= 1 || !busy.owns_lock()) {  // serial: one part, or another thread's run in progress
      task(context, 0, 1);
      return;
    }
    task_ = task;
    context_ = context;
    parts_ = p;
    error_ = nullptr;
    // Every worker acknowledges every run (those beyond p without a part), so that none can
    // still be reading this run's task when the next one is written.
    pending_.store(size_ - 1, std::memory_order_relaxed);
    bool wake = false;
    {
      const std::lock_guard<std::mutex> lock(sleep_);
      generation_.fetch_add(1, std::memory_order_release);
      wake = sleepers_ > 0;
    }
    if (wake) wakeup_.notify_all();
    try {
      task(context, 0, p);
    } catch (...) {
      record(std::current_exception());
    }
    while (pending_.load(std::memory_order_acquire) > 0) SOFTIK_PAUSE();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void work(int id) {
    using Clock = std::chrono::steady_clock;
    unsigned seen = 0;
    int spin_us = kSpinMicroseconds;
    for (;;) {
      // Spin for a while, then sleep until the next run. A worker woken soon after it fell
      // asleep (work arriving every few hundred microseconds: a real-time control loop) spins
      // twice as long next time, up to kMaxSpinMicroseconds; one that slept long halves it back.
      const auto until = Clock::now() + std::chrono::microseconds(spin_us);
      const unsigned rest = rest_.load(std::memory_order_relaxed);
      int polls = 0;
      while (generation_.load(std::memory_order_acquire) == seen) {
        SOFTIK_PAUSE();
        if (++polls % 64 == 0 && (Clock::now() > until || rest_.load(std::memory_order_relaxed) != rest)) {
          const auto asleep = Clock::now();
          {
            std::unique_lock<std::mutex> lock(sleep_);
            ++sleepers_;
            wakeup_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
            --sleepers_;
          }
          const auto slept = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - asleep).count();
          spin_us = slept < kMaxSpinMicroseconds ? std::min(2 * spin_us, kMaxSpinMicroseconds)
                                                 : std::max(spin_us / 2, kSpinMicroseconds);
          break;
        }
      }
      seen = generation_.load(std::memory_order_acquire);
      if (id < parts_) {  // a run may have fewer parts than workers
        try {
          task_(context_, id, parts_);
        } catch (...) {
          record(std::current_exception());
        }
      }
      pending_.fetch_sub(1, std::memory_order_release);
    }
  }

  void record(std::exception_ptr e) {
    const std::lock_guard<std::mutex> lock(error_lock_);
    if (!error_) error_ = std::move(e);
  }

  int size_ = 1;
  std::mutex run_;  ///< held by the thread whose run is in progress
  // The run in progress (written before generation_ is advanced, read after it is seen).
  void (*task_)(void*, int, int) = nullptr;
  void* context_ = nullptr;
  int parts_ = 1;
  std::atomic<int> pending_{0};  ///< workers that have not finished the run in progress
  std::atomic<unsigned> generation_{0};
  std::atomic<unsigned> rest_{0};  ///< advanced by rest()
  std::mutex sleep_;
  std::condition_variable wakeup_;
  int sleepers_ = 0;  ///< guarded by sleep_
  std::mutex error_lock_;
  std::exception_ptr error_;
};

// Never destroyed: the detached workers may still be waiting when static objects are torn down
// at exit. A child of fork() has none of its parent's workers, so it starts a pool of its own
// (the parent's is abandoned there).
std::atomic<Pool*> the_pool{nullptr};
std::mutex pool_creation;

Pool& pool() {
  Pool* p = the_pool.load(std::memory_order_acquire);
  if (p) return *p;
  const std::lock_guard<std::mutex> lock(pool_creation);
  p = the_pool.load(std::memory_order_acquire);
  if (!p) {
    static const bool registered = [] {
      pthread_atfork(nullptr, nullptr, [] { the_pool.store(nullptr); });
      return true;
    }();
    (void)registered;
    p = new Pool(std::max(0, static_cast<int>(std::thread::hardware_concurrency()) - 1));
    the_pool.store(p, std::memory_order_release);
  }
  return *p;
}

}  // namespace

void parallel_run(int threads, void (*task)(void*, int, int), void* context) {
  if (threads <= 1) return task(context, 0, 1);
  pool().run(threads, task, context);
}

int pool_size() { return pool().size(); }

void rest_workers() {
  if (Pool* p = the_pool.load(std::memory_order_acquire)) p->rest();
}

}  // namespace softik::exec
