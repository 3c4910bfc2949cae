// Arc-length continuation (include/softik/continuation.hpp; docs/method.md section 11): option
// checks, the step loop with arc adaptation (6) and step cuts, and the path's bookkeeping
// (inertia, limit and bifurcation points). One step's algebra is arc_length_step.cpp.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <sstream>

#include "host/solvers/arc_length_step.hpp"
#include "host/solvers/static_checks.hpp"
#include "softik/continuation.hpp"
#include "softik/error.hpp"
#include "softik/network_statics.hpp"

namespace softik {

const char* arc_length_status_name(ArcLengthStatus status) {
  constexpr const char* kNames[] = {"reached max_load_factor", "reached max_steps",
                                    "step failed"};  // in ArcLengthStatus's order
  const int k = static_cast<int>(status);
  return k >= 0 && k < int(std::size(kNames)) ? kNames[k] : "unknown";
}

namespace {

void check_arc(const char* field, Real value) {
  SOFTIK_CHECK(std::isfinite(value) && value > 0,
               "solve_arc_length: ArcLengthOptions::" << field << " is " << value
                                                      << "; arc lengths must be positive (units of x, e.g. a "
                                                         "fraction of the displacement expected per step)");
}

void check_options(const EquilibriumModel& model, const ArcLengthOptions& o) {
  check_arc("initial_arc", o.initial_arc);
  check_arc("min_arc", o.min_arc);
  check_arc("max_arc", o.max_arc);
  SOFTIK_CHECK(o.min_arc <= o.initial_arc && o.initial_arc <= o.max_arc,
               "solve_arc_length: ArcLengthOptions needs min_arc <= initial_arc <= max_arc, got "
                   << o.min_arc << ", " << o.initial_arc << ", " << o.max_arc);
  SOFTIK_CHECK(o.max_steps >= 1, "solve_arc_length: ArcLengthOptions::max_steps is " << o.max_steps << "; give >= 1");
  SOFTIK_CHECK(o.max_iterations >= 1,
               "solve_arc_length: ArcLengthOptions::max_iterations is " << o.max_iterations << "; give >= 1");
  SOFTIK_CHECK(o.desired_iterations >= 1,
               "solve_arc_length: ArcLengthOptions::desired_iterations is " << o.desired_iterations << "; give >= 1");
  SOFTIK_CHECK(std::isfinite(o.psi) && o.psi >= 0,
               "solve_arc_length: ArcLengthOptions::psi is " << o.psi << "; give a finite value >= 0 (0: cylindrical)");
  SOFTIK_CHECK(std::isfinite(o.residual_tolerance) && o.residual_tolerance > 0,
               "solve_arc_length: ArcLengthOptions::residual_tolerance is " << o.residual_tolerance << "; give > 0");
  SOFTIK_CHECK(
      std::isfinite(o.max_load_factor) && o.max_load_factor > 0,
      "solve_arc_length: ArcLengthOptions::max_load_factor is " << o.max_load_factor << "; give a finite value > 0");
  SOFTIK_CHECK(o.monitored_dof >= -1 && o.monitored_dof < model.num_dofs(),
               "solve_arc_length: ArcLengthOptions::monitored_dof is "
                   << o.monitored_dof << "; give -1 or a DOF in [0, " << model.num_dofs() << ")");
}

/// Refuses what arc-length continuation cannot drive: prescribed displacements and a zero
/// reference load.
void check_loads(const EquilibriumModel& model, const Loads& loads, const std::vector<Real>& x) {
  check_static_loads(model, loads, x, "solve_arc_length");
  for (const PressureLoad& p : loads.pressures)
    SOFTIK_CHECK_KIND(p.control == CavityControl::Pressure, ErrorKind::Unsupported,
                      "solve_arc_length: pressure load '"
                          << p.name << "' has control = " << cavity_control_name(p.control)
                          << ", which arc-length continuation does not drive (it scales given pressures); a volume-"
                             "controlled or gas cavity passes pressure maxima under load control: use solve_static");
  SOFTIK_CHECK_KIND(loads.prescribed.empty(), ErrorKind::Unsupported,
                    "solve_arc_length drives nodal loads and pressures; Loads::prescribed holds "
                        << loads.prescribed.size()
                        << " prescribed displacements, which it cannot scale with the load factor: use solve_static");
  std::vector<Real> f_ref = loads.nodal.empty() ? std::vector<Real>(x.size(), 0.0) : loads.nodal;
  for (const PressureLoad& p : loads.pressures) add_pressure_forces(p, p.pressure, model.nodes(), x, f_ref);
  Real norm = 0;
  for (size_t k = 0; k < x.size(); ++k)
    if (model.free_dof_index()[k] >= 0) norm += f_ref[k] * f_ref[k];
  SOFTIK_CHECK(norm > 0,
               "solve_arc_length: the reference load (Loads::nodal and Loads::pressures at load factor 1) is "
               "zero on the free DOFs: there is no load to follow; give a non-zero load");
}

/// The driver's state between steps.
struct Path {
  const EquilibriumModel& model;
  const ArcLengthOptions& options;
  ArcLengthStepper& stepper;
  ArcLengthResult& result;
  ArcPoint current;
  int sign = 1;  ///< dlambda/ds of the path at `current` (the predictor sign of (3))

