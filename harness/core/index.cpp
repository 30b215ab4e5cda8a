#include "harness/core/index.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include "harness/core/errors.hpp"
#include "harness/core/receipt.hpp"
#include "harness/core/receipt_view.hpp"
#include "harness/core/text.hpp"

namespace kgate {

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// A receipt, not one of the files kgate writes beside it (its samples sidecar, its reports, its
// sanitize and accept statements).
bool is_receipt_name(const std::string& name) {
  return ends_with(name, ".json") && !ends_with(name, ".samples.json") && name.find(".report.") == std::string::npos &&
         !ends_with(name, ".sanitize.json") && !ends_with(name, ".accept.json");
}

std::vector<std::string> gpu_names(const json& env) {
  std::vector<std::string> order;
  std::map<std::string, int> count;
  if (env.contains("gpus") && env["gpus"].is_array())
    for (const auto& g : env["gpus"]) {
      std::string n =
          g.is_object() && g.contains("name") && g["name"].is_string() ? g["name"].get<std::string>() : "GPU";
      if (!count[n]++) order.push_back(n);
    }
  for (auto& n : order)
    if (count[n] > 1) n = std::to_string(count[n]) + " x " + n;
  return order;
}

IndexEntry entry_of(const std::filesystem::path& path) {
  IndexEntry e;
  e.file = path.filename().string();
  const AuditResult a = audit_receipt(path.string(), std::nullopt);
  if (!a.ok()) {
    e.problem = a.problems.front();
    if (a.problems.size() > 1) e.problem += " (and " + std::to_string(a.problems.size() - 1) + " more)";
    return e;
  }
  const ReceiptView v = receipt_view(a.receipt, e.file);
  const json& pred = a.receipt.at("body").at("predicate");
  e.gpus = gpu_names(v.environment);
  e.device = e.gpus.empty() ? v.device : join(e.gpus, ", ");
  e.commit = v.git_commit.substr(0, 12);
  e.table = v.table;
  e.cases_path = v.cases_path;
  e.rows_filter = pred.at("cases").value("rows_filter", "");
  e.candidate = v.candidate;
  e.policy = v.policy;
  e.rows = v.summary.rows;
  e.rows_passing = v.summary.policy_passed;
  for (const auto& b : v.baselines) {
    IndexEntry::Baseline x;
    x.name = b;
    if (auto it = v.summary.by_baseline.find(b); it != v.summary.by_baseline.end()) {
      x.measured_rows = it->second.measured_rows;
      x.unmeasured_rows = it->second.unmeasured_rows;
      x.geomean_ratio = it->second.geomean_ratio;
      x.min_ratio = it->second.min_ratio;
      x.min_ratio_row = it->second.min_ratio_row.value_or("");
    }
    e.baselines.push_back(std::move(x));
  }
  const json& run = pred.at("run");
  if (run.contains("wall_s_this_process") && run["wall_s_this_process"].is_number())
    e.wall_s = run["wall_s_this_process"].get<double>();
  if (run.contains("resumed_units") && run["resumed_units"].is_number_integer())
    e.resumed_units = run["resumed_units"].get<int64_t>();
  return e;
}

}  // namespace

size_t ReceiptIndex::failed_audit() const {
  size_t n = 0;
  for (const auto& e : entries) n += !e.audited();
  return n;
}

ReceiptIndex index_receipts(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) throw InputError(printable(dir) + ": not a directory");
  std::vector<std::filesystem::path> files;
  for (const auto& de : std::filesystem::directory_iterator(dir, ec))
    if (de.is_regular_file() && is_receipt_name(de.path().filename().string())) files.push_back(de.path());
  if (ec) throw InputError(printable(dir) + ": cannot list: " + ec.message());
  if (files.empty()) throw InputError(printable(dir) + ": no receipts (*.json beside their *.samples.json)");
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.filename() < b.filename(); });
  ReceiptIndex idx;
  idx.dir = dir;
  for (const auto& f : files) idx.entries.push_back(entry_of(f));
  return idx;
}

}  // namespace kgate
