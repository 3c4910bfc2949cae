// Body loads (softik/loads.hpp): gravity as nodal forces through the consistent mass's row sums.
#include <cmath>

#include "softik/error.hpp"
#include "softik/loads.hpp"

namespace softik {

std::vector<Real> gravity_load(const Assembler& assembler, Real density, const std::array<Real, 3>& g) {
  for (int i = 0; i < 3; ++i)
    SOFTIK_CHECK(std::isfinite(g[static_cast<size_t>(i)]),
                 "gravity component " << i << " is " << g[static_cast<size_t>(i)] << ": give a finite acceleration");
  std::vector<Real> f = assembler.body_force_share(density);  // rho integral(N_a dV) per DOF
  const int dim = assembler.mesh().dim;
  for (size_t k = 0; k < f.size(); ++k) f[k] *= g[k % static_cast<size_t>(dim)];
  return f;
}

}  // namespace softik
