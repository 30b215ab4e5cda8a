#pragma once
// The typed view every report printer reads: an audited receipt's header facts (ReceiptView),
// its rows as RowRecords and its Summary, plus per-pair presentation arithmetic (TB/s =
// work.bytes / time, percent of a peak, percent of the floor arm) and each failed gate as a
// GateResult. Nothing here is a statistic: medians, ratios, intervals, verdicts and geomeans are
// the receipt's.
//
// One ratio direction everywhere: ratio = baseline median / candidate median, > 1 = the
// candidate is faster (kRatioDirection, printed in every report header).
#include <optional>
#include <string>
#include <vector>

#include "harness/core/gates.hpp"
#include "harness/core/receipt_view.hpp"

namespace kgate {

inline constexpr const char* kRatioDirection =
    "ratio = baseline median / candidate median: > 1 means the candidate is faster";

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

struct RowView {
  RowRecord record;
  std::vector<PairFigures> figures;  // one per record.pairs entry
  std::vector<GateResult> failures;  // failed_gates: per entry of record.verdicts.failed, in order
};

// A later acceptance (kgate accept) beside the receipt, as its audited statement records it:
// per row the frozen verdict and the later policy's.
struct AcceptanceRow {
  std::string id;
  bool recorded = false, accepted = false;
  std::vector<std::string> accepted_failed;  // the later policy's failed gates
};
struct AcceptanceView {
  std::string statement, reason, policy;  // the statement's file name; the later policy as text
  int64_t recorded_passed = 0, accepted_passed = 0;
  std::vector<AcceptanceRow> rows;
};
// From an audited accept statement (audit_statement); AuditError naming the field otherwise.
AcceptanceView acceptance_view(const json& statement, const std::string& name);

struct ReportView : ReceiptView {
  std::vector<RowView> rows;
  std::optional<AcceptanceView> acceptance;  // set by the caller where a statement stands beside
  std::optional<json> samples;               // the audited sidecar, where the caller has it (html: distributions)
  // Which columns carry data in at least one row.
  bool has_work() const, has_flops() const, has_copy_peak() const, has_gemm_peak() const, has_floor() const;
};

// From an audited receipt (load_audited) or any receipt kgate wrote; AuditError naming the field
// when the shape is not kgate's. `source` is printed in headers.
ReportView report_view(const json& receipt, const std::string& source);

// The policy as one line of plain text: "correct, strict; vs b: limit(0.05, band=b9: 0.5)".
std::string policy_text(const Policy& p);

}  // namespace kgate
