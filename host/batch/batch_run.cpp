// The batch runner (batch.hpp): designs on worker threads, the table kept on disk as they
// finish, and resuming an interrupted run from that table.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <ostream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "host/batch/batch_csv.hpp"
#include "host/batch/design_batch.hpp"
#include "host/exec/blas_threads.hpp"
#include "softik/batch.hpp"
#include "softik/error.hpp"

namespace softik {

namespace {

/// The results table kept at BatchRunOptions::csv_path while a batch runs (batch.hpp).
class LiveTable {
 public:
  LiveTable(const BatchSpec& spec, const BatchResult& result, const std::string& path,
            const std::vector<bool>& finished)
      : spec_(spec), result_(result), path_(path), finished_(finished) {}

  /// After a design finished (the caller holds the lock): `done` designs have, of all.
  void update(size_t done) {
    if (path_.empty()) return;
    const auto now = std::chrono::steady_clock::now();
    const bool last = done == spec_.designs.size();
    // Rewriting the table costs its length: every design for small batches, once a second beyond.
    if (!last && done > 1000 && now - written_at_ < std::chrono::seconds(1)) return;
    try {
      write_batch_csv_file(spec_, result_, path_, &finished_);
      rows_ = done;
      written_at_ = now;
      failure_.clear();
    } catch (const Error& e) {
      failure_ = e.what();
    }
  }

  /// Throws the last failure, if the final table could not be written.
  void check() const {
    if (failure_.empty()) return;
    SOFTIK_CHECK_IO(false, failure_ << ". "
                                    << (rows_ > 0 ? "'" + path_ + "' keeps the " + std::to_string(rows_) +
                                                        " design rows written before the failure"
                                                  : "No row could be written")
                                    << " of " << spec_.designs.size()
                                    << "; each design's own outputs are in its folder next to it");
  }

