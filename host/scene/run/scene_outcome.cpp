// Whether a scene run met its goals (the CLI's exit status 2 when it did not).
#include <sstream>

#include "softik/scene.hpp"

namespace softik {

std::string unmet_goals(const SceneRunResult& result) {
  std::ostringstream why;
  why.precision(4);
  const DynamicRunSummary& d = result.dynamics;
  if (d.enabled && d.unconverged_contact_solves > 0)
    why << d.unconverged_contact_solves << " of " << d.steps
        << " steps ended with an unconverged contact solve (last residual " << d.last_contact_residual
        << ", largest penetration " << d.max_penetration
        << "); raise contact.max_iterations, loosen contact.tolerance, or reduce dynamics.dt\n";
  const ContinuationRunSummary& c = result.continuation;
  if (c.enabled && c.failed)
    why << "the arc-length continuation stopped before max_steps or max_load_factor: " << c.message
        << " (the path up to there is in " << result.csv_path << " and " << c.svg_path << ")\n";
  const InverseRunSummary& s = result.inverse;
  if (!s.enabled) return why.str();
  std::ostringstream goals;
  goals.precision(4);
  for (const EffectorSummary& e : s.effectors) {
    if (e.reached >= e.goals) continue;
    goals << "effector " << e.name << " reached " << e.reached << " of " << e.goals << " goals: final error "
          << e.final_error << ", worst " << e.worst_error << " (tolerance " << e.tolerance << ", " << e.unit
          << " units), " << e.worst_error / (e.tolerance > 0 ? e.tolerance : 1) << "x the tolerance\n";
  }
  for (const InverseRunSummary::ForceTarget& t : s.force_targets)
    if (!t.met())
      goals << "force target " << t.name << " on '" << t.obstacle << "': normal force " << t.force << " N, target "
            << t.target << " N (tolerance " << t.tolerance << " N)\n";
  if (s.unconverged > 0) goals << s.unconverged << " converged solve(s) did not converge\n";
  const std::string text = goals.str();
  if (text.empty()) return why.str();
  why << text;
  if (!s.last_message.empty())
    why << "why: " << s.last_message << "\n";
  else
    why << "why: the goal lies beyond what the actuators can do within their bounds, or more steps are needed "
           "(inverse.steps_per_target, inverse.max_iterations"
        << (d.enabled ? ", dynamics damping" : "") << ")\n";
  return why.str();
}

}  // namespace softik
