// The softik command-line program.
//   softik run SCENE.yaml --out DIR [--backend cpu|cuda] [--linear-solver NAME] [--progress MODE] [--quiet]
//   softik batch BATCH.yaml --out DIR [--backend cpu|cuda] [--workers N] [--shard I/N | --merge N] [--resume] [--mpi]
//   [--progress MODE] [--quiet] softik materials [NAME] softik --help | --version
// Exit status (docs/cli.md): 0 success; 1 input error (bad scene, mesh, option, or a build or
// machine without what was asked for); 2 did not converge, or a goal was not reached; 3 I/O error
// (a file could not be read or written).
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "host/cli/batch_command.hpp"
#include "host/cli/command_line.hpp"
#include "host/cli/materials_command.hpp"
#include "softik/batch.hpp"
#include "softik/error.hpp"
#include "softik/scene.hpp"

namespace {

constexpr const char* kUsage =
    "usage: softik run SCENE.yaml --out DIR [--backend cpu|cuda] [--linear-solver NAME] [--progress MODE] [--quiet]\n"
    "       softik batch BATCH.yaml --out DIR [--backend cpu|cuda] [--workers N] [--shard I/N | --merge N] [--resume] "
    "[--mpi] [--progress MODE] [--quiet]\n"
    "       softik materials [NAME]\n"
    "       softik --help\n"
    "       softik --version\n";

constexpr const char* kHelp =
    "softik: forward and inverse finite-element simulation of soft robots from a YAML scene.\n"
    "\n"
    "commands:\n"
    "  run SCENE.yaml --out DIR   build the scene (mesh, materials, boundary conditions, loads),\n"
    "                             solve the static problem in load steps, and write into DIR:\n"
    "                               <scene>.csv        one row per load step: load factor, pressures,\n"
    "                                                  cavity volumes and their growth, probe\n"
    "                                                  displacements, Newton iterations, residual, time\n"
    "                               <scene>_NNNN.vtu   displacement, pressure_force, von_mises\n"
    "                               <scene>.pvd        the .vtu series, for ParaView\n"
    "                             Progress (load step k/N, elapsed time, ETA) goes to stderr\n"
    "                             (--progress); a summary (volumes, probe displacements) to\n"
    "                             stdout at the end.\n"
    "                             A scene with an 'inverse:' section instead finds the actuator\n"
    "                             inputs (pressures, cable tensions, forces) that bring its\n"
    "                             effectors to their goals (real-time steps or converged solves)\n"
    "                             and writes one CSV row per step: actuator values, effector\n"
    "                             positions and errors, QP status and iterations, phase times;\n"
    "                             the summary says whether each effector reached its goals.\n"
    "                             A scene with a 'dynamics:' section integrates in time (with\n"
    "                             'contact:', obstacles and contact between parts, with friction)\n"
    "                             and writes one CSV row per time step: energies, pressures,\n"
    "                             probes, contact forces, penetration, iterations; its .vtu files\n"
    "                             hold displacement, velocity and von_mises.\n"
    "  batch BATCH.yaml --out DIR evaluate many designs of one scene (overrides of its keys,\n"
    "                             listed or swept; see include/softik/batch.hpp and\n"
    "                             docs/scene-format.md \"batch\"), several at once, and write\n"
    "                             DIR/<batch>.csv with one row per design (tip displacement,\n"
    "                             volumes, actuator values found, effector errors, time);\n"
    "                             each design's own outputs go to DIR/<design>/.\n"
    "  materials [NAME]           list the named silicones a scene can select (material: NAME),\n"
    "                             or show one in full: every fit's constants as published and\n"
    "                             in softik's convention, its source, test and strain range\n"
    "                             (docs/materials.md)\n"
    "options:\n"
    "  --out DIR     output folder (created if missing)\n"
    "  --backend B   cpu or cuda: where assembly runs (overrides the scene's solver.backend);\n"
    "                cuda also makes the automatic linear solver a GPU one (dense Cholesky up\n"
    "                to 20k free DOFs, else cuDSS, else block PCG)\n"
    "  --linear-solver NAME  auto, cholmod, eigen, cuda-dense, cudss, cuda-pcg, cusolversp\n"
    "  --workers N   (batch) designs evaluated at once; 0: one per hardware thread\n"
    "  --shard I/N   (batch) run only shard I of N (0 <= I < N: designs k with k % N == I), its\n"
    "                table in DIR/<batch>.shard-I-of-N.csv (e.g. one Slurm array task per shard)\n"
    "  --merge N     (batch) run nothing: join the N shard tables in DIR into DIR/<batch>.csv, the\n"
    "                table one run of the whole batch writes; names any design with no row\n"
    "  --resume      (batch) keep the rows with status ok of the table already in DIR (an\n"
    "                interrupted run) and run only the other designs\n"
    "  --mpi         (batch) under mpirun: rank 0 hands the designs to ranks 1..N-1 one at a\n"
    "                time and writes the table (built with MPI only; docs/batch-format.md)\n"
    "  --progress MODE  how stderr shows the steps (or designs) done k/N, the elapsed time and\n"
    "                an ETA: bar (one line updated in place), lines (a plain line at most once a\n"
    "                second, and the first and last), none, or auto (the default: bar when stderr\n"
    "                is a terminal, else lines)\n"
    "  --quiet       no progress and no opening line (warnings, errors and the summary still print)\n"
    "  --help, -h    this text\n"
    "  --version     the softik version\n"
    "\n"
    "The scene format is described in docs/scene-format.md; examples are in examples/.\n"
    "Exit status: 0 success; 1 input error (bad scene, mesh or option); 2 a solve did not\n"
    "converge or a goal was not reached (the reason is printed); 3 I/O error (a file could not\n"
    "be read or written).\n";

using softik::cli::CommandLine;
using softik::cli::exit_status;
using softik::cli::kExitInput;
using softik::cli::kExitNotConverged;
using softik::cli::kExitSuccess;

int usage_error(const std::string& message) {
  std::cerr << "softik: error: " << message << "\n" << kUsage;
  return kExitInput;
}

/// A non-negative integer of at most `max` (false: not one).
bool parse_count(const std::string& text, long max, int& out) {
  char* end = nullptr;
  const long n = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || n < 0 || n > max) return false;
  out = static_cast<int>(n);
  return true;
}

