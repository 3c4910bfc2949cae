// Space-filling samples of a design box for `sample:` in batch files (docs/batch-format.md).
//
// Points are in the unit cube [0, 1)^d, row by row (point i, dimension j at i * d + j); the batch
// reader maps each dimension onto its [lo, hi] range. Both generators are deterministic and
// portable: the same (n, d, seed) gives the same points on every machine and compiler (their
// random numbers come from std::mt19937_64, whose output the C++ standard fixes, and are turned
// into reals and indices here, not by the library's implementation-defined distributions).
//
//   latin_hypercube(n, d, seed)  McKay, Beckman & Conover (1979): in every dimension each of the
//                                n strata [k/n, (k+1)/n) holds exactly one point, at a uniform
//                                random place in it; the strata are paired across dimensions by
//                                independent random permutations.
//   sobol(n, d, seed)            the Sobol' sequence (Sobol' 1967; Bratley & Fox 1988) from its
//                                first point (0, ..., 0), in Gray-code order, with the direction
//                                numbers of Joe & Kuo (2008) for up to kSobolMaxDimensions
//                                dimensions, each coordinate XOR-ed with a random 32-bit shift per
//                                dimension drawn from `seed` (a digital shift: it keeps every
//                                stratification of the sequence; seed 0 is the plain sequence).
//                                For n = 2^k the points are a (t, k, d)-net: in every dimension each
//                                of the n strata holds exactly one point, and the first two
//                                dimensions together form a (0, k, 2)-net.
#pragma once

#include <cstdint>
#include <vector>

namespace softik::batch_detail {

/// Dimensions sobol() supports (the direction numbers it carries).
constexpr int kSobolMaxDimensions = 10;

std::vector<double> latin_hypercube(int n, int d, std::uint64_t seed);
std::vector<double> sobol(int n, int d, std::uint64_t seed);

}  // namespace softik::batch_detail
