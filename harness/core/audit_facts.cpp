#include "harness/core/audit_facts.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "harness/core/artifacts.hpp"
#include "harness/core/cases.hpp"
#include "harness/core/crypto.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/records.hpp"
#include "harness/core/receipt.hpp"
#include "harness/core/schedule.hpp"
#include "harness/core/text.hpp"

namespace kgate {
namespace {

using Bad = std::function<void(const std::string&)>;

int64_t int_field(const json& obj, const char* key, const std::string& where) {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_number_integer())
    throw AuditError("field '" + where + "." + key + "': not an integer");
  return obj[key].get<int64_t>();
}

std::string string_field(const json& obj, const char* key, const std::string& where) {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_string())
    throw AuditError("field '" + where + "." + key + "': not a string");
  return obj[key].get<std::string>();
}

// The run as its header records it: the schedule, the arms in run order, the candidate and the
// baselines in pairing order.
struct RunFacts {
  ScheduleConfig schedule;
  std::vector<std::string> arms, baselines;
  std::string candidate, family;
  std::vector<std::string> row_globs;  // cases.rows_filter: every row kept matches one
  bool schedule_ok = false;
};

// The schedule kgate validates before any work (schedule.hpp), and the arms' roles: the
// candidate first, then the baselines, each named once, all of the receipt's backend.
RunFacts run_facts(const json& pred, const Bad& bad) {
  RunFacts f;
  const json& proto = pred.at("protocol");
  auto bounded = [&](const char* key) {  // out of range: -1, which validate() refuses
    const int64_t v = int_field(proto, key, "protocol");
    return v < 0 || v > 1000000 ? -1 : static_cast<int>(v);
  };
  f.schedule.groups = bounded("groups");
  f.schedule.blocks = bounded("blocks");
  f.schedule.m = bounded("m");
  try {
    f.schedule.validate();
    f.schedule_ok = true;
  } catch (const InputError& e) {
    bad(std::string("field 'protocol': a schedule kgate refuses: ") + e.what());
  }
  const std::string backend = string_field(pred, "backend", "predicate");
  const json& env = pred.at("environment");
  if (env.is_object() && env.contains("backend") && env["backend"] != backend)
    bad("field 'environment.backend': differs from predicate.backend");
  if (string_field(proto, "timer", "protocol") != string_field(pred, "timer", "predicate"))
    bad("field 'protocol.timer': differs from predicate.timer");
  f.family = string_field(pred.at("cases"), "family", "cases");
  f.row_globs = split_commas(string_field(pred.at("cases"), "rows_filter", "cases"));
  std::set<std::string> seen;
  for (const auto& a : pred.at("arms")) {
    const std::string name = string_field(a, "name", "arms[]"), role = string_field(a, "role", "arms[]");
    if (!seen.insert(name).second) bad("field 'arms': " + quoted(name) + " listed twice");
    if (role == "candidate" ? !f.arms.empty() : role != "baseline")
      bad("field 'arms': " + quoted(name) + " has role " + quoted(role) +
          " (kgate lists the candidate first, then baselines)");
    if (a.contains("backend") && a["backend"] != backend)
      bad("field 'arms': " + quoted(name) + " is of backend " + a["backend"].dump() + ", not " + quoted(backend));
    if (role == "candidate")
      f.candidate = name;
    else
      f.baselines.push_back(name);
    f.arms.push_back(name);
  }
  if (f.candidate.empty()) bad("field 'arms': no candidate");
  return f;
}

// run.units: one unit per row per group (schedule.hpp plan_units); resumed units among them.
void check_units(const json& pred, const RunFacts& f, const Bad& bad) {
  const json& run = pred.at("run");
  const int64_t units = int_field(run, "units", "run"), resumed = int_field(run, "resumed_units", "run");
  const int64_t want = static_cast<int64_t>(pred.at("rows").size()) * f.schedule.groups;
  if (units != want)
    bad("field 'run.units': " + std::to_string(units) + ", but " + std::to_string(pred.at("rows").size()) +
        " rows in " + std::to_string(f.schedule.groups) + " groups are " + std::to_string(want) + " units");
  if (resumed < 0 || resumed > units) bad("field 'run.resumed_units': not between 0 and run.units");
}