/// Parses the arguments after the command; returns an exit status >= 0 when done (help or a
/// usage error), -1 to go on.
int parse_command_line(const std::string& command, const std::vector<std::string>& args, CommandLine& cl) {
  auto value = [&](size_t& i, const std::string& option, std::string& out) {
    const std::string& a = args[i];
    if (a.rfind(option + "=", 0) == 0) {
      out = a.substr(option.size() + 1);
      return true;
    }
    if (i + 1 >= args.size()) return false;
    out = args[++i];
    return true;
  };
  auto is = [](const std::string& a, const std::string& option) {
    return a == option || a.rfind(option + "=", 0) == 0;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string v;
    if (a == "--quiet" || a == "-q") {
      cl.quiet = true;
    } else if (is(a, "--out") || a == "-o") {
      if (!value(i, "--out", cl.out_dir)) return usage_error("--out needs a folder: --out DIR");
    } else if (is(a, "--backend")) {
      if (!value(i, "--backend", v)) return usage_error("--backend needs cpu or cuda");
      if (v != "cpu" && v != "cuda") return usage_error("--backend must be cpu or cuda, got '" + v + "'");
      cl.has_backend = true;
      cl.backend = softik::parse_backend(v);
    } else if (is(a, "--linear-solver") && command == "run") {
      if (!value(i, "--linear-solver", v)) return usage_error("--linear-solver needs a solver name");
      try {
        cl.linear_solver = softik::parse_linear_solver_kind(v);
      } catch (const softik::Error& e) {
        return usage_error(e.what());
      }
      cl.has_linear_solver = true;
    } else if (is(a, "--workers") && command == "batch") {
      if (!value(i, "--workers", v)) return usage_error("--workers needs a number");
      if (!parse_count(v, 100000, cl.workers)) return usage_error("--workers must be an integer >= 0, got '" + v + "'");
    } else if (is(a, "--shard") && command == "batch") {
      if (!value(i, "--shard", v)) return usage_error("--shard needs i/n, e.g. --shard 0/4");
      const size_t slash = v.find('/');
      if (slash == std::string::npos || !parse_count(v.substr(0, slash), 1000000, cl.shard) ||
          !parse_count(v.substr(slash + 1), 1000000, cl.shards) || cl.shards < 1 || cl.shard >= cl.shards)
        return usage_error("--shard must be i/n with 0 <= i < n (e.g. 0/4 ... 3/4), got '" + v + "'");
    } else if (is(a, "--merge") && command == "batch") {
      if (!value(i, "--merge", v) || !parse_count(v, 1000000, cl.merge) || cl.merge < 1)
        return usage_error("--merge needs the number of shards n >= 1, e.g. --merge 4");
    } else if (a == "--resume" && command == "batch") {
      cl.resume = true;
    } else if (a == "--mpi" && command == "batch") {
      cl.mpi = true;
    } else if (is(a, "--progress")) {
      if (!value(i, "--progress", v))
        return usage_error(std::string("--progress needs a mode: ") + softik::cli::kProgressModes);
      if (!softik::cli::parse_progress_mode(v, cl.progress))
        return usage_error(std::string("--progress must be ") + softik::cli::kProgressModes + ", got '" + v + "'");
    } else if (a == "--help" || a == "-h") {
      std::cout << kHelp;
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      return usage_error("unknown option '" + a + "' for '" + command + "'");
    } else if (cl.input.empty()) {
      cl.input = a;
    } else {
      return usage_error("'" + command + "' takes one file; got '" + cl.input + "' and '" + a + "'");
    }
  }
  const std::string what = command == "run" ? "a scene file: softik run SCENE.yaml --out DIR"
                                            : "a batch file: softik batch BATCH.yaml --out DIR";
  if (cl.input.empty()) return usage_error("'" + command + "' needs " + what);
  if (cl.out_dir.empty())
    return usage_error("'" + command + "' needs --out DIR (the folder for the .csv" +
                       std::string(command == "run" ? ", .vtu and .pvd outputs)" : " and the designs' outputs)"));
  return -1;
}

