// Linear (small-strain) isotropic elasticity. Used as the "linear small strain" formulation
// and inside the corotational formulation (docs/method.md sections 2 and 3).
//
//   H = F - I,  eps = sym(H) = (H + H^T)/2
//   psi   = mu eps:eps + lambda/2 tr(eps)^2
//   P     = sigma = 2 mu eps + lambda tr(eps) I
//   dP_ij/dF_kl = mu (delta_ik delta_jl + delta_il delta_jk) + lambda delta_ij delta_kl  (constant)
// Lame parameters from Young's modulus and Poisson's ratio:
//   mu = E / (2 (1 + nu)),  lambda = E nu / ((1 + nu)(1 - 2 nu)),  bulk K = lambda + 2 mu / 3.
// Source: any continuum-mechanics text, e.g. Bonet & Wood, "Nonlinear Continuum Mechanics for
// Finite Element Analysis", 2nd ed., section 6.3 (infinitesimal limit). Not frame indifferent.
#pragma once

#include <cmath>

#include "softik/error.hpp"
#include "softik/fem/law_capabilities.hpp"
#include "softik/fem/tensor.hpp"

namespace softik::fem {

namespace detail {
// Host-only parameter validation shared by every law (messages name the law, the parameter
// and its valid range).
inline void check_finite(const char* law, const char* name, Real v) {
  SOFTIK_CHECK(std::isfinite(v), law << ": parameter " << name << " = " << v << " is not a finite number");
}

inline void check_positive(const char* law, const char* name, Real v) {
  check_finite(law, name, v);
  SOFTIK_CHECK(v > 0, law << ": parameter " << name << " = " << v << " is out of range; it must be > 0");
}

/// Validates (E, nu) for a compressible isotropic law: E > 0, -1 < nu < 0.5.
inline void check_young_poisson(const char* law, Real E, Real nu) {
  check_finite(law, "E (Young's modulus)", E);
  check_finite(law, "nu (Poisson's ratio)", nu);
  SOFTIK_CHECK(E > 0, law << ": Young's modulus E = " << E << " is out of range; it must be > 0");
  SOFTIK_CHECK(nu > -1 && nu < 0.5, law << ": Poisson's ratio nu = " << nu
                                        << " is out of range; valid range is -1 < nu < 0.5 (strictly below 0.5: "
                                           "the law is compressible; use e.g. nu = 0.49 for rubber)");
}

/// Validates Lame parameters: mu > 0 and bulk modulus lambda + 2 mu / 3 > 0.
inline void check_lame(const char* law, Real lambda, Real mu) {
  check_finite(law, "lambda (first Lame parameter)", lambda);
  check_finite(law, "mu (shear modulus)", mu);
  SOFTIK_CHECK(mu > 0, law << ": shear modulus mu = " << mu << " is out of range; it must be > 0");
  SOFTIK_CHECK(lambda + 2 * mu / 3 > 0, law << ": lambda = " << lambda << " with mu = " << mu
                                            << " gives a non-positive bulk modulus lambda + 2 mu / 3; it must be > 0 "
                                               "(lambda > -2 mu / 3)");
}

struct Lame {
  Real lambda;
  Real mu;
};

/// A modulus derived from (E, nu) must be a finite number > 0 (or any finite number for lambda):
/// E near the largest double (1e308), or nu just below 0.5, overflows it to infinity, or a bulk
/// modulus that overflows makes D1 = 2/K zero. Names the parameters given, not the derived one alone.
inline void check_derived(const char* law, Real E, Real nu, const char* name, Real v, bool positive) {
  SOFTIK_CHECK(std::isfinite(v) && (!positive || v > 0),
               law << ": Young's modulus E = " << E << " with Poisson's ratio nu = " << nu << " gives " << name << " = "
                   << v << ", which double precision cannot hold; give E in consistent units (soft robots: 1e4 to "
                   << "1e9 Pa) and nu further from 0.5");
}

inline Lame lame_from_young_poisson(const char* law, Real E, Real nu) {
  check_young_poisson(law, E, nu);
  const Lame l{E * nu / ((1 + nu) * (1 - 2 * nu)), E / (2 * (1 + nu))};
  check_derived(law, E, nu, "lambda (first Lame parameter)", l.lambda, false);
  check_derived(law, E, nu, "mu (shear modulus)", l.mu, true);
  return l;
}
}  // namespace detail

struct LinearElastic {
  Real lambda = 0;                                   ///< first Lame parameter
  Real mu = 0;                                       ///< shear modulus
  static constexpr bool tolerates_inversion = true;  ///< defined for any F (law_capabilities.hpp)
  static constexpr bool bulk_measure_linear = true;  ///< its bulk term sees m = 1 + tr(F - I)

  /// The bulk term U = lambda/2 (m - 1)^2 of the linearised volume measure m = 1 + tr(F - I).
  SOFTIK_HD VolumetricTerm bulk_term(Real m) const {
    const Real e = m - 1;
    return {0.5 * lambda * e * e, lambda * e, lambda};
  }

  /// The law for any scalar or lanes type T (fem/lane_ops.hpp), with eps = sym(F) - I:
  ///   P = 2 mu eps + lambda tr(eps) I,   psi = mu eps : eps + lambda/2 tr(eps)^2 (into *psi when given).
  template <class T, class MF, class MP>
  SOFTIK_HD_INLINE static void stress(const T& lambda, const T& mu, const MF& F, MP& P, T* psi = nullptr) {
    T eps[3][3];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) eps[i][j] = 0.5 * (F(i, j) + F(j, i)) - (i == j ? 1.0 : 0.0);
    const T tr = eps[0][0] + eps[1][1] + eps[2][2];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) P(i, j) = 2.0 * mu * eps[i][j];
    for (int i = 0; i < 3; ++i) P(i, i) = P(i, i) + lambda * tr;
    if (psi) {
      T ee = eps[0][0] * eps[0][0];
      for (int k = 1; k < 9; ++k) ee = ee + eps[k / 3][k % 3] * eps[k / 3][k % 3];
      *psi = mu * ee + 0.5 * lambda * tr * tr;
    }
  }

  SOFTIK_HD Real psi(const Mat3& F) const {
    Mat3 P;
    Real energy;
    stress(lambda, mu, F, P, &energy);
    return energy;
  }

  SOFTIK_HD Mat3 P(const Mat3& F) const {
    Mat3 P;
    stress(lambda, mu, F, P);
    return P;
  }

  SOFTIK_HD Mat9 dPdF(const Mat3& /*F*/) const { return elasticity_tensor(); }

  /// The constant tangent C(i+3j, k+3l) = mu (d_ik d_jl + d_il d_jk) + lambda d_ij d_kl.
  SOFTIK_HD Mat9 elasticity_tensor() const {
    Mat9 C = Mat9::Zero();
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 3; ++i) {
        C(flat(i, j), flat(i, j)) += mu;
        C(flat(i, j), flat(j, i)) += mu;
        C(flat(i, i), flat(j, j)) += lambda;
      }
    return C;
  }

  static LinearElastic from_lame(Real lambda, Real mu) {
    detail::check_lame("LinearElastic", lambda, mu);
    return LinearElastic{lambda, mu};
  }

  static LinearElastic from_young_poisson(Real E, Real nu) {
    const detail::Lame l = detail::lame_from_young_poisson("LinearElastic", E, nu);
    return LinearElastic{l.lambda, l.mu};
  }
};

}  // namespace softik::fem
