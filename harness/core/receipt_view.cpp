#include "harness/core/receipt_view.hpp"

#include <algorithm>

#include "harness/core/errors.hpp"
#include "harness/core/text.hpp"
#include "harness/core/verdicts.hpp"

namespace kgate {
namespace {

// Checked lookups into the predicate's header: a receipt of another shape is an AuditError
// naming the field, never a json exception.
const json& field(const json& j, const std::string& key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) throw AuditError("report: field " + quoted(where + key) + ": missing");
  return j[key];
}
std::string str_field(const json& j, const std::string& key, const std::string& where) {
  const json& v = field(j, key, where);
  if (!v.is_string()) throw AuditError("report: field " + quoted(where + key) + ": not a string");
  return v.get<std::string>();
}
int64_t int_field(const json& j, const std::string& key, const std::string& where) {
  const json& v = field(j, key, where);
  if (!v.is_number_integer()) throw AuditError("report: field " + quoted(where + key) + ": not an integer");
  return v.get<int64_t>();
}
std::string opt_str(const json& j, const std::string& key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}
std::optional<double> opt_num(const json& j, const std::string& key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return std::nullopt;
  return j[key].get<double>();
}

std::string device_of(const json& env) {
  if (env.contains("gpus") && env["gpus"].is_array() && !env["gpus"].empty()) {
    const json& g = env["gpus"][0];
    std::string d = opt_str(g, "name");
    if (d.empty()) d = "GPU";
    if (!opt_str(g, "compute_capability").empty()) d += " (sm " + opt_str(g, "compute_capability") + ")";
    if (env["gpus"].size() > 1) d += " x " + std::to_string(env["gpus"].size());
    return d;
  }
  std::string d = "CPU " + (opt_str(env, "cpu").empty() ? std::string("?") : opt_str(env, "cpu"));
  if (env.contains("logical_cpus") && env["logical_cpus"].is_number_integer())
    d += " (" + std::to_string(env["logical_cpus"].get<int64_t>()) + " logical CPUs)";
  return d;
}

std::optional<Peaks> peaks_of(const json& env) {
  if (!env.contains("peaks") || !env["peaks"].is_object()) return std::nullopt;
  const json& p = env["peaks"];
  return Peaks{opt_num(p, "copy_bytes_per_s"), opt_num(p, "gemm_bf16_flops_per_s"), opt_str(p, "copy_method"),
               opt_str(p, "gemm_method")};
}

// The tool, the machine and the protocol.
void read_run_facts(ReceiptView& v, const json& pred) {
  const json& tool = field(pred, "tool", "");
  v.tool_version = str_field(tool, "version", "tool.");
  v.git_commit = str_field(tool, "git_commit", "tool.");
  v.binary_sha256 = str_field(tool, "binary_sha256", "tool.");
  v.backend = str_field(pred, "backend", "");
  v.timer = str_field(pred, "timer", "");
  v.environment = field(pred, "environment", "");
  v.device = device_of(v.environment);
  v.peaks = peaks_of(v.environment);
  v.protocol = field(pred, "protocol", "");
  v.groups = int_field(v.protocol, "groups", "protocol.");
  v.blocks = int_field(v.protocol, "blocks", "protocol.");
  v.m = int_field(v.protocol, "m", "protocol.");
  v.seed = int_field(v.protocol, "seed", "protocol.");
  v.interval = interval_spec_from_json(v.protocol);
  v.launch = v.protocol.contains("launch") ? opt_str(v.protocol, "launch") : "direct";
  v.finished_utc = opt_str(field(pred, "run", ""), "finished_utc");
}

// The case table, the arms (candidate and baselines in pairing order) and the policy.
void read_campaign(ReceiptView& v, const json& pred) {
  const json& cases = field(pred, "cases", "");
  v.cases_path = str_field(cases, "path", "cases.");
  v.cases_sha256 = str_field(cases, "sha256", "cases.");
  v.table = str_field(cases, "table", "cases.");
  v.family = str_field(cases, "family", "cases.");
  if (cases.contains("sweep")) v.sweep = str_field(cases, "sweep", "cases.");
  const json& arms = field(pred, "arms", "");
  if (!arms.is_array()) throw AuditError("report: field 'arms': not an array");
  for (const auto& a : arms) {
    ArmInfo info{str_field(a, "name", "arms[]."),
                 str_field(a, "role", "arms[]."),
                 opt_str(a, "registered_role"),
                 opt_str(a, "backend"),
                 {},
                 {}};
    if (a.contains("kernel_names") && a["kernel_names"].is_array())
      for (const auto& k : a["kernel_names"])
        if (k.is_string()) info.kernel_names.push_back(k.get<std::string>());
    if (a.contains("sources") && a["sources"].is_array())
      for (const auto& s : a["sources"]) info.sources.emplace_back(opt_str(s, "path"), opt_str(s, "sha256"));
    (info.role == "candidate" ? v.candidate = info.name : v.baselines.emplace_back(info.name));
    v.arms.push_back(std::move(info));
  }
  try {
    v.policy = Policy::from_json(field(pred, "policy", ""), "receipt policy");
  } catch (const InputError& e) {
    throw AuditError(std::string("report: ") + e.what());
  }
}

}  // namespace

const ArmInfo* ReceiptView::arm(const std::string& name) const {
  for (const auto& a : arms)
    if (a.name == name) return &a;
  return nullptr;
}
bool ReceiptView::is_floor(const std::string& name) const {
  const ArmInfo* a = arm(name);
  return a && a->registered_role == "floor";
}

ReceiptView receipt_view(const json& receipt, const std::string& source) {
  ReceiptView v;
  v.source = source;
  const json& pred = field(field(receipt, "body", ""), "predicate", "body.");
  v.body_sha256 = str_field(field(receipt, "seal", ""), "body_sha256", "seal.");
  read_run_facts(v, pred);
  read_campaign(v, pred);
  v.summary = summary_from_json(field(pred, "summary", ""));
  return v;
}

std::vector<RowRecord> receipt_rows(const json& receipt) {
  const json& rows = field(field(field(receipt, "body", ""), "predicate", "body."), "rows", "");
  if (!rows.is_array()) throw AuditError("report: field 'rows': not an array");
  std::vector<RowRecord> out;
  for (const auto& r : rows) out.push_back(row_record_from_json(r));
  return out;
}

}  // namespace kgate
