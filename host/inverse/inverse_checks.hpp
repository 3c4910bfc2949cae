// Guards of the inverse step (inverse_solver.cpp; docs/method.md section 8.2: no NaN or infinity ever
// leaves softik as a result): finiteness of every result, effector-actuator couplings at
// round-off level, and the explanation of an unbounded constraint-space QP.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "softik/constraints.hpp"
#include "softik/qp.hpp"

namespace softik::inverse_detail {

/// Throws softik::Error of kind Numerical when values[0, n) holds a NaN or an infinity:
/// "<what> is not finite at <where(i)> (<value>); <hint>", for the first such entry.
void require_finite(const Real* values, size_t n, const std::string& what,
                    const std::function<std::string(size_t)>& where, const std::string& hint);

/// An effector-actuator coupling W(e, a) counts as round-off when |W(e, a)| is at most this
/// fraction of sqrt(W(e, e) W(a, a)), its largest possible value (W = J K^-1 J^T is a Gram
/// matrix: Cauchy-Schwarz). The ratio does not depend on units or weights; an exact zero (an
/// effector moving in a plane of symmetry of the actuator) computes to about 1e-15.
constexpr Real kRoundOffCoupling = 1e-10;

/// Sets the couplings W(e, a) = W(a, e) at round-off level to exactly 0 (effectors: the rows of
/// the effector rows in W, actuators: those of the actuator rows). Without this, an actuator that
/// cannot move an effector (a curvature |W_ea|^2 and a gradient W_ea^T delta_e both of
/// round-off) would be given the ratio of two round-off values as its input, e.g. 1e18 Pa.
/// Returns, per actuator row, whether it now moves no effector at all (false for all when there
/// are no effectors).
std::vector<bool> clean_round_off_couplings(Eigen::MatrixXd& W, const std::vector<int>& effectors,
                                            const std::vector<int>& actuators);

/// "actuator 'a' does not move the effectors ..." for the actuator rows flagged by
/// clean_round_off_couplings (names: per actuator row); empty when none is.
std::string idle_actuators_message(const std::vector<bool>& idle, const std::vector<std::string>& names);

/// The explanation of an Unbounded constraint-space QP, naming each actuator that moves along
/// its direction and the bound it lacks (names and lambda bounds: per actuator row).
std::string unbounded_message(const QpResult& res, const std::vector<std::string>& names,
                              const std::vector<Interval>& lambda_bounds);

/// What to say when the state an inverse step starts from is outside where the law is defined
/// (`cause`: the assembler's message, e.g. an inverted cell): the actuation that drove the body
/// there (names and values: per actuator row, in the order of `lambda`) and the bounds it lacks
/// in the direction it went (lambda_bounds), then the remedies of an inverse problem.
std::string inadmissible_state_message(const std::string& cause, const std::vector<std::string>& names,
                                       const std::vector<Real>& lambda, const std::vector<Interval>& lambda_bounds);

}  // namespace softik::inverse_detail
