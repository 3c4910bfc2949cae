// Batch evaluation of many designs of one scene (the `softik batch` command).
//
// A batch file (YAML) names a base scene and the designs, each a set of overrides of the base
// scene's YAML tree (materials, pressures, goals, generator sizes: any key), listed one by one
// and/or as a sweep (the cartesian product of value lists):
//
//   scene: finger.yaml             # the base scene, relative to this file
//   backend: cuda                  # optional: cpu or cuda (--backend overrides)
//   workers: 4                     # designs evaluated at once (0: one per hardware thread)
//   vtu: false                     # per-design .vtu files (default off; CSVs are always written)
//   designs:
//     - name: stiff
//       set: {'materials[0].young': 2.0e5}   # quoted: [ ] are flow indicators in {...}
//   sweep:
//     loads.pressure[0].value: [10000, 20000, 30000]
//     mesh.generator.cavity_radius: [0.003, 0.004]
//   sample: {method: sobol, count: 64, ranges: {materials[0].young: [1.0e5, 4.0e5]}}
//   constraints: ['mesh.generator.cavity_radius <= 2 * mesh.generator.bottom_wall']
//   objective: {expression: uz_tip / pressure_cavity, goal: max, best: 5}
//   pareto: [{expression: uz_tip, goal: max}, {expression: pressure_cavity, goal: min}]
//   max_designs: 100000            # more designs than this is an error (split the batch)
//   lockstep: auto                 # assemble designs of one mesh together (auto: on cuda)
//
// Override paths are keys separated by '.', with [i] (or .i) for list entries; a missing map key
// is added (the strict scene reader then rejects it if the scene format does not know it).
// Every design is parsed, built and run as a full scene, so designs may differ in topology (a
// swept generator size) as well as in parameters. Designs run concurrently on `workers` threads;
// on the CUDA backend each thread uses its own default stream (softik compiles its CUDA code
// with per-thread default streams), so designs overlap on the GPU. With `lockstep:` (the default
// on the CUDA backend) the designs of one mesh are also assembled together, in one launch
// (BatchSpec::lockstep).
//
// Results: one row per design (write_batch_csv): the design's name, status (ok / error) and
// error text, its override values, wall time, Newton iterations and load factor, each cavity's
// pressure and volume, each probe's displacement, and for inverse scenes each actuator's outputs
// (e.g. the pressure needed to reach the goal) and each effector's final error and goals reached.
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "softik/backend.hpp"
#include "softik/error.hpp"
#include "softik/progress.hpp"
#include "softik/scene.hpp"

