// The scene runs' CSV tables (scene_run*.cpp): rows are composed in memory, checked, then written
// and flushed, so that no non-finite number reaches a file and a failed write is named.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace softik::io_detail {

/// A CSV file written a row at a time. Compose a row with `<<` (it is an ostringstream, so the
/// column helpers that take a std::ostream& and std::setprecision work), then end_row(). The
/// first row is the header: its names label the columns of the errors below.
class CsvWriter : public std::ostringstream {
 public:
  CsvWriter() = default;
  /// Creates (truncates) the file; an Error of kind Io when it cannot be written.
  void open(std::string path);

  /// Writes the composed row (it must end with '\n') and flushes the file. A field that reads
  /// nan, -nan, inf or -inf is refused before anything of the row is written: an Error of kind
  /// Numerical naming the file, `row_label` (e.g. "step 12"), the column and the value (the rows
  /// before are in the file). A failed write is an Error of kind Io.
  void end_row(const std::string& row_label);

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::ofstream file_;
  std::vector<std::string> columns_;  ///< the header's names (empty until it is written)
};

/// The index of the first field of a CSV row (no quoting: softik's tables have none) that a
/// C++ stream wrote for a NaN or an infinity, or -1.
int first_non_finite_field(const std::string& row);

}  // namespace softik::io_detail
