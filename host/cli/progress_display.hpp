// How the softik program shows a run's progress on stderr (--progress, docs/cli.md): the
// ProgressEvents of run_scene and run_batch (softik/progress.hpp) drawn as one line rewritten in
// place on a terminal, or as plain lines, throttled, for logs.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <string>

#include <sys/ioctl.h>
#include <unistd.h>

#include "softik/progress.hpp"

namespace softik::cli {

/// --progress: auto (bar on a terminal, else lines), bar, lines or none.
enum class ProgressMode { Auto, Bar, Lines, None };

/// The values of --progress, as the error message lists them.
constexpr const char* kProgressModes = "auto, bar, lines or none";

/// "auto", "bar", "lines", "none" -> `mode`; false (mode untouched) for anything else.
inline bool parse_progress_mode(const std::string& text, ProgressMode& mode) {
  if (text == "auto")
    mode = ProgressMode::Auto;
  else if (text == "bar")
    mode = ProgressMode::Bar;
  else if (text == "lines")
    mode = ProgressMode::Lines;
  else if (text == "none")
    mode = ProgressMode::None;
  else
    return false;
  return true;
}

/// Auto resolved for stderr: Bar when it is a terminal (and TERM is not "dumb"), else Lines.
inline ProgressMode resolve_progress_mode(ProgressMode mode) {
  if (mode != ProgressMode::Auto) return mode;
  const char* term = std::getenv("TERM");
  const bool dumb = term && std::strcmp(term, "dumb") == 0;
  return isatty(STDERR_FILENO) && !dumb ? ProgressMode::Bar : ProgressMode::Lines;
}

/// The columns of the terminal on stderr less one (so that the bar never wraps), or 79 when it
/// cannot be told (not a terminal).
inline size_t terminal_width() {
  winsize size{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 1) return static_cast<size_t>(size.ws_col) - 1;
  return 79;
}

/// A duration for people: "4.1 s" below a minute, "3 min 05 s" below an hour, else "2 h 07 min".
inline std::string format_duration(double seconds) {
  char text[32];
  if (!(seconds >= 0)) seconds = 0;
  if (seconds < 59.95) {
    std::snprintf(text, sizeof text, "%.1f s", seconds);
  } else if (seconds < 3599.5) {
    const long s = std::lround(seconds);
    std::snprintf(text, sizeof text, "%ld min %02ld s", s / 60, s % 60);
  } else {
    const long m = std::lround(seconds / 60);
    std::snprintf(text, sizeof text, "%ld h %02ld min", m / 60, m % 60);
  }
  return text;
}

/// One event as text: "time step 37/200  elapsed 4.1 s  ETA 18.0 s  t = 0.037, 3 Newton iterations"
/// (the ETA "?" while unknown; the label last, when there is one).
inline std::string progress_text(const ProgressEvent& e) {
  std::string text = e.what + " " + std::to_string(e.k) + "/" + std::to_string(e.total) + "  elapsed " +
                     format_duration(e.elapsed) + "  ETA " + (e.eta < 0 ? std::string("?") : format_duration(e.eta));
  if (!e.label.empty()) text += "  " + e.label;
  return text;
}

/// Draws ProgressEvents on a stream, in one of two styles:
/// - Bar: one line rewritten in place ('\r', padded with spaces over a longer previous text, cut
///   to `width` characters so that it never wraps), redrawn at most every 0.1 s of the events'
///   elapsed time (the first and the last event always); the last event, or finish(), ends it
///   with a newline.
/// - Lines: "softik: <text>\n" per event, at most one per second of the events' elapsed time,
///   plus the first and the last event, so that a log of a 100,000-step run stays readable.
/// The throttle reads the events' own `elapsed`, not a clock, so what is drawn depends on the
/// events alone.
class ProgressDisplay {
 public:
  static constexpr double kBarInterval = 0.1;   ///< seconds between redraws of the bar
  static constexpr double kLineInterval = 1.0;  ///< seconds between two plain lines
  static constexpr size_t kBarWidth = 79;       ///< characters of the bar line at most, by default

  /// `mode`: Bar or Lines (None draws nothing; Auto is resolved by the caller); `width`: the
  /// bar's characters at most (terminal_width() for stderr).
  ProgressDisplay(std::ostream& out, ProgressMode mode, size_t width = kBarWidth)
      : out_(out), mode_(mode), width_(std::max<size_t>(width, 20)) {}
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;
  ~ProgressDisplay() { finish(); }

  /// Whether it draws anything (Bar or Lines): give the run its callback only then.
  bool active() const { return mode_ == ProgressMode::Bar || mode_ == ProgressMode::Lines; }

  void operator()(const ProgressEvent& e) {
    if (!active()) return;
    const double interval = mode_ == ProgressMode::Bar ? kBarInterval : kLineInterval;
    if (drawn_ && !e.last && e.elapsed - last_drawn_ < interval) return;
    drawn_ = true;
    last_drawn_ = e.elapsed;
    if (mode_ == ProgressMode::Lines) {
      out_ << "softik: " << progress_text(e) << "\n";
      out_.flush();
      return;
    }
    std::string text = progress_text(e);
    if (text.size() > width_) text.resize(width_);
    const size_t width = text.size();
    if (width < bar_width_) text.append(bar_width_ - width, ' ');
    out_ << '\r' << text;
    bar_width_ = width;
    bar_open_ = true;
    if (e.last) finish();
    out_.flush();
  }

  /// Ends an open bar line with a newline (before anything else is printed on the stream).
  void finish() {
    if (!bar_open_) return;
    out_ << "\n";
    out_.flush();
    bar_open_ = false;
    bar_width_ = 0;
  }

  /// This display as a ProgressCallback (it must outlive the run it is given to).
  ProgressCallback callback() {
    return [this](const ProgressEvent& e) { (*this)(e); };
  }

 private:
  std::ostream& out_;
  ProgressMode mode_;
  size_t width_;
  bool drawn_ = false;     ///< an event was drawn (the first always is)
  double last_drawn_ = 0;  ///< its elapsed time
  bool bar_open_ = false;  ///< a bar line without its newline yet
  size_t bar_width_ = 0;   ///< the characters of the bar line shown
};

}  // namespace softik::cli
