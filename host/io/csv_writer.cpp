// The scene runs' CSV tables: a row is checked for non-finite fields before it is written.
#include "host/io/csv_writer.hpp"

#include <cerrno>
#include <cstring>
#include <utility>

#include "softik/error.hpp"

namespace softik::io_detail {

namespace {

std::vector<std::string> fields(const std::string& row) {
  std::vector<std::string> out(1);
  for (const char c : row) {
    if (c == '\n' || c == '\r') continue;
    if (c == ',')
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

}  // namespace

int first_non_finite_field(const std::string& row) {
  const std::vector<std::string> f = fields(row);
  for (size_t i = 0; i < f.size(); ++i) {
    // What operator<< writes for a double that is not finite (libstdc++: nan, -nan, inf, -inf).
    const std::string& s = f[i];
    const size_t start = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
    const std::string body = s.substr(start);
    if (body == "nan" || body == "inf" || body == "NaN" || body == "Inf" || body == "NAN" || body == "INF" ||
        body.rfind("nan(", 0) == 0)
      return static_cast<int>(i);
  }
  return -1;
}

void CsvWriter::open(std::string path) {
  path_ = std::move(path);
  columns_.clear();
  str(std::string());
  file_.open(path_);
  SOFTIK_CHECK_IO(file_, "cannot write '" << path_ << "' (" << std::strerror(errno)
                                          << "); check that the --out folder is writable");
}

void CsvWriter::end_row(const std::string& row_label) {
  const std::string row = str();
  str(std::string());
  if (columns_.empty()) {
    columns_ = fields(row);
  } else {
    const int bad = first_non_finite_field(row);
    if (bad >= 0) {
      const std::vector<std::string> f = fields(row);
      const size_t i = static_cast<size_t>(bad);
      SOFTIK_CHECK_NUMERICAL(false, "'" << path_ << "': " << row_label << ": column '"
                                        << (i < columns_.size() ? columns_[i] : "#" + std::to_string(i + 1)) << "' is "
                                        << f[i]
                                        << ", not a number: the row is not written (the rows before are in the "
                                           "file). The state or the solve of that row failed; see the run's other "
                                           "messages, and try smaller load or time steps");
    }
  }
  file_ << row;
  file_.flush();
  SOFTIK_CHECK_IO(file_, "writing '" << path_ << "' failed (" << std::strerror(errno)
                                     << "): is the disk full? The rows before are in the file");
}

}  // namespace softik::io_detail
