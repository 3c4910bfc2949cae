// Lanes<W>: W doubles in one SIMD register (GCC/Clang vector extension), the scalar type with
// which the templated element math of include/softik/fem/ (lane_ops.hpp) computes W cells at
// once: every arithmetic operation acts lane by lane, a comparison gives a LaneMask<W>, and
// lane_select / lanes_any / lanes_all / lanes_and / lanes_or / sqrt are found here by
// argument-dependent lookup. Host only: the device runs one cell per thread.
#pragma once

#include <cmath>
#include <cstdint>
#include <utility>

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
  Bits m;  ///< all ones where the mask holds, zero elsewhere
  bool operator[](int l) const { return m[l] != 0; }
  LaneMask operator!() const { return {~m}; }
};

template <int W>
struct Lanes {
  using Vec = typename detail::LaneTypes<W>::Vec;
  Vec v;

  Lanes() = default;
  Lanes(double a) {  // NOLINT(google-explicit-constructor): a constant in every lane
    for (int l = 0; l < W; ++l) v[l] = a;
  }
  static Lanes of(Vec x) {
    Lanes r;
    r.v = x;
    return r;
  }
  /// Lane l = f(l), built in registers: writing lanes one by one into memory and then reading the
  /// vector stalls store-to-load forwarding at every value of a gather.
  template <class F>
  static Lanes from(F&& f) {
    return from(f, std::make_integer_sequence<int, W>());
  }
  template <class F, int... l>
  static Lanes from(F&& f, std::integer_sequence<int, l...>) {
    return of(Vec{f(l)...});
  }
  double operator[](int l) const { return v[l]; }
  void set(int l, double a) { v[l] = a; }
};

template <int W>
inline Lanes<W> operator+(const Lanes<W>& a, const Lanes<W>& b) { return Lanes<W>::of(a.v + b.v); }
template <int W>
inline Lanes<W> operator-(const Lanes<W>& a, const Lanes<W>& b) { return Lanes<W>::of(a.v - b.v); }
template <int W>
inline Lanes<W> operator*(const Lanes<W>& a, const Lanes<W>& b) { return Lanes<W>::of(a.v * b.v); }
template <int W>
inline Lanes<W> operator/(const Lanes<W>& a, const Lanes<W>& b) { return Lanes<W>::of(a.v / b.v); }
template <int W>
inline Lanes<W> operator-(const Lanes<W>& a) { return Lanes<W>::of(-a.v); }
template <int W>
inline Lanes<W> operator+(const Lanes<W>& a, double b) { return a + Lanes<W>(b); }
template <int W>
inline Lanes<W> operator-(const Lanes<W>& a, double b) { return a - Lanes<W>(b); }
template <int W>
inline Lanes<W> operator*(double a, const Lanes<W>& b) { return Lanes<W>(a) * b; }
template <int W>
inline Lanes<W> operator/(double a, const Lanes<W>& b) { return Lanes<W>(a) / b; }

template <int W>
inline LaneMask<W> operator>(const Lanes<W>& a, const Lanes<W>& b) { return {a.v > b.v}; }
template <int W>
inline LaneMask<W> operator<=(const Lanes<W>& a, const Lanes<W>& b) { return {a.v <= b.v}; }
template <int W>
inline LaneMask<W> operator<=(const Lanes<W>& a, double b) { return a <= Lanes<W>(b); }
template <int W>
inline LaneMask<W> operator==(const Lanes<W>& a, const Lanes<W>& b) { return {a.v == b.v}; }

template <int W>
inline Lanes<W> lane_select(const LaneMask<W>& m, const Lanes<W>& a, const Lanes<W>& b) {
  using Bits = typename LaneMask<W>::Bits;
  using Vec = typename Lanes<W>::Vec;
  return Lanes<W>::of(reinterpret_cast<Vec>((reinterpret_cast<Bits>(a.v) & m.m) | (reinterpret_cast<Bits>(b.v) & ~m.m)));
}
template <int W>
inline bool lanes_any(const LaneMask<W>& m) {
  bool any = false;
  for (int l = 0; l < W; ++l) any = any || m[l];
  return any;
}
template <int W>
inline bool lanes_all(const LaneMask<W>& m) {
  bool all = true;
  for (int l = 0; l < W; ++l) all = all && m[l];
  return all;
}
template <int W>
inline LaneMask<W> lanes_and(const LaneMask<W>& a, const LaneMask<W>& b) { return {a.m & b.m}; }
template <int W>
inline LaneMask<W> lanes_or(const LaneMask<W>& a, const LaneMask<W>& b) { return {a.m | b.m}; }
template <int W>
inline Lanes<W> sqrt(const Lanes<W>& a) {
  Lanes<W> r;
  for (int l = 0; l < W; ++l) r.v[l] = std::sqrt(a.v[l]);
  return r;
}

}  // namespace softik::assembly