// The subjects are exactly what a run lists (campaign.cpp): the binary (tool.binary_sha256), the
// case table (cases.path, cases.sha256), every arm source once with its digest, the backend's
// protocol sources, the policy and the sidecar. None dropped, none added, none named twice.
void check_subject_list(const json& body, const Bad& bad) {
  const json& pred = body.at("predicate");
  std::map<std::string, json> want;  // name -> sha256 (null: any digest, checked elsewhere)
  want["kgate"] = pred.at("tool").at("binary_sha256");
  want[string_field(pred.at("cases"), "path", "cases")] = pred.at("cases").at("sha256");
  for (const auto& a : pred.at("arms"))
    for (const auto& s : a.at("sources")) {
      const std::string path = string_field(s, "path", "arms[].sources[]");
      if (want.count(path) && want[path] != s.at("sha256"))
        bad("field 'arms': source " + quoted(path) + " recorded with two digests");
      want[path] = s.at("sha256");
    }
  for (const auto& p : protocol_sources(string_field(pred, "backend", "predicate")))
    if (!want.count(p)) want[p] = nullptr;
  want[kPolicySubject] = sha256_hex(canonicalize(pred.at("policy")));
  want[string_field(pred.at("samples"), "path", "samples")] = pred.at("samples").at("sha256");
  std::set<std::string> seen;
  for (const auto& s : body.at("subject")) {
    const std::string name = string_field(s, "name", "subject[]");
    if (!seen.insert(name).second) bad("subject " + quoted(name) + ": listed twice");
    auto it = want.find(name);
    if (it == want.end()) {
      bad("subject " + quoted(name) +
          ": not the binary, the case table, an arm's source, a protocol source, "
          "the policy or the sidecar");
    } else if (!it->second.is_null() && s.at("digest").at("sha256") != it->second) {
      bad("subject " + quoted(name) + ": digest differs from the one the predicate records for it");
    }
  }
  for (const auto& [name, sha] : want)
    if (!seen.count(name)) bad("subject " + quoted(name) + ": recorded in the predicate but not a subject");
}

// One row's correctness record against its disposition: each check's verdict follows from its
// counts (a pass has no mismatch, non-finite or unwritten element); a passed row checked every
// arm that did not refuse it, in run order, and each passed; an incorrect row has a failed check.
void check_correctness(const RowRecord& row, const RunFacts& f, const Bad& bad) {
  const std::string at = "row " + quoted(row.id) + ": ";
  size_t next = 0;  // checks follow the run's arm order
  bool all_passed = true;
  for (const auto& c : row.correctness) {
    const Correctness& r = c.result;
    size_t i = next;
    while (i < f.arms.size() && f.arms[i] != c.arm) ++i;
    if (i == f.arms.size()) bad(at + "correctness of " + quoted(c.arm) + ", not an arm of the run or out of order");
    next = i + 1;
    if (r.elements < 0 || r.mismatches < 0 || r.nonfinite < 0 || r.unwritten < 0 || r.mismatches > r.elements ||
        r.nonfinite > r.elements || r.unwritten > r.elements)
      bad(at + "correctness of " + quoted(c.arm) + ": counts out of range of its elements");
    if (r.passed && (r.mismatches || r.nonfinite || r.unwritten || r.elements == 0))
      bad(at + "correctness of " + quoted(c.arm) + " passed with " + std::to_string(r.mismatches) + " mismatches, " +
          std::to_string(r.nonfinite) + " non-finite, " + std::to_string(r.unwritten) + " unwritten of " +
          std::to_string(r.elements) + " elements");
    all_passed = all_passed && r.passed;
  }
  for (const auto& [arm, why] : row.refused)
    if (std::find(f.baselines.begin(), f.baselines.end(), arm) == f.baselines.end())
      bad(at + "refused by " + quoted(arm) + ", not a baseline of the run");
  for (const auto& [arm, cfg] : row.config)
    if (std::find(f.arms.begin(), f.arms.end(), arm) == f.arms.end())
      bad(at + "config of " + quoted(arm) + ", not an arm of the run");
  if (row.disposition == Disposition::passed) {
    if (row.correctness.size() + row.refused.size() != f.arms.size() || !all_passed)
      bad(at + "disposition passed, but not every arm that ran was checked and passed");
    if (row.error) bad(at + "disposition passed with an error");
  }
  // An incorrect row names a failed check: of set 0 (its correctness), or in its timed-call proof
  // (another input set's check, or a verified timed call).
  if (row.disposition == Disposition::incorrect && all_passed && (!row.proof || row.proof->failure().empty()))
    bad(at + "disposition incorrect, but every recorded check passed");
}

// A row's recorded identity against the run: the table's family, kept by the run's row filter,
// one pair per baseline in pairing order, each against the candidate.
void check_row_identity(const RowRecord& row, const RunFacts& f, const Bad& bad) {
  const std::string at = "row " + quoted(row.id) + ": ";
  if (row.family != f.family) bad(at + "family " + quoted(row.family) + ", the case table's is " + quoted(f.family));
  if (!f.row_globs.empty() &&
      std::none_of(f.row_globs.begin(), f.row_globs.end(), [&](const auto& g) { return glob_match(g, row.id); }))
    bad(at + "not a row that cases.rows_filter keeps");
  bool pairs_ok = row.pairs.size() == f.baselines.size();
  for (size_t i = 0; pairs_ok && i < row.pairs.size(); ++i)
    pairs_ok = row.pairs[i].baseline == f.baselines[i] && row.pairs[i].candidate == f.candidate;
  if (!pairs_ok) bad(at + "pairs are not (each baseline in pairing order, the candidate)");
}