namespace softik {

struct BatchDesign {
  std::string name;
  /// (override path, YAML value text), in order of application.
  std::vector<std::pair<std::string, std::string>> set;
};

/// What to rank the designs by (`objective:`): an arithmetic expression of the results table's
/// columns (+ - * /, parentheses, numbers, column names such as uz_tip or pressure_cavity), its
/// goal, and how many of the best designs to report.
struct BatchObjective {
  std::string expression;  ///< empty: no objective
  bool maximize = true;
  int best = 5;
};

/// Whether designs of one mesh are assembled together (`lockstep:`): Auto does on the cuda
/// backend (one launch over designs x cells), not on the cpu backend, where each design's own
/// assembly on its own thread is as fast.
enum class BatchLockstep { Auto, On, Off };

struct BatchSpec {
  std::string path;        ///< the batch file
  std::string scene_path;  ///< the base scene, resolved against the batch file's folder
  bool has_backend = false;
  Backend backend = Backend::Cpu;
  int workers = 0;  ///< 0: one per hardware thread (capped by the number of designs)
  bool vtu = false;
  std::vector<BatchDesign> designs;  ///< listed designs first, then the sweep's product, then the sample
  BatchObjective objective;
  /// Two objectives to trade off (`pareto:`, each an expression and a goal; `best` unused): the
  /// designs no other design beats in both (pareto_front). Empty: none.
  std::vector<BatchObjective> pareto;
  /// Comparisons of the designs' scene values (`constraints:`): each a pair of arithmetic
  /// expressions of override paths joined by < <= > >=, evaluated on the design's scene (the base
  /// scene's value where the design does not override the path). Swept and sampled designs that
  /// violate one are left out (counted in `dropped`, names unchanged); a listed design that
  /// violates one is an error.
  std::vector<std::string> constraints;
  size_t dropped = 0;
  /// The most designs the batch may have (`max_designs:`, default 100000); more is an error
  /// before anything runs.
  size_t max_designs = 100000;
  /// Lockstep evaluation (`lockstep:`): the designs run in waves of `lockstep_designs`; each
  /// wave's designs are built, grouped by mesh topology (same cells, fixed DOFs, formulation and
  /// law; rest positions may differ: a swept size that changes the cell count makes several
  /// groups, one that only moves nodes does not), and every group's
  /// designs are assembled together, one pass for all of them, while each design keeps its own
  /// Newton iterations, solver, results and outputs (host/batch/design_batch.hpp). Results equal
  /// those of the designs run one by one (bitwise on the cpu backend, to round-off on cuda).
  BatchLockstep lockstep = BatchLockstep::Auto;
  int lockstep_designs = 64;  ///< designs per wave (`lockstep_designs:`, 1 to 4096)
};

/// Reads a batch file; errors start with "<path>:<line>:<column>: ". Checks that design names
/// are unique and usable as folder names, and that every design's overrides apply to the base
/// scene and give a valid scene (so a typo fails before anything runs).
BatchSpec parse_batch(const std::string& path);
BatchSpec parse_batch_string(const std::string& yaml, const std::string& path);

/// Checks that `name` can name a design of `spec` (a design writes into `--out/<name>/`): one safe
/// path component (non-empty; letters, digits, '_', '-', '.'; not "." or ".."), and not a name the
/// batch's own files in --out take (anything starting with "<stem>." for the batch file's stem:
/// the results table, the shard tables, the report's tables and plots and their temporaries).
/// Throws an Error of kind Input naming the design and the rule. parse_batch, softik.BatchSpec,
/// run_batch and run_design call it, so nothing is ever written or deleted outside --out.
void check_design_name(const BatchSpec& spec, const std::string& name);

/// The base scene with a design's overrides applied (parsed and validated). Errors name the
/// design and the override.
Scene design_scene(const BatchSpec& spec, const BatchDesign& design);

struct DesignResult {
  std::string name;
  bool ok = false;
  std::string error;                           ///< the softik::Error text when !ok
  ErrorKind error_kind = ErrorKind::Internal;  ///< the softik::Error's kind when !ok (Internal for any other exception)
  SceneRunResult run;
  /// The design's row of the results table (design_row) when it did not run in this process:
  /// read back from the table by a resumed batch (BatchRunOptions::resume) or made by another
  /// process (an MPI rank, BatchRunOptions::evaluate). Empty: the row is made from `run`.
  std::vector<std::pair<std::string, std::string>> row;
  bool resumed = false;  ///< taken from the existing table, not run again
};

struct BatchRunOptions {
  std::string out_dir;       ///< each design writes into `out_dir/<design name>/`
  bool has_backend = false;  ///< override the batch file's / scenes' backend
  Backend backend = Backend::Cpu;
  int workers = -1;                  ///< -1: the batch file's value
  std::ostream* progress = nullptr;  ///< one line per finished design (null: quiet)
  /// Called once per finished design (k: designs finished so far, in any order), from the worker
  /// threads one call at a time (progress.hpp); empty: not called. The designs' own runs get no
  /// callback.
  ProgressCallback on_progress = {};
  /// When set, the results table (write_batch_csv) is kept at this path while the batch runs:
  /// after every finished design (at most once a second beyond 1000 designs) the designs
  /// finished so far are written to csv_path + ".tmp", flushed, checked and renamed over
  /// csv_path, so the file is always a complete table and a crash or a full disk keeps the rows
  /// already written. A failed write is an Error of kind Io naming the path and the rows kept;
  /// it is thrown once every design has run (the designs' own outputs are still written).
  std::string csv_path;
  /// With csv_path: read the table already at csv_path (an interrupted or partly failed run of
  /// this batch) and run only the designs without a row with status ok there; their rows are
  /// kept as they are (DesignResult::resumed). A row of a design the batch has not, or whose
  /// override values differ from the batch file's, is an error naming the row (another batch's
  /// table: use another folder). No table at csv_path: every design runs.
  bool resume = false;
  /// Cores for each design's assembly unless its scene sets solver.threads; 0: the hardware
  /// threads divided among the workers.
  int threads = 0;
  /// When set, designs are evaluated by this instead of run_design here (e.g. sent to another
  /// MPI rank): called from the `workers` threads, concurrently, with a design's index into
  /// spec.designs; the result's `row` (design_row) must be set when it is ok.
  std::function<DesignResult(size_t index)> evaluate = {};
};

/// What lockstep evaluation did (BatchSpec::lockstep); all zero when it was off.
struct BatchLockstepStats {
  size_t waves = 0;
  size_t groups = 0;         ///< design groups over all waves (one engine each)
  size_t passes = 0;         ///< assembly passes (on the GPU: launches) over all groups
  size_t design_passes = 0;  ///< the designs those passes assembled, summed
};

struct BatchResult {
  std::vector<DesignResult> designs;  ///< in the spec's order
  double seconds = 0;                 ///< wall time of the whole batch
  int workers = 0;                    ///< designs run at once (lockstep: the largest wave)
  BatchLockstepStats lockstep;
  Backend backend = Backend::Cpu;
  size_t resumed = 0;  ///< designs whose rows were kept from the table (resume)
  /// Designs evaluated per second in this call (the resumed ones not counted).
  double designs_per_second() const { return seconds > 0 ? (designs.size() - resumed) / seconds : 0; }
};

/// Runs every design (a failing design is recorded with its error; the others go on).
BatchResult run_batch(const BatchSpec& spec, const BatchRunOptions& options);

/// Runs design `index` of `spec` as run_batch does (into options.out_dir/<name>/, with the
/// backend of options, else the batch file's, else the scene's, and options.threads cores);
/// its error is recorded in the result, not thrown.
DesignResult run_design(const BatchSpec& spec, size_t index, const BatchRunOptions& options);

/// A design's row of the results table after design, status and error: its override values,
/// then what it measured (batch.hpp's header comment), `unmet_goals` when a goal was missed.
std::vector<std::pair<std::string, std::string>> design_row(const BatchDesign& design, const DesignResult& result);

/// The goals a design that ran missed (unmet_goals of its run, or its row's `unmet_goals`);
/// empty when all were met or it failed.
std::string unmet_goals(const DesignResult& result);

/// A design's objective value (rank_designs).
struct RankedDesign {
  std::string name;
  double value = 0;
};

/// The designs ranked by spec.objective, best first, at most objective.best of them; designs
/// that failed, lack a column the expression reads (or hold no number there) or whose value is
/// not finite are left out and listed in `unranked` as (name, reason).
struct BatchRanking {
  std::vector<RankedDesign> best;
  std::vector<std::pair<std::string, std::string>> unranked;
};
BatchRanking rank_designs(const BatchSpec& spec, const BatchResult& result);

/// A design's values of the two `pareto:` objectives.
struct ParetoPoint {
  std::string name;
  double x = 0, y = 0;  ///< spec.pareto[0] and [1]
};
/// The designs no other design dominates (at least as good in both objectives and better in
/// one), ordered by the first objective, best first; `dominated`: the other rankable designs;
/// `unranked`: (name, reason) as in rank_designs.
struct BatchPareto {
  std::vector<ParetoPoint> front;
  std::vector<ParetoPoint> dominated;
  std::vector<std::pair<std::string, std::string>> unranked;
};
BatchPareto pareto_front(const BatchSpec& spec, const BatchResult& result);

/// What users read besides the table, written next to it as `<stem>.<kind>`, each atomically:
///   summary.csv    per column of the table with numbers: the designs with a number there, their
///                  min, mean and max (the override columns first), after a row per status count
///   objective.svg  with an objective: a scatter plot of the objective against each numeric
///                  override that varies, the best designs highlighted (hover: the design's name)
///   pareto.svg     with pareto: the two objectives of every design, the front joined and
///   pareto.csv     highlighted; the front's designs and values, in order
/// Returns the paths written. `stem`: the table's path without ".csv".
std::vector<std::string> write_batch_report(const BatchSpec& spec, const BatchResult& result, const std::string& stem);

/// The results table at `path` as a BatchResult: a row per design that has one (rows with status
/// ok are ok, with DesignResult::row; others carry their error), designs without a row left
/// unnamed and not ok. Errors as for BatchRunOptions::resume (a design the batch has not, changed
/// override values, not a batch table); a missing file is an Error of kind Io.
BatchResult read_batch_table(const BatchSpec& spec, const std::string& path);

/// Splitting a batch across machines (`softik batch ... --shard i/n`, then `--merge n`):
/// shard i of n (0 <= i < n) holds the designs k with k % n == i (round robin: every shard gets
/// a share of the listed, swept and sampled designs), names and overrides unchanged.
BatchSpec batch_shard(const BatchSpec& spec, int shard, int shards);
/// Where a run of the whole batch keeps its results table: dir/<batch>.csv (<batch>: the batch
/// file's stem), the table `softik batch` writes and `--merge` joins the shards into.
std::string batch_csv_path(const std::string& dir, const BatchSpec& spec);
/// Where shard i of n keeps its results table: dir/<batch>.shard-<i>-of-<n>.csv.
std::string batch_shard_csv_path(const std::string& dir, const BatchSpec& spec, int shard, int shards);
struct BatchMergeResult {
  size_t rows = 0;  ///< designs in the merged table (all of the batch's)
  size_t ok = 0;    ///< of which with status ok
};
/// Reads the tables of shards 0 .. n-1 from `dir` and writes, atomically to `path`, the table one
/// run of the whole batch writes: a row per design in the batch's order, columns in first-seen
/// order over the designs. Errors name the file: a missing table (Io), a row of a design the batch
/// has not or of another shard, a design with two rows, and every design without a row (with its
/// shard, to rerun).
BatchMergeResult merge_batch_shards(const BatchSpec& spec, const std::string& dir, int shards, const std::string& path);

/// One CSV row per design (header first); columns are the union over designs, in first-seen
/// order; a design without a column (or that failed) leaves it empty. With `finished` (one flag
/// per design), only the flagged designs get a row.
void write_batch_csv(const BatchSpec& spec, const BatchResult& result, std::ostream& out,
                     const std::vector<bool>* finished = nullptr);

/// write_batch_csv into path + ".tmp", flushed and checked, then renamed over `path` (atomic:
/// `path` holds the previous complete table until then; the same writer as the .vtu files). A
/// failure is an Error of kind Io naming the path and the cause; `path` is left as it was.
void write_batch_csv_file(const BatchSpec& spec, const BatchResult& result, const std::string& path,
                          const std::vector<bool>* finished = nullptr);

}  // namespace softik
