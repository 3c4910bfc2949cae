// Natural frequencies and mode shapes: the generalised eigenproblem of the free DOFs
//   K phi = lambda M phi,   f = sqrt(lambda) / (2 pi)
// with K the tangent stiffness at a state x (the rest state: the linear vibration modes; a loaded
// state: the modes about it, the tangent's load stiffness left out) and M the consistent or
// lumped mass (Assembler::mass_matrix). The `count` eigenvalues nearest the shift sigma are found
// by shift-invert Lanczos (Spectra's SymGEigsShiftSolver in ShiftInvert mode: Lanczos on
// (K - sigma M)^-1 M, whose largest eigenvalues 1 / (lambda - sigma) are the lambda nearest
// sigma), the solves with K - sigma M through a LinearSolver (one factorisation).
// Source: Ericsson & Ruhe, "The spectral transformation Lanczos method for the numerical solution
// of large sparse generalized symmetric eigenvalue problems", Math. Comp. 35 (1980); Spectra
// (https://spectralib.org), SymGEigsShiftSolver.
#pragma once

#include <vector>

#include "softik/assembly.hpp"
#include "softik/linear_solver.hpp"

namespace softik {

struct ModesOptions {
  int count = 6;        ///< modes wanted, 1 <= count < free DOFs
  Real shift = 0;       ///< sigma: the modes nearest it (0: the lowest); < 0 for a body that floats
  Real density = 1000;  ///< mass density (> 0)
  bool lumped_mass = false;
  Real tolerance = 1e-10;  ///< Lanczos' relative tolerance on the eigenvalues
  int max_iterations = 1000;
};

struct ModesResult {
  std::vector<Real> eigenvalues;  ///< lambda = omega^2, ascending
  std::vector<Real> frequencies;  ///< f = sqrt(lambda) / (2 pi) (Hz with SI units; < 0: -sqrt(-lambda)/(2 pi))
  /// Mode shapes, num_dofs entries each (0 on fixed DOFs), mass-normalised: phi^T M phi = 1.
  std::vector<std::vector<Real>> shapes;
  int iterations = 0;  ///< Lanczos restarts
  int converged = 0;
};

/// The `count` modes nearest options.shift of the body at positions x (num_dofs entries). Throws
/// softik::Error: bad options (Input); K - sigma M singular or indefinite where the solver needs it
/// definite (Numerical: a body that floats has lambda = 0, give a negative shift); no convergence.
ModesResult natural_modes(const Assembler& assembler, LinearSolver& solver, const std::vector<Real>& x,
                          const ModesOptions& options);

}  // namespace softik
