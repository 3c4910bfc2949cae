// Mathematical constants of the tests (M_PI is POSIX, not C++17).
#pragma once

#include "softik/config.hpp"

namespace softik {

inline constexpr Real kPi = 3.14159265358979323846;

}  // namespace softik