int run(const std::vector<std::string>& args) {
  CommandLine cl;
  if (const int status = parse_command_line("run", args, cl); status >= 0) return status;
  softik::Scene scene = softik::parse_scene(cl.input);
  if (cl.has_backend) scene.solver.backend = cl.backend;
  if (cl.has_linear_solver) scene.solver.linear_solver = cl.linear_solver;
  softik::require_backend(scene.solver.backend);
  softik::SceneRunOptions options;
  options.out_dir = cl.out_dir;
  softik::cli::ProgressDisplay display = progress_display(cl, std::cerr);
  if (display.active()) options.on_progress = display.callback();
  options.warnings = &std::cerr;
  if (!cl.quiet)
    std::cerr << "softik: running " << cl.input << " -> " << cl.out_dir << " (backend "
              << softik::backend_name(scene.solver.backend) << ")\n";
  const softik::SceneRunResult result = softik::run_scene(scene, options);
  display.finish();
  softik::write_summary(result, std::cout);
  const std::string unmet = softik::unmet_goals(result);
  if (unmet.empty()) return kExitSuccess;
  std::cerr << "softik: error: " << cl.input << ": goals not reached:\n" << unmet;
  return kExitNotConverged;
}

int batch(const std::vector<std::string>& args) {
  CommandLine cl;
  if (const int status = parse_command_line("batch", args, cl); status >= 0) return status;
  if (cl.merge > 0 && cl.shards > 1)
    return usage_error("--merge and --shard are separate steps: run the shards, then merge");
  if (cl.merge > 0 && (cl.resume || cl.mpi))
    return usage_error("--merge runs nothing: it takes neither --resume nor --mpi");
  return softik::cli::batch_command(cl);
}

int materials(const std::vector<std::string>& args) {
  for (const std::string& a : args)
    if (!a.empty() && a[0] == '-') return usage_error("'materials' takes no option; got '" + a + "'");
  if (args.size() > 1)
    return usage_error("'materials' takes at most one name; got '" + args[0] + "' and '" + args[1] + "'");
  softik::cli::print_materials(args.empty() ? "" : args[0], std::cout);
  return kExitSuccess;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) return usage_error("no command given");
  const std::string& command = args[0];
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kHelp;
    return 0;
  }
  if (command == "--version") {
    std::cout << "softik " << SOFTIK_VERSION << "\n";
    return 0;
  }
  if (command != "run" && command != "batch" && command != "materials")
    return usage_error("unknown command '" + command + "'");
  try {
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (command == "materials") return materials(rest);
    return command == "run" ? run(rest) : batch(rest);
  } catch (const softik::Error& e) {
    std::cerr << "softik: error: " << e.what() << "\n";
    return exit_status(e.kind());
  } catch (const std::bad_alloc&) {
    std::cerr << "softik: error: out of memory: the model is too large for this machine (use a coarser mesh)\n";
    return kExitInput;
  } catch (const std::exception& e) {
    std::cerr << "softik: internal error: " << e.what() << " (please report it with the scene)\n";
    return kExitInput;
  }
}
