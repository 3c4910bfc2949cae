// `softik batch` (docs/cli.md, docs/batch-format.md): run a batch file's designs (all, one shard,
// resumed, or shared among MPI ranks), or merge shard tables; print the summary and the ranking.
#pragma once

#include "host/cli/command_line.hpp"

namespace softik::cli {

/// Returns the exit status: the most severe over the designs (docs/cli.md).
int batch_command(const CommandLine& cl);

}  // namespace softik::cli
