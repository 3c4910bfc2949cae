// The inverse step's time per phase (bench/inverse_step.cpp, bench/cuda_inverse_step.cpp): the
// assembly, the factorisation, the solves, the constraint-space solve (QP) and the update of
// InverseStepReport, summed over the timed steps and reported per step in milliseconds.
#pragma once

#include <benchmark/benchmark.h>

#include "softik/inverse.hpp"

struct InversePhaseTimes {
  softik::Real t[5] = {0, 0, 0, 0, 0};  ///< seconds: assembly, factorisation, solves, QP, update

  void add(const softik::InverseStepReport& r) {
    t[0] += r.t_assembly;
    t[1] += r.t_factorization;
    t[2] += r.t_solves;
    t[3] += r.t_constraint_solve;
    t[4] += r.t_update;
  }

  /// The counters assembly_ms, factor_ms, solves_ms, qp_ms and update_ms: the mean over `steps`.
  void set_counters(benchmark::State& state, softik::Real steps) const {
    state.counters["assembly_ms"] = 1e3 * t[0] / steps;
    state.counters["factor_ms"] = 1e3 * t[1] / steps;
    state.counters["solves_ms"] = 1e3 * t[2] / steps;
    state.counters["qp_ms"] = 1e3 * t[3] / steps;
    state.counters["update_ms"] = 1e3 * t[4] / steps;
  }
};
