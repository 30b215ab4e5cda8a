#pragma once
// The typed view every report printer reads: an audited receipt's header facts, its rows as
// RowRecords and its Summary, plus per-pair presentation arithmetic (TB/s = work.bytes / time,
// percent of a peak, percent of the floor arm) and the explanation of each failed gate. Nothing
// here is a statistic: medians, ratios, intervals, verdicts and geomeans are the receipt's.
//
// One ratio direction everywhere: ratio = baseline median / candidate median, > 1 = the
// candidate is faster (kRatioDirection, printed in every report header).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/core/jcs.hpp"
#include "harness/core/policy.hpp"
#include "harness/core/records.hpp"
#include "harness/core/stats.hpp"

namespace kgate {

inline constexpr const char* kRatioDirection =
    "ratio = baseline median / candidate median: > 1 means the candidate is faster";

struct ArmInfo {
  std::string name, role, registered_role, backend;  // role: in this run (candidate | baseline)
  std::vector<std::string> kernel_names;
  std::vector<std::pair<std::string, std::string>> sources;  // path, sha256
};

// Device peaks measured at start-up (predicate.environment.peaks); absent in older receipts.
struct Peaks {
  std::optional<double> copy_bytes_per_s, gemm_bf16_flops_per_s;
  std::string copy_method, gemm_method;
};

// Presentation arithmetic over one pair's recorded numbers (absent where an input is).
struct PairFigures {
  std::optional<double> candidate_tb_per_s, candidate_tflop_per_s;  // work / candidate median
  std::optional<double> pct_copy_peak, pct_gemm_peak;               // of the measured peaks
  std::optional<double> pct_of_floor;  // baseline is a floor arm: floor time / candidate time, %
  // The recorded verdicts of the gate set that judges this pair (its by_baseline entry, else the
  // top-level pair gates, which judge every pair by_baseline does not name, together).
  std::optional<bool> strict, strict_median;
  std::optional<double> limit_value;  // the row's effective limit for this pair's gate set
};

// One entry of a row's verdicts.failed, with what made it fail, as text.
struct Failure {
  std::string gate;      // "disposition", "correct", "strict", "limit", ...
  std::string baseline;  // the pair gate's baseline (gate@baseline), or empty
  std::string reason;
};

struct RowView {
  RowRecord record;
  std::vector<PairFigures> figures;  // one per record.pairs entry
  std::vector<Failure> failures;     // one per record.verdicts.failed entry, in order
};

struct ReportView {
  std::string source;  // the receipt's path as given to `kgate report`
  std::string body_sha256;
  std::string tool_version, git_commit, binary_sha256;
  std::string backend, timer;
  std::string device;  // "NVIDIA H200 (sm 9.0)" or "CPU Intel(R) Xeon(R) (2 logical CPUs)"
  json environment;    // as recorded (details only)
  std::optional<Peaks> peaks;
  json protocol;                                    // as recorded (details only)
  int64_t groups = 0, blocks = 0, m = 0, seed = 0;  // the pairing schedule (schedule.hpp)
  IntervalSpec interval;
  std::string cases_path, cases_sha256, table, family;
  std::vector<ArmInfo> arms;
  std::string candidate;
  std::vector<std::string> baselines;  // pairing order
  Policy policy;
  std::string finished_utc;
  std::vector<RowView> rows;
  Summary summary;

  const ArmInfo* arm(const std::string& name) const;
  bool is_floor(const std::string& arm_name) const;
  // Which columns carry data in at least one row.
  bool has_work() const, has_flops() const, has_copy_peak() const, has_gemm_peak() const, has_floor() const;
};

// From an audited receipt (load_audited) or any receipt kgate wrote; AuditError naming the field
// when the shape is not kgate's. `source` is printed in headers.
ReportView report_view(const json& receipt, const std::string& source);

// The policy as one line of plain text: "correct, strict; vs b: limit(0.05, band=b9: 0.5)".
std::string policy_text(const Policy& p);

}  // namespace kgate
