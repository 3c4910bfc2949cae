// `softik batch` (batch_command.hpp).
#include "host/cli/batch_command.hpp"

#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "host/cli/batch_mpi.hpp"
#include "softik/batch.hpp"
#include "softik/error.hpp"

namespace softik::cli {
namespace {

/// The most severe outcome over the designs: I/O (3) > not converged / unreached (2) > input (1).
int batch_status(const BatchResult& result) {
  int status = kExitSuccess;
  for (const DesignResult& d : result.designs) {
    const int design_status = !d.ok                    ? exit_status(d.error_kind)
                              : unmet_goals(d).empty() ? kExitSuccess
                                                       : kExitNotConverged;
    const auto rank = [](int code) { return code == kExitIo ? 3 : code == kExitNotConverged ? 2 : code; };
    if (rank(design_status) > rank(status)) status = design_status;
  }
  return status;
}

void print_summary(const BatchSpec& spec, const BatchResult& result, const std::string& csv_path, int mpi_ranks,
                   std::ostream& out) {
  size_t failed = 0;
  for (const DesignResult& d : result.designs) failed += d.ok ? 0 : 1;
  out << "batch " << spec.path << ": " << result.designs.size() - failed << "/" << result.designs.size()
      << " designs ok";
  if (result.resumed > 0) out << " (" << result.resumed << " resumed from the table, not run again)";
  out << ", " << result.seconds << " s on "
      << (mpi_ranks > 1 ? std::to_string(mpi_ranks - 1) + " MPI ranks" : std::to_string(result.workers) + " workers")
      << " (backend " << backend_name(result.backend) << "), " << result.designs_per_second() * 60 << " designs/min\n";
  if (result.lockstep.waves > 0)
    out << "lockstep: " << result.lockstep.waves << " waves, " << result.lockstep.groups << " design groups, "
        << result.lockstep.passes << " assembly passes for " << result.lockstep.design_passes << " design assemblies\n";
  if (spec.dropped > 0) out << spec.dropped << " swept or sampled designs left out: they violate the constraints\n";
  out << "results: " << csv_path << "\n";
  if (!spec.objective.expression.empty()) {
    const BatchRanking ranking = rank_designs(spec, result);
    out << "best " << ranking.best.size() << " by " << (spec.objective.maximize ? "max " : "min ")
        << spec.objective.expression << ":";
    for (const RankedDesign& d : ranking.best) out << " " << d.name << " (" << d.value << ")";
    out << "\n";
    if (!ranking.unranked.empty())
      out << ranking.unranked.size() << " designs not ranked (first: " << ranking.unranked[0].first << ", "
          << ranking.unranked[0].second << ")\n";
  }
  if (spec.pareto.size() == 2) {
    const BatchPareto pareto = pareto_front(spec, result);
    out << "Pareto front of " << (spec.pareto[0].maximize ? "max " : "min ") << spec.pareto[0].expression << " and "
        << (spec.pareto[1].maximize ? "max " : "min ") << spec.pareto[1].expression << ": " << pareto.front.size()
        << " designs:";
    for (size_t k = 0; k < pareto.front.size() && k < 10; ++k) out << " " << pareto.front[k].name;
    out << (pareto.front.size() > 10 ? " ..." : "") << "\n";
  }
  for (const DesignResult& d : result.designs) {
    if (!d.ok)
      out << "design " << d.name << " failed: " << d.error << "\n";
    else if (const std::string unmet = unmet_goals(d); !unmet.empty())
      out << "design " << d.name << ": goals not reached: " << unmet;
  }
}

std::string stem(const std::string& csv_path) { return csv_path.substr(0, csv_path.size() - 4); }  // without ".csv"

void print_report(const std::vector<std::string>& files, std::ostream& out) {
  out << "report:";
  for (const std::string& f : files) out << " " << f;
  out << "\n";
}

int run_batch_command(const CommandLine& cl, MpiSession& mpi) {
  const BatchSpec whole = parse_batch(cl.input);
  const std::string csv_whole = batch_csv_path(cl.out_dir, whole);
  if (cl.merge > 0) {
    const BatchMergeResult merged = merge_batch_shards(whole, cl.out_dir, cl.merge, csv_whole);
    std::cout << "batch " << whole.path << ": merged " << merged.rows << " designs (" << merged.ok << " ok) from "
              << cl.merge << " shard tables\nresults: " << csv_whole << "\n";
    print_report(write_batch_report(whole, read_batch_table(whole, csv_whole), stem(csv_whole)), std::cout);
    return kExitSuccess;
  }
  const BatchSpec spec = batch_shard(whole, cl.shard, cl.shards);
  BatchRunOptions options;
  options.out_dir = cl.out_dir;
  options.has_backend = cl.has_backend;
  options.backend = cl.backend;
  options.workers = cl.workers;
  options.resume = cl.resume;
  std::error_code ec;
  std::filesystem::create_directories(cl.out_dir, ec);
  SOFTIK_CHECK_IO(!ec && std::filesystem::is_directory(cl.out_dir),
                  "cannot create the output folder '" << cl.out_dir << "': " << (ec ? ec.message() : "not a folder"));
  if (!mpi.coordinator()) {
    mpi.evaluate_designs(spec, options);  // until rank 0 says the sweep is done
    return kExitSuccess;
  }
  ProgressDisplay display = progress_display(cl, std::cerr);
  if (display.active()) options.on_progress = display.callback();
  const std::string csv_path = cl.shards > 1 ? batch_shard_csv_path(cl.out_dir, whole, cl.shard, cl.shards) : csv_whole;
  if (!cl.quiet)
    std::cerr << "softik: " << spec.designs.size() << " designs of " << spec.scene_path
              << (cl.shards > 1 ? " (shard " + std::to_string(cl.shard) + " of " + std::to_string(cl.shards) + ")" : "")
              << (mpi.ranks() > 1 ? " on " + std::to_string(mpi.ranks() - 1) + " MPI ranks" : "") << " -> "
              << cl.out_dir << "\n";
  options.csv_path = csv_path;  // kept up to date as designs finish; a failed write throws (exit 3)
  const BatchResult result = mpi.run(spec, options);
  display.finish();
  print_summary(spec, result, csv_path, mpi.ranks(), std::cout);
  print_report(write_batch_report(spec, result, stem(csv_path)), std::cout);
  return batch_status(result);
}

}  // namespace

int batch_command(const CommandLine& cl) {
  MpiSession mpi(cl.mpi);  // --mpi: every rank runs this; rank 0 coordinates and reports
  try {
    return run_batch_command(cl, mpi);
  } catch (const Error& e) {
    if (mpi.ranks() <= 1) throw;
    // The other ranks may be waiting for this one: end the whole job (mpirun reports the status).
    std::cerr << "softik: error (MPI rank " << mpi.rank() << "): " << e.what() << "\n";
    mpi.abort(exit_status(e.kind()));
  }
}

}  // namespace softik::cli
