// Sweeps split across machines (batch.hpp: batch_shard, batch_shard_csv_path,
// merge_batch_shards): shard i of n takes designs k with k % n == i; each shard's run writes its
// own table; the merge reads them back (RFC 4180 CSV, as write_batch_csv writes it) and writes
// the table one run of the whole batch would have written.
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "host/batch/batch_csv.hpp"
#include "host/io/atomic_file.hpp"
#include "host/scene/parse/scene_yaml.hpp"
#include "softik/batch.hpp"
#include "softik/error.hpp"

namespace softik {
namespace {

void check_shard(int shard, int shards) {
  SOFTIK_CHECK(shards >= 1 && shard >= 0 && shard < shards,
               "shard " << shard << " of " << shards << ": expected 0 <= i < n (e.g. --shard 0/4 ... --shard 3/4)");
}

using Record = std::vector<std::string>;
using batch_detail::csv_field;
using batch_detail::read_csv;

}  // namespace

BatchSpec batch_shard(const BatchSpec& spec, int shard, int shards) {
  check_shard(shard, shards);
  BatchSpec part = spec;
  part.designs.clear();
  for (size_t k = static_cast<size_t>(shard); k < spec.designs.size(); k += static_cast<size_t>(shards))
    part.designs.push_back(spec.designs[k]);
  return part;
}

std::string batch_csv_path(const std::string& dir, const BatchSpec& spec) {
  return dir + "/" + scene_detail::stem(spec.path) + ".csv";
}

std::string batch_shard_csv_path(const std::string& dir, const BatchSpec& spec, int shard, int shards) {
  check_shard(shard, shards);
  return dir + "/" + scene_detail::stem(spec.path) + ".shard-" + std::to_string(shard) + "-of-" +
         std::to_string(shards) + ".csv";
}

BatchMergeResult merge_batch_shards(const BatchSpec& spec, const std::string& dir, int shards,
                                    const std::string& path) {
  check_shard(0, shards);
  std::map<std::string, size_t> design_index;
  for (size_t k = 0; k < spec.designs.size(); ++k) design_index[spec.designs[k].name] = k;
  // Each design's row as (column -> value), and the column order of its table.
  std::vector<std::map<std::string, std::string>> rows(spec.designs.size());
  std::vector<const Record*> header_of(spec.designs.size(), nullptr);
  std::vector<int> seen_in(spec.designs.size(), -1);
  std::vector<std::vector<Record>> tables(static_cast<size_t>(shards));
  for (int s = 0; s < shards; ++s) {
    const std::string file = batch_shard_csv_path(dir, spec, s, shards);
    std::ifstream in(file, std::ios::binary);
    SOFTIK_CHECK_IO(in, "cannot read the table of shard " << s << " of " << shards << ", '" << file
                                                          << "': run softik batch ... --shard " << s << "/" << shards
                                                          << " first");
    std::ostringstream text;
    text << in.rdbuf();
    std::vector<Record>& table = tables[static_cast<size_t>(s)];
    table = read_csv(text.str(), file);
    SOFTIK_CHECK(!table.empty() && table[0].size() >= 3 && table[0][0] == "design",
                 file << ": not a batch table (its first line must start with design,status,error)");
    for (size_t r = 1; r < table.size(); ++r) {
      const Record& row = table[r];
      SOFTIK_CHECK(row.size() == table[0].size(),
                   file << ": row " << r + 1 << " has " << row.size() << " fields, the header " << table[0].size());
      const auto it = design_index.find(row[0]);
      SOFTIK_CHECK(it != design_index.end(), file << ": row " << r + 1 << " is design '" << row[0]
                                                  << "', which the batch file has not (a table of another batch?)");
      const size_t k = it->second;
      SOFTIK_CHECK(static_cast<int>(k % static_cast<size_t>(shards)) == s,
                   file << ": design '" << row[0] << "' belongs to shard " << k % static_cast<size_t>(shards) << " of "
                        << shards << ", not " << s << " (tables of a different split?)");
      SOFTIK_CHECK(seen_in[k] < 0, file << ": design '" << row[0] << "' has two rows");
      seen_in[k] = s;
      for (size_t c = 0; c < row.size(); ++c) rows[k][table[0][c]] = row[c];
      header_of[k] = &table[0];
    }
  }
  std::string missing;
  size_t missing_count = 0;
  for (size_t k = 0; k < spec.designs.size(); ++k)
    if (seen_in[k] < 0 && ++missing_count <= 10)
      missing += (missing.empty() ? "" : ", ") + spec.designs[k].name + " (shard " +
                 std::to_string(k % static_cast<size_t>(shards)) + ")";
  SOFTIK_CHECK(missing_count == 0, "merge: " << missing_count << " of " << spec.designs.size()
                                             << " designs have no row in the shard tables: " << missing
                                             << (missing_count > 10 ? ", ..." : "")
                                             << "; rerun those shards (softik batch ... --shard i/" << shards << ")");
  // Columns in first-seen order over the designs in the batch's order, as one run writes them.
  std::vector<std::string> columns;
  std::map<std::string, bool> known;
  for (size_t k = 0; k < spec.designs.size(); ++k)
    for (size_t c = 3; c < header_of[k]->size(); ++c) {
      const std::string& name = (*header_of[k])[c];
      if (!rows[k][name].empty() && !known[name]) {
        known[name] = true;
        columns.push_back(name);
      }
    }
  std::ostringstream out;
  out << "design,status,error";
  for (const std::string& c : columns) out << "," << csv_field(c);
  out << "\n";
  BatchMergeResult result;
  for (size_t k = 0; k < spec.designs.size(); ++k) {
    std::map<std::string, std::string>& row = rows[k];
    out << csv_field(row["design"]) << "," << csv_field(row["status"]) << "," << csv_field(row["error"]);
    for (const std::string& c : columns) out << "," << csv_field(row[c]);
    out << "\n";
    ++result.rows;
    result.ok += row["status"] == "ok" ? 1 : 0;
  }
  detail::write_atomically(path, out.str());
  return result;
}

}  // namespace softik
