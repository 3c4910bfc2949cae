// Lanes<W>: W doubles worked on as one SIMD register (GCC/Clang vector extension), the scalar
// type with which the templated element math of include/softik/fem/ (lane_ops.hpp) computes W
// cells at once: every arithmetic operation acts lane by lane, a comparison gives a LaneMask<W>,
// and lane_select / lanes_any / lanes_all / lanes_and / lanes_or / sqrt / log / pow are found here by
// argument-dependent lookup. Host only: the device runs one cell per thread.
//
// Every operation is always inlined, so that the AVX2 batch (cell_batch.hpp), built with AVX2
// enabled in that one function, never calls one of them built for the baseline: a 32-byte vector
// is passed in a ymm register by code built for AVX and in memory by code that is not (g++'s and
// clang's -Wpsabi, silenced here for that reason). LaneMask, which fem::polar_rotation_newton
// returns and which may stay out of line, stores a plain array, passed the same way by both.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>

#define SOFTIK_LANE_INLINE inline __attribute__((always_inline))

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

namespace softik::assembly {

namespace detail {
/// The vector types of W lanes (a vector_size that depends on a template parameter is not
/// accepted by g++, hence one specialisation per width).
template <int W>
struct LaneTypes;
template <>
struct LaneTypes<2> {
  typedef double Vec __attribute__((vector_size(16)));
  typedef std::int64_t Bits __attribute__((vector_size(16)));
};
template <>
struct LaneTypes<4> {
  typedef double Vec __attribute__((vector_size(32)));
  typedef std::int64_t Bits __attribute__((vector_size(32)));
};
}  // namespace detail

template <int W>
struct LaneMask {
  using Bits = typename detail::LaneTypes<W>::Bits;
  alignas(sizeof(Bits)) std::int64_t m[W];  ///< all ones where the mask holds, zero elsewhere

  SOFTIK_LANE_INLINE Bits bits() const {
    Bits b;
    std::memcpy(&b, m, sizeof b);
    return b;
  }
  static SOFTIK_LANE_INLINE LaneMask of(Bits b) {
    LaneMask r;
    std::memcpy(r.m, &b, sizeof b);
    return r;
  }
  SOFTIK_LANE_INLINE bool operator[](int l) const { return m[l] != 0; }
  SOFTIK_LANE_INLINE LaneMask operator!() const { return of(~bits()); }
};

template <int W>
struct Lanes {
  using Vec = typename detail::LaneTypes<W>::Vec;
  Vec v;

