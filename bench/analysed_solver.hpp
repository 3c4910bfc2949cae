// The linear solver of the factorisation and solve benchmarks (bench/linear_solver.cpp,
// bench/finger_static.cpp): the symbolic analysis done once, outside the timing, as in a
// simulation.
#pragma once

#include <benchmark/benchmark.h>

#include <memory>

#include "softik/assembly.hpp"
#include "softik/linear_solver.hpp"

namespace softik::bench {

/// A solver of `kind` that has analysed the assembler's pattern.
inline std::unique_ptr<LinearSolver> analysed_solver(LinearSolverKind kind, const Assembler& assembler) {
  auto solver = make_linear_solver(kind);
  solver->analyze(assembler.pattern());
  return solver;
}

/// The kind of solver a benchmark's range(0) names.
inline LinearSolverKind solver_kind(const benchmark::State& state) {
  return static_cast<LinearSolverKind>(state.range(0));
}

}  // namespace softik::bench
