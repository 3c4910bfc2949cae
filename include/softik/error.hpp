// Layered errors (DESIGN.md section 7): SOFTIK_CHECK is always on and throws softik::Error
// with a message naming what went wrong and how to fix it; SOFTIK_ASSERT is debug-only.
// Device code never throws: kernels record a status flag that the host turns into an Error.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace softik {

/// The one exception type softik throws. what() names the file/line of the check, the
/// offending entity (element, node, parameter) and the fix.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

namespace detail {
[[noreturn]] inline void throw_error(const char* file, int line, const std::string& message) {
  std::ostringstream s;
  s << message << " [" << file << ":" << line << "]";
  throw Error(s.str());
}
}  // namespace detail

}  // namespace softik

/// Always-on check. `msg` is a stream expression: SOFTIK_CHECK(J > 0, "element " << e << " is inverted").
#define SOFTIK_CHECK(cond, msg)                                               \
  do {                                                                        \
    if (!(cond)) {                                                            \
      std::ostringstream softik_check_stream_;                                \
      softik_check_stream_ << msg;                                            \
      ::softik::detail::throw_error(__FILE__, __LINE__, softik_check_stream_.str()); \
    }                                                                         \
  } while (0)

#ifndef NDEBUG
#define SOFTIK_ASSERT(cond, msg) SOFTIK_CHECK(cond, "internal assertion failed: " << msg)
#else
#define SOFTIK_ASSERT(cond, msg) \
  do {                           \
  } while (0)
#endif
