// Reactions of the fixed and prescribed sets (softik/scene_run.hpp, outputs.reactions).
#include <algorithm>
#include <array>
#include <vector>

#include "softik/cavity.hpp"
#include "softik/scene_run.hpp"

namespace softik {

std::vector<Real> static_reactions(const BuiltScene& built, const std::vector<Real>& x, Real load_factor,
                                   const std::vector<Real>& pressures) {
  std::vector<Real> f;
  built.assembler->assemble(x, nullptr, &f, nullptr);
  if (!built.loads.nodal.empty())
    for (size_t k = 0; k < f.size(); ++k) f[k] += load_factor * built.loads.nodal[k];
  for (size_t p = 0; p < built.loads.pressures.size() && p < pressures.size(); ++p)
    add_pressure_forces(built.loads.pressures[p], pressures[p], built.mesh, x, f);
  std::vector<Real> R(f.size(), 0.0);
  for (size_t k = 0; k < f.size(); ++k)
    if (built.fixed_dofs[k]) R[k] = -f[k];  // R + f + f_ext = 0 where the supports hold the body
  return R;
}

std::vector<std::array<Real, 6>> set_reactions(const BuiltScene& built, const std::vector<Real>& x,
                                               const std::vector<Real>& R) {
  const int dim = built.mesh.dim;
  std::vector<std::array<Real, 6>> out;
  for (const ReactionSet& set : built.reaction_sets) {
    std::array<Real, 6> r{};
    std::vector<int> nodes;
    for (int dof : set.dofs) nodes.push_back(dof / dim);
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    std::array<Real, 3> c{0, 0, 0};
    for (int n : nodes)
      for (int i = 0; i < dim; ++i) c[static_cast<size_t>(i)] += x[static_cast<size_t>(n * dim + i)];
    for (Real& ci : c) ci /= nodes.empty() ? 1.0 : static_cast<Real>(nodes.size());
    for (int dof : set.dofs) {
      const int i = dof % dim;
      const Real Rk = R[static_cast<size_t>(dof)];
      r[static_cast<size_t>(i)] += Rk;
      // (x_n - c) x (Rk e_i)
      std::array<Real, 3> arm{0, 0, 0};
      for (int j = 0; j < dim; ++j)
        arm[static_cast<size_t>(j)] = x[static_cast<size_t>(dof - i + j)] - c[static_cast<size_t>(j)];
      std::array<Real, 3> force{0, 0, 0};
      force[static_cast<size_t>(i)] = Rk;
      r[3] += arm[1] * force[2] - arm[2] * force[1];
      r[4] += arm[2] * force[0] - arm[0] * force[2];
      r[5] += arm[0] * force[1] - arm[1] * force[0];
    }
    out.push_back(r);
  }
  return out;
}

}  // namespace softik
