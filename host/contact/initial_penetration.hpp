// The warning for nodes that start inside an obstacle (or another part), shared by the dynamic
// solver and the scene's inverse runs, so that both say it in the same words.
#pragma once

#include <string>
#include <vector>

#include "softik/contact.hpp"

namespace softik::contact {

/// "contact: N node(s) start interpenetrating (deepest d): node n by g into obstacle 'o', ...;
/// <consequence>. Move the body or the obstacle apart to avoid it" for the points of `found` whose
/// gap is below -tolerance (at most 8 listed), or "" when none is. `obstacles` names them;
/// `consequence` says what the solve does about it.
std::string initial_penetration_warning(const std::vector<ContactPoint>& found, const std::vector<Obstacle>& obstacles,
                                        Real tolerance, const std::string& consequence);

}  // namespace softik::contact
