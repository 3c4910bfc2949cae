// The CSV of batch results tables (batch_csv.hpp).
#include "host/batch/batch_csv.hpp"

#include <cstdlib>
#include <sstream>

#include "softik/error.hpp"

namespace softik::batch_detail {

std::string format_number(double v) {
  std::ostringstream s;
  s.precision(10);
  s << v;
  return s.str();
}

std::optional<double> parse_number(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end == text.c_str() || *end != '\0') return std::nullopt;
  return v;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char ch : text) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

std::vector<std::vector<std::string>> read_csv(const std::string& text, const std::string& path) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false, in_quotes = false;
  int line = 1, record_line = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_quotes) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        in_quotes = false;
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    if (c == '"') {
      SOFTIK_CHECK(field.empty() && !quoted, path << ":" << line << ": a '\"' inside an unquoted field");
      in_quotes = quoted = true;
    } else if (c == ',') {
      record.push_back(field);
      field.clear();
      quoted = false;
    } else if (c == '\n') {
      record.push_back(field);
      records.push_back(record);
      record.clear();
      field.clear();
      quoted = false;
      record_line = ++line;
    } else {
      SOFTIK_CHECK(!quoted, path << ":" << line << ": text after a closing '\"'");
      if (c != '\r') field += c;
    }
  }
  SOFTIK_CHECK(!in_quotes, path << ":" << record_line << ": a quoted field is not closed (the file is cut short)");
  if (!field.empty() || !record.empty()) {
    record.push_back(field);
    records.push_back(record);
  }
  return records;
}

}  // namespace softik::batch_detail
