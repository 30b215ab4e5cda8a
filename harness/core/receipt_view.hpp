#pragma once
// A receipt read back as typed facts: its header (tool, device, protocol, case table, arms,
// policy, summary) and its rows as RowRecords. Nothing here is computed: every field is the
// receipt's. The printers (harness/report/) and the readers that compute over a receipt
// (compare, carryover, index) start here.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/core/jcs.hpp"
#include "harness/core/policy.hpp"
#include "harness/core/records.hpp"
#include "harness/core/stats.hpp"

namespace kgate {

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

struct ReceiptView {
  std::string source;  // the receipt's path as given on the command line
  std::string body_sha256;
  std::string tool_version, git_commit, binary_sha256;
  std::string backend, timer;
  std::string device;  // "NVIDIA H200 (sm 9.0)" or "CPU Intel(R) Xeon(R) (2 logical CPUs)"
  json environment;    // as recorded (details only)
  std::optional<Peaks> peaks;
  json protocol;                                    // as recorded (details only)
  std::string launch;                               // protocol.launch; "direct" where not recorded
  int64_t groups = 0, blocks = 0, m = 0, seed = 0;  // the pairing schedule (schedule.hpp)
  IntervalSpec interval;
  std::string cases_path, cases_sha256, table, family;
  std::string sweep;  // cases.sweep: the table's declared sweep parameter; "" where it declares none
  std::vector<ArmInfo> arms;
  std::string candidate;
  std::vector<std::string> baselines;  // pairing order
  Policy policy;
  std::string finished_utc;
  Summary summary;

  const ArmInfo* arm(const std::string& name) const;
  bool is_floor(const std::string& arm_name) const;
};

// From an audited receipt (load_audited) or any receipt kgate wrote; AuditError naming the field
// when the shape is not kgate's. `source` names the receipt in what is printed from it.
ReceiptView receipt_view(const json& receipt, const std::string& source);
// The receipt's rows (predicate.rows), in order; AuditError when they are not kgate's.
std::vector<RowRecord> receipt_rows(const json& receipt);

}  // namespace kgate