// Timed calls per arm in a row's samples: per pair, `groups` units of 2 x blocks x m samples
// per side (blocks of ABBA/BAAB, each letter m samples); a refused baseline's pair has none.
std::map<std::string, int64_t> check_pair_samples(const RowRecord& row, const RowSamples& s, const RunFacts& f,
                                                  const Bad& bad) {
  const std::string at = "row " + quoted(row.id) + ": sidecar ";
  std::map<std::string, int64_t> calls;
  if (s.baseline.size() != row.pairs.size() || s.candidate.size() != row.pairs.size()) {
    bad(at + "holds " + std::to_string(s.baseline.size()) + " pairs, the row " + std::to_string(row.pairs.size()));
    return calls;
  }
  const size_t per_unit = static_cast<size_t>(2) * f.schedule.blocks * f.schedule.m;
  for (size_t p = 0; p < row.pairs.size(); ++p) {
    const bool refused = row.refused.count(row.pairs[p].baseline) > 0;
    for (int side = 0; side < 2; ++side) {
      const auto& groups = side ? s.candidate[p] : s.baseline[p];
      bool ok = groups.size() == (refused ? 0 : static_cast<size_t>(f.schedule.groups));
      for (const auto& g : groups) ok = ok && g.size() == per_unit;
      if (!ok)
        bad(at + "pair " + std::to_string(p) + " " + (side ? "candidate" : "baseline") + ": not " +
            (refused ? std::string("empty (refused)")
                     : std::to_string(f.schedule.groups) + " groups of " + std::to_string(per_unit) + " samples") +
            " as protocol.groups, blocks and m give");
      for (const auto& g : groups)
        calls[side ? row.pairs[p].candidate : row.pairs[p].baseline] += static_cast<int64_t>(g.size());
    }
  }
  return calls;
}

// The series beside the timer are one value per timed call of their arm, and the activity
// signatures count every call of every rank.
void check_side_series(const RowRecord& row, const RowSamples& s, const std::map<std::string, int64_t>& calls,
                       const Bad& bad) {
  const std::string at = "row " + quoted(row.id) + ": sidecar ";
  if (s.world_size < 1) bad(at + "world_size below 1");
  auto n_of = [&](const std::string& arm) {
    auto it = calls.find(arm);
    return it == calls.end() ? int64_t{0} : it->second;
  };
  for (const auto& [arm, ser] : s.side) {
    const int64_t n = n_of(arm);
    for (const auto* v : {&ser.events_us, &ser.self_us, &ser.sm_clock_mhz, &ser.cross_device_us})
      if (!v->empty() && static_cast<int64_t>(v->size()) != n)
        bad(at + "series of " + quoted(arm) + ": " + std::to_string(v->size()) + " values for " + std::to_string(n) +
            " timed calls");
    if (!ser.activity_us.empty() && static_cast<int64_t>(ser.activity_us.size()) != n)
      bad(at + "activity of " + quoted(arm) + ": not one entry per timed call");
  }
  for (const auto& [arm, counts] : s.signatures) {
    int64_t total = 0;
    for (const auto& c : counts) total += c.calls;
    if (!counts.empty() && total != n_of(arm) * s.world_size)
      bad(at + "signatures of " + quoted(arm) + " count " + std::to_string(total) + " calls, not " +
          std::to_string(n_of(arm) * s.world_size));
  }
}

// Every row's facts, and the sidecar's structure for the rows it holds (only passed rows are
// measured, so only they have samples).
void check_rows(const json& pred, const json* samples, const RunFacts& f, const Bad& bad) {
  for (const auto& j : pred.at("rows")) {
    RowRecord row;
    try {
      row = row_record_from_json(j);
    } catch (const AuditError&) {
      continue;  // the re-derivation reports the malformed row
    }
    check_row_identity(row, f, bad);
    check_correctness(row, f, bad);
    if (!samples || !samples->at("rows").contains(row.id) || !f.schedule_ok) continue;
    if (row.disposition != Disposition::passed) {
      bad("row " + quoted(row.id) + ": sidecar holds samples of a row that was not measured (" +
          to_string(row.disposition) + ")");
      continue;
    }
    try {
      const RowSamples s = row_samples_from_json(samples->at("rows").at(row.id), row.id);
      check_side_series(row, s, check_pair_samples(row, s, f, bad), bad);
    } catch (const AuditError&) {
      // the re-derivation reports the malformed samples
    }
  }
}

}  // namespace

void check_recorded_facts(const json& body, const json* samples, const Bad& bad) {
  const json& pred = body.at("predicate");
  const RunFacts f = run_facts(pred, bad);
  check_units(pred, f, bad);
  check_subject_list(body, bad);
  check_rows(pred, samples, f, bad);
}

}  // namespace kgate
