// Volume-controlled and gas cavities in solve_static: pressures, potential, constraint residuals
// and the bordered Newton step (equations (B1)-(B2) of cavity_control.hpp).
#include "host/loads/cavity_control.hpp"

#include <cmath>

#include <Eigen/Dense>

#include "softik/error.hpp"

namespace softik {

ControlledCavities::ControlledCavities(const Loads& loads, const Assembler& assembler,
                                       const std::vector<std::unique_ptr<PressureEvaluator>>& evaluators)
    : loads_(loads), assembler_(assembler), evaluators_(evaluators), V0_(loads.pressures.size(), 0.0) {
  const std::vector<Real> X = assembler.mesh().rest_positions();
  for (size_t k = 0; k < loads.pressures.size(); ++k) {
    if (loads.pressures[k].control == CavityControl::Pressure) continue;
    controlled_.push_back(k);
    V0_[k] = evaluators_[k]->volume(X);
  }
}

bool ControlledCavities::has_volume() const {
  for (size_t k : controlled_)
    if (loads_.pressures[k].control == CavityControl::Volume) return true;
  return false;
}

Real ControlledCavities::volume(size_t k, const std::vector<Real>& x) const {
  const Real V = evaluators_[k]->volume(x);
  // A gas cavity squeezed to nothing has no finite pressure: a numerical failure (a step cut).
  SOFTIK_CHECK_NUMERICAL(V > 0 || loads_.pressures[k].control != CavityControl::Gas,
                         "gas cavity '" << loads_.pressures[k].name << "': its volume became " << V);
  return V;
}

Real ControlledCavities::gas_amount(size_t k, Real lambda) const {
  const PressureLoad& p = loads_.pressures[k];
  const Real N0 = p.ambient_pressure * V0_[k];  // the cavity starts at ambient pressure
  return N0 + lambda * (p.gas_amount - N0);
}

std::vector<Real> ControlledCavities::pressures(const std::vector<Real>& x, Real lambda,
                                                const std::vector<Real>& multipliers) const {
  std::vector<Real> P(loads_.pressures.size());
  for (size_t k = 0; k < P.size(); ++k) {
    const PressureLoad& p = loads_.pressures[k];
    switch (p.control) {
      case CavityControl::Pressure:
        P[k] = lambda * p.pressure;
        break;
      case CavityControl::Volume:
        P[k] = multipliers[k];
        break;
      case CavityControl::Gas:
        P[k] = gas_amount(k, lambda) / volume(k, x) - p.ambient_pressure;
        break;  // N/V - P_atm
    }
  }
  return P;
}

Real ControlledCavities::gas_work(const std::vector<Real>& x, Real lambda) const {
  Real W = 0;
  for (size_t k : controlled_) {
    if (loads_.pressures[k].control != CavityControl::Gas) continue;
    const Real V = volume(k, x);
    W += gas_amount(k, lambda) * std::log(V) - loads_.pressures[k].ambient_pressure * V;  // N ln V - P_atm V
  }
  return W;
}

std::vector<Real> ControlledCavities::volume_residuals(const std::vector<Real>& x, Real lambda) const {
  std::vector<Real> c(loads_.pressures.size(), 0.0);
  for (size_t k : controlled_)
    if (loads_.pressures[k].control == CavityControl::Volume)
      c[k] = volume(k, x) - V0_[k] - lambda * loads_.pressures[k].volume_growth;  // c = V - V0 - lambda dV
  return c;
}

bool ControlledCavities::volumes_converged(const std::vector<Real>& x, Real lambda, Real tolerance) const {
  const std::vector<Real> c = volume_residuals(x, lambda);
  for (size_t k : controlled_)
    if (std::abs(c[k]) > tolerance * V0_[k]) return false;
  return true;
}

void ControlledCavities::solve(const LinearSolver& solver, const std::vector<Real>& x, Real lambda_K, Real lambda,
                               const std::vector<Real>& rhs, std::vector<Real>& dx, std::vector<Real>& dP,
                               std::vector<Real>& weights) const {
  const std::vector<int>& free = assembler_.free_dof_index();
  const Eigen::Index n = assembler_.num_free_dofs(), m = static_cast<Eigen::Index>(controlled_.size());
  // Columns [r, J_1 .. J_m] on the free DOFs, solved with one factorisation: Y = K_T^-1 [r U].
  Eigen::MatrixXd B = Eigen::MatrixXd::Zero(n, m + 1), Y(n, m + 1);
  B.col(0) = Eigen::Map<const Eigen::VectorXd>(rhs.data(), n);
  for (Eigen::Index j = 0; j < m; ++j) {
    const std::vector<Real> J = evaluators_[controlled_[static_cast<size_t>(j)]]->jacobian(x);
    for (size_t d = 0; d < J.size(); ++d)
      if (free[d] >= 0) B(free[d], j + 1) = J[d];
  }
  solver.solve(B.data(), Y.data(), static_cast<int>(m + 1));
  const auto U = B.rightCols(m), A = Y.rightCols(m);
  const auto b = Y.col(0);
  // (B2): S = U^T A + D, rhs -(g + U^T b).
  Eigen::MatrixXd S = U.transpose() * A;
  Eigen::VectorXd s = -(U.transpose() * b);
  const std::vector<Real> c = volume_residuals(x, lambda);
  for (Eigen::Index j = 0; j < m; ++j) {
    const size_t k = controlled_[static_cast<size_t>(j)];
    if (loads_.pressures[k].control == CavityControl::Gas) {
      const Real V = volume(k, x);
      S(j, j) += V * V / gas_amount(k, lambda_K);  // D = 1 / c_k = V^2 / N
    } else {
      s(j) -= c[k];  // g_k = V - V_target
    }
  }
  const Eigen::PartialPivLU<Eigen::MatrixXd> lu(S);
  SOFTIK_CHECK_NUMERICAL(lu.rcond() > 1e-13 && S.allFinite(),
                         "the controlled cavities' Schur complement J^T K_T^-1 J is singular (reciprocal condition "
                             << lu.rcond() << "): a volume limit point of the pressure");
  const Eigen::VectorXd dPc = lu.solve(s);
  Eigen::Map<Eigen::VectorXd>(dx.data(), n) = b + A * dPc;  // dx = b + A dP
  dP.assign(loads_.pressures.size(), 0.0);
  weights.assign(loads_.pressures.size(), 0.0);
  for (Eigen::Index j = 0; j < m; ++j) {
    const size_t k = controlled_[static_cast<size_t>(j)];
    if (loads_.pressures[k].control != CavityControl::Volume) continue;  // a gas pressure follows from x
    dP[k] = dPc(j);
    weights[k] = U.col(j).norm() / std::abs(S(j, j));  // |J| dP ~ |J| c / S: the force a volume error implies
  }
}

}  // namespace softik