  Real displacement(const std::vector<Real>& x) const {
    const std::vector<Real>& X = model.nodes().X;
    if (options.monitored_dof >= 0) {
      const size_t k = static_cast<size_t>(options.monitored_dof);
      return x[k] - X[k];
    }
    Real s = 0;
    for (size_t k = 0; k < x.size(); ++k)
      if (model.free_dof_index()[k] >= 0) s += (x[k] - X[k]) * (x[k] - X[k]);
    return std::sqrt(s);
  }

  void record(const ArcPoint& point, Real arc, int iterations, int new_sign) {
    PathPoint p;
    p.step = static_cast<int>(result.path.size());
    p.load_factor = point.lambda;
    stepper.pressures_and_volumes(point, p.pressures, p.volumes);
    p.displacement = displacement(point.x);
    p.arc = arc;
    p.iterations = iterations;
    p.residual = point.residual;
    p.negative_pivots = point.negative_pivots;
    if (!result.path.empty() && p.negative_pivots >= 0 && result.path.back().negative_pivots >= 0 &&
        p.negative_pivots != result.path.back().negative_pivots) {
      p.limit_point_passed = new_sign != sign;  // dlambda/ds changed sign with the inertia
      p.bifurcation_suspected = !p.limit_point_passed;
    }
    result.path.push_back(p);
    if (options.on_step) options.on_step(result.path.back(), point.x);
  }

  /// The step that passed max_load_factor, redone at lambda = max_load_factor by Newton from the
  /// interpolated increment; false when that does not converge.
  bool cap(ArcPoint& next, std::vector<Real>& dx, Real& dlambda, StepOutcome& outcome) {
    const Real t = (options.max_load_factor - current.lambda) / dlambda;
    ArcPoint capped;
    const StepOutcome o = stepper.fixed_load_step(current, dx, t, options.max_load_factor, capped);
    outcome.iterations += o.iterations;
    if (!o.converged) {
      outcome.converged = false;
      outcome.failure = "Newton at max_load_factor did not converge";
      return false;
    }
    const std::vector<int>& free = model.free_dof_index();
    for (size_t k = 0; k < capped.x.size(); ++k)
      if (free[k] >= 0) dx[static_cast<size_t>(free[k])] = capped.x[k] - current.x[k];
    dlambda = options.max_load_factor - current.lambda;
    next = std::move(capped);
    return true;
  }

