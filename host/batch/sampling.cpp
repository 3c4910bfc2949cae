// Latin hypercube and Sobol' samples of the unit cube (sampling.hpp).
#include "host/batch/sampling.hpp"

#include <cstddef>
#include <numeric>
#include <random>

#include "softik/error.hpp"

namespace softik::batch_detail {
namespace {

/// A real in [0, 1) from the top 53 bits of one draw (the same on every platform).
double unit_real(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

void check_size(int n, int d, const char* what) {
  SOFTIK_CHECK(n >= 1 && d >= 1,
               what << ": needs at least one point and one dimension, got n = " << n << ", d = " << d);
}

/// Primitive polynomial of dimension j >= 2 (1-based, Joe & Kuo's numbering) and its initial
/// direction numbers: degree s, the inner coefficients a (bit s-2 .. bit 0 are a_1 .. a_{s-1} of
/// x^s + a_1 x^(s-1) + ... + a_{s-1} x + 1), and m_1 .. m_s (odd, m_k < 2^k).
struct SobolDimension {
  int s;
  unsigned a;
  unsigned m[5];
};
constexpr SobolDimension kSobolTable[kSobolMaxDimensions - 1] = {
    {1, 0, {1}},                // 2: x + 1
    {2, 1, {1, 3}},             // 3: x^2 + x + 1
    {3, 1, {1, 3, 1}},          // 4: x^3 + x + 1
    {3, 2, {1, 1, 1}},          // 5: x^3 + x^2 + 1
    {4, 1, {1, 1, 3, 3}},       // 6: x^4 + x + 1
    {4, 4, {1, 3, 5, 13}},      // 7: x^4 + x^3 + 1
    {5, 2, {1, 1, 5, 5, 17}},   // 8: x^5 + x^2 + 1
    {5, 4, {1, 1, 5, 5, 5}},    // 9: x^5 + x^3 + 1
    {5, 7, {1, 1, 7, 11, 19}},  // 10: x^5 + x^3 + x^2 + x + 1
};

constexpr int kBits = 32;

/// Direction numbers V_k = v_k 2^32 (k = 0 .. 31) of dimension j (0-based): for j = 0 the van der
/// Corput sequence (m_k = 1); else the recurrence of Bratley & Fox (1988)
///   v_k = a_1 v_{k-1} ^ ... ^ a_{s-1} v_{k-s+1} ^ v_{k-s} ^ (v_{k-s} >> s).
std::vector<std::uint32_t> direction_numbers(int j) {
  std::vector<std::uint32_t> V(kBits);
  if (j == 0) {
    for (int k = 0; k < kBits; ++k) V[static_cast<size_t>(k)] = 1u << (kBits - 1 - k);
    return V;
  }
  const SobolDimension& p = kSobolTable[j - 1];
  for (int k = 0; k < kBits; ++k) {
    if (k < p.s) {
      V[static_cast<size_t>(k)] = p.m[k] << (kBits - 1 - k);
      continue;
    }
    std::uint32_t v = V[static_cast<size_t>(k - p.s)] ^ (V[static_cast<size_t>(k - p.s)] >> p.s);
    for (int i = 1; i < p.s; ++i)
      if ((p.a >> (p.s - 1 - i)) & 1u) v ^= V[static_cast<size_t>(k - i)];
    V[static_cast<size_t>(k)] = v;
  }
  return V;
}

}  // namespace

std::vector<double> latin_hypercube(int n, int d, std::uint64_t seed) {
  check_size(n, d, "latin_hypercube");
  std::mt19937_64 rng(seed);
  std::vector<double> x(static_cast<size_t>(n) * static_cast<size_t>(d));
  std::vector<int> stratum(static_cast<size_t>(n));
  for (int j = 0; j < d; ++j) {
    std::iota(stratum.begin(), stratum.end(), 0);
    for (int i = n - 1; i > 0; --i) {  // Fisher-Yates
      const int k = static_cast<int>(rng() % static_cast<std::uint64_t>(i + 1));
      std::swap(stratum[static_cast<size_t>(i)], stratum[static_cast<size_t>(k)]);
    }
    for (int i = 0; i < n; ++i)
      x[static_cast<size_t>(i) * static_cast<size_t>(d) + static_cast<size_t>(j)] =
          (stratum[static_cast<size_t>(i)] + unit_real(rng)) / n;
  }
  return x;
}

std::vector<double> sobol(int n, int d, std::uint64_t seed) {
  check_size(n, d, "sobol");
  SOFTIK_CHECK(d <= kSobolMaxDimensions, "sobol: " << d << " dimensions asked for; softik's Sobol' sequence has "
                                                   << kSobolMaxDimensions
                                                   << " (use method: latin_hypercube for more parameters)");
  std::mt19937_64 rng(seed);
  std::vector<std::vector<std::uint32_t>> V;
  std::vector<std::uint32_t> shift(static_cast<size_t>(d), 0), X(static_cast<size_t>(d), 0);
  for (int j = 0; j < d; ++j) {
    V.push_back(direction_numbers(j));
    if (seed != 0) shift[static_cast<size_t>(j)] = static_cast<std::uint32_t>(rng() >> 32);
  }
  std::vector<double> x(static_cast<size_t>(n) * static_cast<size_t>(d));
  for (int i = 0; i < n; ++i) {
    if (i > 0) {  // Gray code: flip the direction number of the lowest zero bit of i - 1
      int c = 0;
      for (unsigned b = static_cast<unsigned>(i - 1); b & 1u; b >>= 1) ++c;
      for (int j = 0; j < d; ++j) X[static_cast<size_t>(j)] ^= V[static_cast<size_t>(j)][static_cast<size_t>(c)];
    }
    for (int j = 0; j < d; ++j)
      x[static_cast<size_t>(i) * static_cast<size_t>(d) + static_cast<size_t>(j)] =
          static_cast<double>(X[static_cast<size_t>(j)] ^ shift[static_cast<size_t>(j)]) * 0x1.0p-32;
  }
  return x;
}

}  // namespace softik::batch_detail
