// Layered errors: SOFTIK_CHECK is always on and throws softik::Error
// with a message naming what went wrong and how to fix it; SOFTIK_ASSERT is debug-only.
// Device code never throws: kernels record a status flag that the host turns into an Error.
//
// An Error carries a kind; code that must react differently (the CLI's exit status, a load step
// cut after a numerical failure) branches on the kind, never on the message text. Messages name
// the user's file, line, key, element or node; the softik source location of the check is kept
// apart (Error::source()) for developers and never shown to users.
#pragma once

#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>

namespace softik {

/// What kind of failure an Error reports.
enum class ErrorKind {
  Input,        ///< bad input: scene, mesh, parameters, options, API arguments (the default)
  Numerical,    ///< a solve failed on valid input: no convergence, inverted state, unbounded or NaN result
  Io,           ///< a file could not be read or written (missing, unreadable, disk full)
  Unsupported,  ///< valid but not available in this build or on this machine (no CUDA, no GPU)
  Internal,     ///< a broken invariant inside softik: a bug to report
};

/// "input", "numerical", "io", "unsupported" or "internal".
inline const char* error_kind_name(ErrorKind kind) {
  constexpr const char* kNames[] = {"input", "numerical", "io", "unsupported", "internal"};  // in ErrorKind's order
  const int k = static_cast<int>(kind);
  return k >= 0 && k < int(std::size(kNames)) ? kNames[k] : "internal";
}

/// The one exception type softik throws. what() names the offending entity (file and line of the
/// user's input, key, element, node, parameter) and the fix; kind() says what kind of failure.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, ErrorKind kind = ErrorKind::Input, std::string source = {})
      : std::runtime_error(message), kind_(kind), source_(std::move(source)) {}
  ErrorKind kind() const noexcept { return kind_; }
  /// softik's own source file:line of the check that failed (for bug reports; empty if unknown).
  const std::string& source() const noexcept { return source_; }

 private:
  ErrorKind kind_;
  std::string source_;
};

namespace detail {
[[noreturn]] inline void throw_error(ErrorKind kind, const char* file, int line, const std::string& message) {
  throw Error(message, kind, std::string(file) + ":" + std::to_string(line));
}
}  // namespace detail

}  // namespace softik

/// Always-on check of the given kind. `msg` is a stream expression:
/// SOFTIK_CHECK_KIND(J > 0, ::softik::ErrorKind::Numerical, "element " << e << " is inverted").
#define SOFTIK_CHECK_KIND(cond, kind, msg)                                                 \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      std::ostringstream softik_check_stream_;                                             \
      softik_check_stream_ << msg;                                                         \
      ::softik::detail::throw_error(kind, __FILE__, __LINE__, softik_check_stream_.str()); \
    }                                                                                      \
  } while (0)

/// Always-on check of the input (ErrorKind::Input).
#define SOFTIK_CHECK(cond, msg) SOFTIK_CHECK_KIND(cond, ::softik::ErrorKind::Input, msg)
/// Always-on check of a numerical result (ErrorKind::Numerical).
#define SOFTIK_CHECK_NUMERICAL(cond, msg) SOFTIK_CHECK_KIND(cond, ::softik::ErrorKind::Numerical, msg)
/// Always-on check of a file operation (ErrorKind::Io).
#define SOFTIK_CHECK_IO(cond, msg) SOFTIK_CHECK_KIND(cond, ::softik::ErrorKind::Io, msg)

#ifndef NDEBUG
#define SOFTIK_ASSERT(cond, msg) \
  SOFTIK_CHECK_KIND(cond, ::softik::ErrorKind::Internal, "internal assertion failed: " << msg)
#else
#define SOFTIK_ASSERT(cond, msg) \
  do {                           \
  } while (0)
#endif
