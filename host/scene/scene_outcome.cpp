// Whether a scene run met its goals (the CLI's exit status 2 when it did not).
#include <sstream>

#include "softik/scene.hpp"

namespace softik {

std::string unmet_goals(const SceneRunResult& result) {
  if (result.dynamics.enabled) {
    const DynamicRunSummary& d = result.dynamics;
    if (d.unconverged_contact_solves == 0) return {};
    std::ostringstream why;
    why.precision(4);
    why << d.unconverged_contact_solves << " of " << d.steps
        << " steps ended with an unconverged contact solve (last residual " << d.last_contact_residual
        << ", largest penetration " << d.max_penetration
        << "); raise contact.max_iterations, loosen contact.tolerance, or reduce dynamics.dt\n";
    return why.str();
  }
  const InverseRunSummary& s = result.inverse;
  if (!s.enabled) return {};
  std::ostringstream why;
  why.precision(4);
  for (const EffectorSummary& e : s.effectors) {
    if (e.reached >= e.goals) continue;
    why << "effector " << e.name << " reached " << e.reached << " of " << e.goals << " goals: final error "
        << e.final_error << ", worst " << e.worst_error << " (tolerance " << e.tolerance << ", " << e.unit
        << " units), " << e.worst_error / (e.tolerance > 0 ? e.tolerance : 1) << "x the tolerance\n";
  }
  if (s.unconverged > 0)
    why << s.unconverged << " converged solve(s) did not converge\n";
  const std::string text = why.str();
  if (text.empty()) return {};
  if (!s.last_message.empty()) return text + "why: " + s.last_message + "\n";
  return text + "why: the goal lies beyond what the actuators can do within their bounds, or more steps are "
                "needed (inverse.steps / inverse.max_iterations)\n";
}

}  // namespace softik
