// The CSV of batch results tables (RFC 4180, as write_batch_csv writes them and
// merge_batch_shards reads them back): fields separated by ',', a field holding ',', '"' or a
// line break in double quotes with '"' doubled.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace softik::batch_detail {

/// A number as the tables write it: 10 significant digits (the CSV's values and the sampled
/// designs' override values).
std::string format_number(double v);

/// A table field (or an override's YAML text) read as a number: the whole text must be one
/// (strtod's syntax); nullopt otherwise. Non-finite values ("inf", "nan") are returned as such.
std::optional<double> parse_number(const std::string& text);

/// `text` as one CSV field (quoted only when it must be).
std::string csv_field(const std::string& text);

/// The records of a CSV text; throws softik::Error naming `path` and the line of a malformed
/// record (a quote inside an unquoted field, text after a closing quote, an unclosed quote).
std::vector<std::vector<std::string>> read_csv(const std::string& text, const std::string& path);

}  // namespace softik::batch_detail
