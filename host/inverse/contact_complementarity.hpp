// The constraint-space problem of an inverse step with contacts (docs/inverse_contact.md):
// a convex QP over the actuation and the contact forces with complementarity between each
// contact's force and its gap, solved by pivoting on the contact states.
//
// Variables z = (lambda_a, lambda_c): the actuator inputs (na) and the contact forces (per contact
// its normal force, then its two tangential forces when it has friction). Contact rows
//   delta_c = delta_c_free + Wc z      (gap and tangential slip over the step, length units)
// Conditions on each contact (friction: the 4-facet pyramid |lambda_tk| <= mu' lambda_n, k = 1, 2,
// inscribed in the Coulomb cone with mu' = mu / sqrt(2), so the exact cone is never exceeded):
//   0 <= lambda_n  _|_  delta_n >= 0
//   per tangent k: |lambda_tk| < mu' lambda_n  =>  delta_tk = 0                 (stick)
//                  lambda_tk = +mu' lambda_n  =>  delta_tk <= 0                  (slip, force along +t_k)
//                  lambda_tk = -mu' lambda_n  =>  delta_tk >= 0                  (slip, force along -t_k)
// The complementarity splits the feasible set into pieces, one per choice of states (normal:
// separated or pressed; tangent: stick, slip+ or slip-), each a polyhedron:
//   separated   lambda_n = lambda_t = 0,  delta_n >= 0
//   pressed     lambda_n >= 0, delta_n = 0, and per tangent k
//               stick  delta_tk = 0, -mu' lambda_n <= lambda_tk <= mu' lambda_n
//               slip+  lambda_tk = mu' lambda_n, delta_tk <= 0;  slip-  lambda_tk = -mu' lambda_n, delta_tk >= 0
// On a piece the problem is the QP `base` plus these constraints. solve_contact_qp() solves it,
// reads the multipliers, and moves every contact whose constraint pushes back to the neighbouring
// piece that relaxes it:
//   separated, delta_n >= 0 holding with a multiplier > 0 (the objective pushes into the obstacle) -> pressed (its
//              tangents slip with the sign that keeps the current point: delta_tk <= 0 -> slip+);
//   pressed, lambda_n >= 0 holding with a multiplier > 0 (the objective pulls)  -> separated;
//   stick, a pyramid facet holding with a multiplier > 0                         -> slip along it;
//   slip, delta_tk's sign condition holding with a multiplier > 0                -> stick.
// The current point lies in both pieces of every such move (lambda_n = delta_n = 0 on the first
// two, lambda_tk = +-mu' lambda_n with delta_tk = 0 on the others), so the objective never
// increases from piece to piece and a piece is never revisited unless the objective stays flat;
// visited state vectors are recorded and the pivoting stops on a repeat or after max_pivots.
// The answer satisfies the complementarity and the pyramid exactly (they are constraints of its
// piece), and the contacts are in force equilibrium with the actuation it returns.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Dense>

#include "host/contact/contact_solvers.hpp"
#include "softik/constraints.hpp"
#include "softik/qp.hpp"

namespace softik::inverse_detail {

/// One contact's rows among the contact rows: `row` (normal), then row + 1, row + 2 (t1, t2) when
/// `friction` (rows = 3), else rows = 1. Its variables sit at the same offsets after the actuators.
struct ContactRows {
  int row = 0;
  int rows = 1;
  Real mu = 0;  ///< Coulomb's coefficient of the pair (the pyramid uses mu / sqrt(2))
};

/// States: normal kSeparated or kPressed; per tangent kStick, kSlipPlus, kSlipMinus.
struct ContactState {
  static constexpr signed char kSeparated = 0, kPressed = 1;
  static constexpr signed char kStick = 0, kSlipPlus = 1, kSlipMinus = -1;
  signed char normal = kSeparated;
  signed char tangent[2] = {kStick, kStick};
};

struct ContactQp {
  /// The problem over z without the contact conditions: H, g, g_terms over all n = na + nc
  /// variables; the actuators' bounds in lower/upper (na entries, or empty: free) and their rows
  /// A (m x n) with a_lower, a_upper; names for messages.
  QpProblem base;
  Eigen::MatrixXd Wc;            ///< nc x n
  Eigen::VectorXd delta_c_free;  ///< nc
  std::vector<ContactRows> contacts;
  std::vector<std::string> contact_names;  ///< per contact, for messages
};

struct ContactQpResult {
  QpResult qp;  ///< of the last piece, its x = z; rows: base rows first, then the contact rows
  std::vector<ContactState> states;
  int pivots = 0;        ///< contact state changes
  int pieces = 0;        ///< QPs solved
  bool settled = false;  ///< no contact wanted to change state at the answer
  std::string message;   ///< why not settled, or the infeasibility explanation
};

/// Solves the problem above from the states `start` (one per contact; resized to separated when
/// its size differs). max_pivots bounds the state changes; options go to each QP.
ContactQpResult solve_contact_qp(const ContactQp& problem, std::vector<ContactState> start, int max_pivots,
                                 const QpOptions& options);

}  // namespace softik::inverse_detail
