#pragma once
// Case tables: cases/*.json, one table per file.
//   { "table": NAME, "family": FAMILY, "description": TEXT,
//     "defaults": {params...},                      (optional, merged under each row)
//     "rows": [ { "id": ID, "params": {...}, "tags": {"dtype": ..., ...},
//                 "tolerance": {"atol": a, "rtol": r} (optional) } ] }
// Loading validates every row against the family's schema; any problem is an InputError
// whose message is one line naming the file, the row id and the field.
#include <optional>
#include <string>
#include <vector>

#include "harness/core/family.hpp"

namespace kgate {

struct CaseRow {
  std::string id;
  std::string family;
  json params;  // normalized: every schema field present
  json tags;    // object of string -> string
  Tolerance tolerance;
  bool tolerance_explicit = false;
  size_t index = 0;
};

struct CaseTable {
  std::string path;
  std::string sha256;  // of the file's bytes
  std::string name;
  std::string family;
  std::string description;
  // The parameter the table sweeps (optional, "sweep" in the file): a numeric parameter every row
  // has; reports draw time against it, a line per group of rows that share their other tags.
  std::string sweep;
  std::vector<CaseRow> rows;
};

CaseTable load_case_table(const std::string& path);
CaseTable parse_case_table(const std::string& path, const std::string& bytes);
// Keep only rows whose id matches one of the comma-separated globs (`*` wildcard).
void filter_rows(CaseTable& t, const std::string& globs);
bool glob_match(const std::string& pattern, const std::string& s);
// The case tables under `dir` (recursively, sorted): *.json but suites.json and policies/*.json.
// Empty when dir is not a directory.
std::vector<std::string> find_case_tables(const std::string& dir);

}  // namespace kgate
