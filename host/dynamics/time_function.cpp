// TimeFunction: piecewise-linear tables of time (include/softik/dynamics.hpp).
#include <cmath>

#include "softik/dynamics.hpp"
#include "softik/error.hpp"

namespace softik {

Real TimeFunction::operator()(Real t) const {
  if (times.empty()) return 1.0;
  if (t <= times.front()) return values.front();
  if (t >= times.back()) return values.back();
  size_t k = 1;
  while (times[k] < t) ++k;  // times[k-1] < t <= times[k]
  const Real s = (t - times[k - 1]) / (times[k] - times[k - 1]);
  return values[k - 1] + s * (values[k] - values[k - 1]);
}

void validate(const TimeFunction& f, const std::string& what) {
  SOFTIK_CHECK(f.times.size() == f.values.size(), what << ": " << f.times.size() << " times but " << f.values.size()
                                                       << " values; give one value per time");
  for (size_t k = 0; k < f.times.size(); ++k) {
    SOFTIK_CHECK(std::isfinite(f.times[k]) && std::isfinite(f.values[k]),
                 what << ": entry " << k << " is (" << f.times[k] << ", " << f.values[k] << "); give finite numbers");
    SOFTIK_CHECK(k == 0 || f.times[k] > f.times[k - 1], what << ": time " << f.times[k] << " (entry " << k
                                                             << ") does not follow " << f.times[k - 1]
                                                             << "; list the times in increasing order");
  }
}

const char* time_scheme_name(TimeScheme scheme) { return scheme == TimeScheme::Newmark ? "newmark" : "backward_euler"; }

}  // namespace softik