  /// One attempt with arc ds; numerical failures (an inverted cell, a singular tangent exactly
  /// at a critical point) are a failed attempt.
  StepOutcome attempt(Real ds, ArcPoint& next, std::vector<Real>& dx, Real& dlambda, bool* capped) {
    *capped = false;
    try {
      StepOutcome outcome = stepper.arc_step(current, ds, sign, next, dx, dlambda);
      if (outcome.converged && dlambda > 0 && next.lambda > options.max_load_factor)
        *capped = cap(next, dx, dlambda, outcome);
      return outcome;
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Numerical && e.kind() != ErrorKind::Input) throw;
      failure_text = e.what();
      StepOutcome failed;
      failed.failure = failure_text.c_str();
      return failed;
    }
  }
  std::string failure_text;
};

std::string failed_message(const Path& path, int attempts, Real ds, const char* failure) {
  std::ostringstream s;
  s << "arc-length step " << path.result.path.size() << " from load factor " << path.current.lambda << " failed "
    << attempts << " times, the last with the smallest arc min_arc = " << ds << " (" << failure
    << "). Lower min_arc or raise max_iterations; the path so far (" << path.result.path.size()
    << " points) is the result";
  return s.str();
}

ArcLengthResult follow_path(const EquilibriumModel& model, LinearSolver& solver, const Loads& loads,
                            std::vector<Real>& x, const ArcLengthOptions& options) {
  check_options(model, options);
  check_loads(model, loads, x);
  model.check_start(x);
  solver.analyze(model.pattern());
  ArcLengthStepper stepper(model, solver, loads, options);
  ArcLengthResult result;
  Path path{model, options, stepper, result, {}, 1, {}};
  const StepOutcome start = stepper.equilibrium_point(x, 0.0, path.current);
  if (!start.converged) {
    result.status = ArcLengthStatus::StepFailed;
    result.message =
        "the starting positions are not an equilibrium at load factor 0 (Newton did not converge within "
        "max_iterations): start from the rest positions or a converged state";
    result.iterations = stepper.iterations();
    return result;
  }
  path.record(path.current, 0, start.iterations, path.sign);
  Real ds = options.initial_arc;
  int steps = 0, attempts = 0;
  result.status = ArcLengthStatus::ReachedMaxSteps;
  while (true) {
    if (path.current.lambda >= options.max_load_factor) {
      result.status = ArcLengthStatus::ReachedMaxLoadFactor;
      break;
    }
    if (steps == options.max_steps) break;
    ArcPoint next;
    std::vector<Real> dx;
    Real dlambda = 0;
    bool capped = false;
    const StepOutcome outcome = path.attempt(ds, next, dx, dlambda, &capped);
    ++attempts;
    if (!outcome.converged) {
      if (ds <= options.min_arc) {
        result.status = ArcLengthStatus::StepFailed;
        result.message = failed_message(path, attempts, ds, outcome.failure);
        break;
      }
      ++result.step_cuts;
      ds = std::max(0.5 * ds, options.min_arc);  // cut
      continue;
    }
    const int new_sign = stepper.predictor_sign(next, dx, dlambda, path.sign);
    path.record(next, capped ? 0 : ds, outcome.iterations, new_sign);
    path.current = std::move(next);
    path.sign = new_sign;
    ++steps;
    attempts = 0;
    // (6): ds <- clamp(ds sqrt(desired / n), min_arc, max_arc)
    ds *= std::sqrt(static_cast<Real>(options.desired_iterations) / std::max(outcome.iterations, 1));
    ds = std::min(std::max(ds, options.min_arc), options.max_arc);
  }
  if (result.message.empty()) {
    std::ostringstream s;
    s << arc_length_status_name(result.status) << " after " << steps << " steps at load factor " << path.current.lambda;
    result.message = s.str();
  }
  result.iterations = stepper.iterations();
  x = path.current.x;
  return result;
}

}  // namespace

ArcLengthResult solve_arc_length(const Assembler& assembler, LinearSolver& solver, const Loads& loads,
                                 std::vector<Real>& x, const ArcLengthOptions& options) {
  return follow_path(*equilibrium_model(assembler), solver, loads, x, options);
}

ArcLengthResult solve_arc_length(const NetworkStatics& network, LinearSolver& solver, const Loads& loads,
                                 std::vector<Real>& x, const ArcLengthOptions& options) {
  // The follower-load stiffness needs its faces' couplings in the network's pattern.
  for (const PressureLoad& p : loads.pressures) {
    std::vector<Real> K(static_cast<size_t>(network.pattern().nnz()), 0.0);
    SOFTIK_CHECK(add_pressure_stiffness(p, 1.0, network.nodes(), network.pattern(), network.free_dof_index(),
                                        network.nodes().X, 1.0, K) == 0,
                 "solve_arc_length: pressure load '" << p.name
                                                     << "' couples nodes that the NetworkStatics' pattern does "
                                                     << "not: give the load to the NetworkStatics constructor");
  }
  return follow_path(*equilibrium_model(network), solver, loads, x, options);
}

}  // namespace softik
