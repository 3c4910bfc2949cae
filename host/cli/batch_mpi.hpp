// `softik batch --mpi` (docs/batch-format.md, "MPI"): the designs of one batch shared among the
// ranks of an MPI job (mpirun -n N softik batch B.yaml --out DIR --mpi), with dynamic load
// balancing. Rank 0 coordinates: it runs run_batch with one worker thread per other rank, each
// handing its design to an idle rank and waiting for the result (BatchRunOptions::evaluate), and
// keeps the results table on disk as results arrive; ranks 1 .. N-1 evaluate the designs they are
// sent, one at a time, and get the next one when they return one. Only rank 0's main thread
// calls MPI (MPI_THREAD_FUNNELED), and no rank spins while it waits (it polls every millisecond).
// Each rank's designs use the cores of its node divided among the ranks on that node, and on a
// node with GPUs each rank sees one of them (gpu_per_rank.hpp).
//
// A rank that dies ends the job (MPI's default error handler): the table keeps every row that
// arrived before; `--resume` then runs only the designs without a row, so none is counted twice.
// Built without MPI (SOFTIK_MPI=OFF or no MPI found), --mpi is an error that says how to get it.
#pragma once

#include <cstddef>

#include "softik/batch.hpp"

namespace softik::cli {

/// Whether this softik was built with MPI.
bool mpi_built();

class MpiSession {
 public:
  /// `enabled` (--mpi): initialises MPI (an Error of kind Unsupported when built without it).
  explicit MpiSession(bool enabled);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  /// Rank 0 (and any run without --mpi): runs the batch and reports.
  bool coordinator() const { return rank_ == 0; }

  /// Rank 0: run_batch with the designs evaluated on ranks 1 .. N-1 (plain run_batch with one rank).
  BatchResult run(const BatchSpec& spec, BatchRunOptions options);
  /// Ranks >= 1: evaluate the designs rank 0 sends until it says the batch is done.
  void evaluate_designs(const BatchSpec& spec, BatchRunOptions options);
  /// Ends every rank of the job with `status` (after an error on this rank).
  [[noreturn]] void abort(int status);

 private:
  bool active_ = false;
  int rank_ = 0, ranks_ = 1;
  int node_rank_ = 0, node_ranks_ = 1;  ///< this rank among those on its node
  bool node_has_coordinator_ = true;    ///< rank 0 runs on this node
};

}  // namespace softik::cli
