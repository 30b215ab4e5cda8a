#pragma once
// The index of a receipts folder (`kgate index DIR`): one entry per receipt, every figure read
// from the audited receipt itself (its environment, tool, case table, arms, policy, summary and
// run), so a folder's INDEX.md holds no hand-written number. A receipt that fails its audit is
// listed with the reason and nothing else from it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/jcs.hpp"
#include "harness/core/policy.hpp"

namespace kgate {

struct IndexEntry {
  std::string file;               // the receipt's file name in the folder
  std::string problem;            // non-empty: the receipt failed its audit (the first problem, and how many more)
  std::vector<std::string> gpus;  // each distinct GPU name, "N x name" where several; empty on the CPU backend
  std::string device;             // the GPU(s) or the CPU, as one line
  std::string commit;             // tool.git_commit, its first 12 characters
  std::string table, cases_path, rows_filter;
  std::string candidate;
  Policy policy;  // as recorded
  int64_t rows = 0, rows_passing = 0;
  struct Baseline {
    std::string name;
    int64_t measured_rows = 0, unmeasured_rows = 0;
    std::optional<double> geomean_ratio, min_ratio;
    std::string min_ratio_row;
  };
  std::vector<Baseline> baselines;  // pairing order
  double wall_s = 0;                // predicate.run.wall_s_this_process
  int64_t resumed_units = 0;
  bool audited() const { return problem.empty(); }
};

struct ReceiptIndex {
  std::string dir;
  std::vector<IndexEntry> entries;  // by file name
  size_t failed_audit() const;
};

// Audits every receipt in `dir` (its *.json files, not *.samples.json sidecars nor *.report.*
// renderings; not recursive) and reads each into an entry, in file-name order. InputError when
// `dir` is not a directory or holds no receipt.
ReceiptIndex index_receipts(const std::string& dir);

// The printers: harness/report/index.hpp.

}  // namespace kgate
