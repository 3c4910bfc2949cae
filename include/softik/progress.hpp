// Progress of long runs: load steps, time steps, inverse steps, the designs of a batch.
//
// run_scene (SceneRunOptions::on_progress) and run_batch (BatchRunOptions::on_progress) call a
// ProgressCallback once per finished item with "k of N done, this long so far, about this long
// to go". The `softik` program draws it on stderr (docs/cli.md, --progress); an embedding user
// logs it, updates a GUI or stops the run by throwing from the callback.
#pragma once

#include <functional>
#include <string>
#include <utility>

namespace softik {

/// One finished item of a long run: the k-th of `total`.
///
/// | run                      | what             | k counts                                    |
/// |--------------------------|------------------|---------------------------------------------|
/// | static scene             | `"load step"`    | converged load increments                   |
/// | dynamic scene            | `"time step"`    | time steps                                  |
/// | inverse scene, real-time | `"inverse step"` | inverse steps, over all goals               |
/// | inverse scene, converged | `"goal"`         | goals solved (one converged solve each)     |
/// | batch                    | `"design"`       | designs finished (in any order), ok or not  |
///
/// k goes 1, 2, ..., total, one event each, and the last event has k == total and `last` set.
/// A static run's `total` is an estimate that grows when Newton cuts a load step: after each
/// converged increment it is k plus the increments of the current size still needed to reach the
/// load factor 1 (the scene's solver.load_steps when no step was cut).
struct ProgressEvent {
  std::string what;  ///< what is counted (the table above)
  int k = 0;         ///< items finished, 1..total
  int total = 0;     ///< items in the run (N)
  /// Seconds since the first item began (the scene's build before it is not counted); never
  /// decreases from one event to the next.
  double elapsed = 0;
  /// Seconds left, estimated by progress_eta(k, total, elapsed); 0 at the last event, negative
  /// when unknown.
  double eta = -1;
  /// A short note on the item, e.g. "load factor 0.3, 4 Newton iterations", "t = 0.012",
  /// "goal 2/3", "stiff: ok"; empty when there is none.
  std::string label;
  bool last = false;  ///< the final event of the run (k == total)
};

/// Called once per finished item. run_scene calls it on the thread that runs the scene;
/// run_batch calls it from its worker threads, one call at a time (under a mutex), so the
/// callback needs no locking of its own but should return quickly. An empty callback costs
/// nothing: no event is built. An exception thrown by the callback stops the run: run_scene lets
/// it propagate (the outputs of the steps before stay written), and run_batch starts no further
/// design and rethrows it once the designs already running have finished.
using ProgressCallback = std::function<void(const ProgressEvent&)>;

/// The estimated seconds left after k of `total` items took `elapsed` seconds, at the mean rate
/// so far: elapsed / k * (total - k). Not smoothed: every item counts the same, which suits runs
/// whose items cost about the same (load, time and inverse steps, designs of one scene). 0 when
/// k >= total; -1 (unknown) when k <= 0.
inline double progress_eta(int k, int total, double elapsed) {
  if (k <= 0) return -1;
  if (k >= total) return 0;
  return elapsed / k * (total - k);
}

/// The event for k of `total` items done after `elapsed` seconds: the ETA from progress_eta,
/// `last` when k >= total.
inline ProgressEvent make_progress_event(std::string what, int k, int total, double elapsed, std::string label = {}) {
  ProgressEvent e;
  e.what = std::move(what);
  e.k = k;
  e.total = total;
  e.elapsed = elapsed;
  e.eta = progress_eta(k, total, elapsed);
  e.label = std::move(label);
  e.last = k >= total;
  return e;
}

}  // namespace softik
