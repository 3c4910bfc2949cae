// initial_penetration_warning (initial_penetration.hpp).
#include "host/contact/initial_penetration.hpp"

#include <algorithm>
#include <sstream>

namespace softik::contact {

std::string initial_penetration_warning(const std::vector<ContactPoint>& found, const std::vector<Obstacle>& obstacles,
                                        Real tolerance, const std::string& consequence) {
  std::ostringstream s;
  int count = 0;
  Real deepest = 0;
  for (const ContactPoint& p : found) {
    if (p.gap >= -tolerance) continue;
    if (count < 8)
      s << (count ? ", " : "") << "node " << p.node << " by " << -p.gap
        << (p.obstacle >= 0 && static_cast<size_t>(p.obstacle) < obstacles.size()
                ? " into obstacle '" + obstacles[static_cast<size_t>(p.obstacle)].name + "'"
                : " into another part");
    deepest = std::max(deepest, -p.gap);
    ++count;
  }
  if (count == 0) return "";
  std::ostringstream w;
  w << "contact: " << count << " node(s) start interpenetrating (deepest " << deepest << "): " << s.str()
    << (count > 8 ? ", ..." : "") << "; " << consequence << ". Move the body or the obstacle apart to avoid it";
  return w.str();
}

}  // namespace softik::contact
