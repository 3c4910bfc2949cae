// What the softik program's commands share (host/cli/): the parsed command line and the exit
// statuses of docs/cli.md.
#pragma once

#include <ostream>
#include <string>

#include "host/cli/progress_display.hpp"
#include "softik/backend.hpp"
#include "softik/error.hpp"
#include "softik/linear_solver.hpp"

namespace softik::cli {

/// The exit statuses (docs/cli.md).
constexpr int kExitSuccess = 0, kExitInput = 1, kExitNotConverged = 2, kExitIo = 3;

inline int exit_status(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Numerical:
      return kExitNotConverged;
    case ErrorKind::Io:
      return kExitIo;
    case ErrorKind::Input:
    case ErrorKind::Unsupported:
    case ErrorKind::Internal:
      return kExitInput;
  }
  return kExitInput;
}

/// Options shared by run and batch.
struct CommandLine {
  std::string input, out_dir;
  bool quiet = false;
  bool has_backend = false;
  Backend backend = Backend::Cpu;
  bool has_linear_solver = false;
  LinearSolverKind linear_solver = LinearSolverKind::Automatic;
  int workers = -1;
  int shard = 0, shards = 1;  ///< --shard i/n (batch)
  int merge = 0;              ///< --merge n (batch): join the tables of n shards
  bool resume = false;        ///< --resume (batch)
  bool mpi = false;           ///< --mpi (batch): share the designs among MPI ranks
  ProgressMode progress = ProgressMode::Auto;
};

/// The progress display the command line asks for on stderr (None with --quiet).
inline ProgressDisplay progress_display(const CommandLine& cl, std::ostream& err) {
  return {err, cl.quiet ? ProgressMode::None : resolve_progress_mode(cl.progress), terminal_width()};
}

}  // namespace softik::cli