  Lanes() = default;
  SOFTIK_LANE_INLINE Lanes(double c) {  // NOLINT(google-explicit-constructor): a constant in every lane
    for (int l = 0; l < W; ++l) v[l] = c;
  }
  SOFTIK_LANE_INLINE Vec vec() const { return v; }
  static SOFTIK_LANE_INLINE Lanes of(Vec x) {
    Lanes r;
    r.v = x;
    return r;
  }
  /// Lane l = f(l), built in registers: writing lanes one by one into memory and then reading the
  /// vector stalls store-to-load forwarding at every value of a gather.
  template <class F>
  static SOFTIK_LANE_INLINE Lanes from(F&& f) {
    return from(f, std::make_integer_sequence<int, W>());
  }
  template <class F, int... l>
  static SOFTIK_LANE_INLINE Lanes from(F&& f, std::integer_sequence<int, l...>) {
    return of(Vec{f(l)...});
  }
  SOFTIK_LANE_INLINE double operator[](int l) const { return v[l]; }
  SOFTIK_LANE_INLINE void set(int l, double c) { v[l] = c; }
};

template <int W>
SOFTIK_LANE_INLINE Lanes<W> operator+(const Lanes<W>& a, const Lanes<W>& b) {
  return Lanes<W>::of(a.vec() + b.vec());
}
template <int W>
SOFTIK_LANE_INLINE Lanes<W> operator-(const Lanes<W>& a, const Lanes<W>& b) {
  return Lanes<W>::of(a.vec() - b.vec());
}
template <int W>
SOFTIK_LANE_INLINE Lanes<W> operator*(const Lanes<W>& a, const Lanes<W>& b) {
  return Lanes<W>::of(a.vec() * b.vec());
}
template <int W>
SOFTIK_LANE_INLINE Lanes<W> operator/(const Lanes<W>& a, const Lanes<W>& b) {
  return Lanes<W>::of(a.vec() / b.vec());
}
template <int W>
SOFTIK_LANE_INLINE Lanes<W> operator-(const Lanes<W>& a) {
  return Lanes<W>::of(-a.vec());
}
template <int W>
SOFTIK_LANE_INLINE Lanes<W> operator-(const Lanes<W>& a, double b) {
  return a - Lanes<W>(b);
}
template <int W>
SOFTIK_LANE_INLINE Lanes<W> operator-(double a, const Lanes<W>& b) {
  return Lanes<W>(a) - b;
}
template <int W>
SOFTIK_LANE_INLINE Lanes<W> operator*(double a, const Lanes<W>& b) {
  return Lanes<W>(a) * b;
}
template <int W>
SOFTIK_LANE_INLINE Lanes<W> operator/(double a, const Lanes<W>& b) {
  return Lanes<W>(a) / b;
}

template <int W>
SOFTIK_LANE_INLINE LaneMask<W> operator>(const Lanes<W>& a, const Lanes<W>& b) {
  return LaneMask<W>::of(a.vec() > b.vec());
}
template <int W>
SOFTIK_LANE_INLINE LaneMask<W> operator<=(const Lanes<W>& a, const Lanes<W>& b) {
  return LaneMask<W>::of(a.vec() <= b.vec());
}
template <int W>
SOFTIK_LANE_INLINE LaneMask<W> operator<=(const Lanes<W>& a, double b) {
  return a <= Lanes<W>(b);
}

template <int W>
SOFTIK_LANE_INLINE Lanes<W> lane_select(const LaneMask<W>& m, const Lanes<W>& a, const Lanes<W>& b) {
  using Bits = typename LaneMask<W>::Bits;
  using Vec = typename Lanes<W>::Vec;
  const Bits mask = m.bits();
  return Lanes<W>::of(
      reinterpret_cast<Vec>((reinterpret_cast<Bits>(a.vec()) & mask) | (reinterpret_cast<Bits>(b.vec()) & ~mask)));
}
template <int W>
SOFTIK_LANE_INLINE bool lanes_any(const LaneMask<W>& m) {
  bool any = false;
  for (int l = 0; l < W; ++l) any = any || m[l];
  return any;
}
template <int W>
SOFTIK_LANE_INLINE bool lanes_all(const LaneMask<W>& m) {
  bool all = true;
  for (int l = 0; l < W; ++l) all = all && m[l];
  return all;
}
template <int W>
SOFTIK_LANE_INLINE LaneMask<W> lanes_and(const LaneMask<W>& a, const LaneMask<W>& b) {
  return LaneMask<W>::of(a.bits() & b.bits());
}
template <int W>
SOFTIK_LANE_INLINE LaneMask<W> lanes_or(const LaneMask<W>& a, const LaneMask<W>& b) {
  return LaneMask<W>::of(a.bits() | b.bits());
}
template <int W>
SOFTIK_LANE_INLINE Lanes<W> sqrt(const Lanes<W>& a) {
  Lanes<W> r;
  for (int l = 0; l < W; ++l) r.v[l] = std::sqrt(a.v[l]);
  return r;
}
template <int W>
SOFTIK_LANE_INLINE Lanes<W> log(const Lanes<W>& a) {
  Lanes<W> r;
  for (int l = 0; l < W; ++l) r.v[l] = std::log(a.v[l]);
  return r;
}
template <int W>
SOFTIK_LANE_INLINE Lanes<W> pow(const Lanes<W>& a, double e) {
  Lanes<W> r;
  for (int l = 0; l < W; ++l) r.v[l] = std::pow(a.v[l], e);
  return r;
}

}  // namespace softik::assembly

#pragma GCC diagnostic pop
