#pragma once
// Printers read receipt records only; they never compute statistics (those are in the receipt).
#include <string>

#include "harness/core/jcs.hpp"

namespace kgate {

std::string report_markdown(const json& receipt);
std::string report_csv(const json& receipt);
// One line per row, one column per arm (the candidate's median is from its first pairing), then
// every arm's median over the anchor arm's (default: the first baseline), and their geomeans
// over the rows where every arm was measured. For tuning runs that pair many variants.
std::string report_wide(const json& receipt, const std::string& anchor = "");

// Row-by-row change between two receipts (matched by row id and baseline name).
struct CompareResult {
  json rows = json::array();  // {id, baseline, old_ratio, new_ratio, change, old_drift, new_drift, regression}
  int regressions = 0, only_old = 0, only_new = 0;
};
CompareResult compare_receipts(const json& old_r, const json& new_r, double threshold);
std::string compare_markdown(const CompareResult& c, double threshold);

}  // namespace kgate