 private:
  const BatchSpec& spec_;
  const BatchResult& result_;
  std::string path_;
  const std::vector<bool>& finished_;
  size_t rows_ = 0;
  std::chrono::steady_clock::time_point written_at_{};
  std::string failure_;
};

/// BatchRunOptions::resume: the rows of `path` with status ok become the designs' results
/// (DesignResult::row, resumed) and are flagged finished. Returns how many.
size_t resume_from_table(const BatchSpec& spec, const std::string& path, BatchResult& result,
                         std::vector<bool>& finished) {
  if (!std::ifstream(path, std::ios::binary)) return 0;  // nothing ran yet: every design runs
  BatchResult table = read_batch_table(spec, path);
  size_t resumed = 0;
  for (size_t k = 0; k < spec.designs.size(); ++k) {
    if (!table.designs[k].ok) continue;  // no row, or it failed before: run again
    result.designs[k] = std::move(table.designs[k]);
    result.designs[k].resumed = true;
    finished[k] = true;
    ++resumed;
  }
  return resumed;
}

/// Whether the design's scene asks for dilatation: nodal_mean (false for a scene that does not
/// build: that design reports its own error when it runs).
bool uses_nodal_mean(const BatchSpec& spec, const BatchDesign& design) {
  try {
    return design_scene(spec, design).dilatation == fem::Dilatation::NodalMean;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

BatchResult read_batch_table(const BatchSpec& spec, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  SOFTIK_CHECK_IO(in, "cannot read the batch table '" << path << "': no such file or not readable");
  std::ostringstream text;
  text << in.rdbuf();
  const std::vector<std::vector<std::string>> table = batch_detail::read_csv(text.str(), path);
  BatchResult result;
  result.designs.resize(spec.designs.size());
  if (table.empty()) return result;
  const std::vector<std::string>& header = table[0];
  SOFTIK_CHECK(header.size() >= 3 && header[0] == "design" && header[1] == "status" && header[2] == "error",
               path << ": not a batch results table (its first line must start with design,status,error)");
  std::map<std::string, size_t> index;
  for (size_t k = 0; k < spec.designs.size(); ++k) index[spec.designs[k].name] = k;
  for (size_t r = 1; r < table.size(); ++r) {
    const std::vector<std::string>& row = table[r];
    SOFTIK_CHECK(row.size() == header.size(),
                 path << ": row " << r + 1 << " has " << row.size() << " fields, the header " << header.size());
    const auto it = index.find(row[0]);
    SOFTIK_CHECK(it != index.end(), path << ": row " << r + 1 << " is design '" << row[0] << "', which " << spec.path
                                         << " has not (the table of another batch or shard?): use that batch's own "
                                            "folder, or a new --out");
    DesignResult& d = result.designs[it->second];
    SOFTIK_CHECK(d.name.empty(), path << ": design '" << row[0] << "' has two rows");
    std::map<std::string, std::string> fields;
    for (size_t c = 3; c < header.size(); ++c) fields[header[c]] = row[c];
    for (const auto& [key, value] : spec.designs[it->second].set)
      SOFTIK_CHECK(fields[key] == value,
                   path << ": design '" << row[0] << "' ran with " << key << " = '" << fields[key]
                        << "', the batch file now says '" << value
                        << "': the batch changed since the table was written (use a new --out, or delete the table to "
                           "run every design again)");
    d.name = row[0];
    d.ok = row[1] == "ok";
    d.error = row[2];
    for (size_t c = 3; c < header.size(); ++c)
      if (!row[c].empty()) d.row.emplace_back(header[c], row[c]);
  }
  return result;
}

Scene batch_detail::design_run_scene(const BatchSpec& spec, const BatchDesign& design, const BatchRunOptions& options) {
  Scene scene = design_scene(spec, design);
  if (options.has_backend)
    scene.solver.backend = options.backend;
  else if (spec.has_backend)
    scene.solver.backend = spec.backend;
  if (scene.solver.threads == 0)
    scene.solver.threads =
        options.threads > 0 ? options.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  scene.outputs.vtu = spec.vtu;
  return scene;
}

void batch_detail::record_design_error(DesignResult& r, const std::exception& e, const BatchDesign& design,
                                       bool scene_made) {
  r.ok = false;
  r.error = e.what();
  const auto* error = dynamic_cast<const Error*>(&e);
  r.error_kind = error ? error->kind() : ErrorKind::Internal;
  std::string overrides;
  for (const auto& s : design.set) overrides += (overrides.empty() ? "" : ", ") + s.first + " = " + s.second;
  if (!overrides.empty() && scene_made) r.error += " (design overrides: " + overrides + ")";
}

DesignResult run_design(const BatchSpec& spec, size_t index, const BatchRunOptions& options) {
  SOFTIK_CHECK(index < spec.designs.size(), "run_design: design " << index << " of " << spec.designs.size());
  const BatchDesign& design = spec.designs[index];
  DesignResult r;
  r.name = design.name;
  bool scene_made = false;  // design_scene's errors name the design and its overrides already
  try {
    check_design_name(spec, design.name);  // a spec built in code: nothing is written outside out_dir
    const Scene scene = batch_detail::design_run_scene(spec, design, options);
    scene_made = true;
    SceneRunOptions run;
    run.out_dir = options.out_dir + "/" + design.name;
    r.run = run_scene(scene, run);
    r.ok = true;
  } catch (const std::exception& e) {
    batch_detail::record_design_error(r, e, design, scene_made);
  }
  return r;
}

namespace {

/// The backend of the summary: the options', else the batch file's, else the scenes' own
/// (design 0's). Returns whether the options or the batch file override the scenes' backend.
bool choose_backend(const BatchSpec& spec, const BatchRunOptions& options, BatchResult& result) {
  const bool override_backend = options.has_backend || spec.has_backend;
  result.backend = options.has_backend ? options.backend : spec.backend;
  if (!override_backend && !spec.designs.empty())  // the scenes' own (design 0's, for the summary)
    result.backend = design_scene(spec, spec.designs.front()).solver.backend;
  require_backend(result.backend);
  return override_backend;
}

/// The designs to run, in the batch's order: all, or with BatchRunOptions::resume those without
/// an ok row in the table (which become finished results).
std::vector<size_t> pending_designs(const BatchSpec& spec, const BatchRunOptions& options, BatchResult& result,
                                    std::vector<bool>& finished) {
  SOFTIK_CHECK(!options.resume || !options.csv_path.empty(),
               "run_batch: resume needs the table to resume from (BatchRunOptions::csv_path)");
  if (options.resume) result.resumed = resume_from_table(spec, options.csv_path, result, finished);
  std::vector<size_t> pending;  // the designs to run, in the batch's order
  for (size_t i = 0; i < spec.designs.size(); ++i)
    if (!finished[i]) pending.push_back(i);
  return pending;
}

/// The worker threads: the options', else the batch file's (0: one per hardware thread), at
/// least one and at most one per pending design.
int worker_count(const BatchSpec& spec, const BatchRunOptions& options, int hardware, size_t pending) {
  int workers = options.workers >= 0 ? options.workers : spec.workers;
  if (workers == 0) workers = hardware;
  return std::max(1, std::min<int>(workers, static_cast<int>(pending)));
}

/// Lockstep (not for designs another process evaluates): a wave's designs run at once, each on
/// its own thread, and `workers` threads build them.
/// The GPU assembles a wave's designs in one launch, which runs the pointwise and cell-mean
/// dilatations: designs with the average nodal pressure run one by one there.
bool use_lockstep(const BatchSpec& spec, const BatchRunOptions& options, Backend backend,
                  const std::vector<size_t>& pending) {
  const bool gpu_nodal_mean =
      backend == Backend::Cuda && !pending.empty() && uses_nodal_mean(spec, spec.designs[pending.front()]);
  SOFTIK_CHECK(
      !(gpu_nodal_mean && spec.lockstep == BatchLockstep::On),
      "batch lockstep: on assembles each wave's designs in one GPU launch, which does not run dilatation: "
      "nodal_mean (the average nodal pressure); set lockstep: auto or off to evaluate these designs one by one "
      "on the GPU");
  return !options.evaluate && !pending.empty() &&
         (spec.lockstep == BatchLockstep::On ||
          (spec.lockstep == BatchLockstep::Auto && backend == Backend::Cuda && !gpu_nodal_mean));
}

/// The options each design runs with: its share of the cores and the batch's backend override.
/// Each design's assembly gets an equal share of the cores unless its scene sets solver.threads.
BatchRunOptions design_run_options(const BatchRunOptions& options, int hardware, int at_once, bool override_backend,
                                   Backend backend) {
  const int threads_per_design = options.threads > 0 ? options.threads : std::max(1, hardware / at_once);
  BatchRunOptions design_options = options;
  design_options.threads = threads_per_design;
  if (override_backend) {
    design_options.has_backend = true;
    design_options.backend = backend;
  }
  return design_options;
}

/// Design i's result: run_design here, or BatchRunOptions::evaluate, whose own failure (a lost
/// MPI rank ...) becomes this design's error.
DesignResult evaluate_design(const BatchSpec& spec, size_t i, const BatchRunOptions& options,
                             const BatchRunOptions& design_options) {
  if (!options.evaluate) return run_design(spec, i, design_options);
  try {
    return options.evaluate(i);
  } catch (const std::exception& e) {  // the evaluator's own failure (a lost MPI rank ...): this design's error
    DesignResult r;
    r.error = e.what();
    const auto* error = dynamic_cast<const Error*>(&e);
    r.error_kind = error ? error->kind() : ErrorKind::Internal;
    return r;
  }
}

/// A running batch: the designs' results as they finish, the table on disk, the progress stream
/// and callback, and the next pending design a worker takes.
class RunningBatch {
 public:
  RunningBatch(const BatchSpec& spec, const BatchRunOptions& options, BatchResult& result, std::vector<bool>& finished,
               const std::vector<size_t>& pending)
      : spec_(spec),
        options_(options),
        result_(result),
        finished_(finished),
        pending_(pending),
        finished_count_(result.resumed),
        table_(spec, result, options.csv_path, finished) {}

  /// A design ended: its result goes into the table, the progress stream and the callback.
  void finish(size_t i, DesignResult r) {
    const BatchDesign& design = spec_.designs[i];
    r.name = design.name;
    const std::lock_guard<std::mutex> lock(progress_mutex_);
    result_.designs[i] = std::move(r);
    finished_[i] = true;
    ++finished_count_;
    table_.update(finished_count_);
    if (options_.progress) {
      const DesignResult& d = result_.designs[i];
      std::string seconds;
      for (const auto& [column, value] : design_row(design, d))
        if (column == "seconds") seconds = ", " + value + " s";
      *options_.progress << "softik: design " << design.name << ": " << (d.ok ? "ok" + seconds : "error: " + d.error)
                         << "\n";
    }
    if (options_.on_progress && !callback_error_) {
      const double elapsed = elapsed_seconds();
      try {
        options_.on_progress(make_progress_event("design", static_cast<int>(finished_count_),
                                                 static_cast<int>(spec_.designs.size()), elapsed,
                                                 design.name + (result_.designs[i].ok ? ": ok" : ": error")));
      } catch (...) {
        callback_error_ = std::current_exception();
        next_ = pending_.size();  // the workers take no further design
      }
    }
  }

  /// Whether the workers take no further design (all taken, or the callback failed).
  bool stopped() const { return next_ >= pending_.size(); }

  /// `workers` threads (this one among them) take the pending designs in turn and evaluate them.
  void run_workers(int workers, const BatchRunOptions& design_options) {
    auto worker = [&] {
      for (size_t p = next_++; p < pending_.size(); p = next_++)
        finish(pending_[p], evaluate_design(spec_, pending_[p], options_, design_options));
    };
    std::vector<std::thread> threads;
    for (int w = 1; w < workers; ++w) threads.emplace_back(worker);
    worker();
    for (std::thread& t : threads) t.join();
  }

  /// Seconds since the batch started.
  double elapsed_seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

  /// After the workers: the callback's first exception, else the table's final write and its check.
  void close() {
    if (callback_error_) std::rethrow_exception(callback_error_);
    if (pending_.empty()) table_.update(finished_count_);
    table_.check();
  }

 private:
  const BatchSpec& spec_;
  const BatchRunOptions& options_;
  BatchResult& result_;
  std::vector<bool>& finished_;
  const std::vector<size_t>& pending_;
  std::atomic<size_t> next_{0};  // into pending
  /// Guards result.designs, finished, finished_count, table, the progress stream and callback.
  std::mutex progress_mutex_;
  size_t finished_count_;
  std::exception_ptr callback_error_;  // the first exception of options.on_progress: no design starts after it
  LiveTable table_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace

BatchResult run_batch(const BatchSpec& spec, const BatchRunOptions& options) {
  SOFTIK_CHECK(!options.out_dir.empty(), "run_batch needs an output folder (BatchRunOptions::out_dir)");
  for (const BatchDesign& design : spec.designs) check_design_name(spec, design.name);  // before anything is written
  BatchResult result;
  result.designs.resize(spec.designs.size());
  const bool override_backend = choose_backend(spec, options, result);
  std::vector<bool> finished(spec.designs.size(), false);
  const std::vector<size_t> pending = pending_designs(spec, options, result, finished);
  const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int workers = worker_count(spec, options, hardware, pending.size());
  const bool lockstep = use_lockstep(spec, options, result.backend, pending);
  const int at_once = lockstep ? std::min<int>(spec.lockstep_designs, static_cast<int>(pending.size())) : workers;
  result.workers = at_once;
  const BatchRunOptions design_options =
      design_run_options(options, hardware, at_once, override_backend, result.backend);

  // Each worker's factorisations would otherwise start a full set of BLAS threads, oversubscribing
  // the cores (measured, 2 cores, 16 finger designs: 2 workers 9.4 s with OpenBLAS's default, 2.4 s
  // with one BLAS thread each).
  const detail::ScopedBlasThreadCap blas(design_options.threads);
  RunningBatch running(spec, options, result, finished, pending);
  if (lockstep) {
    batch_detail::run_lockstep(
        spec, design_options, pending, result.backend == Backend::Cuda, workers,
        [&](size_t i, DesignResult r) { running.finish(i, std::move(r)); }, [&] { return running.stopped(); },
        result.lockstep);
  } else {
    running.run_workers(workers, design_options);
  }
  result.seconds = running.elapsed_seconds();
  running.close();
  return result;
}

}  // namespace softik
