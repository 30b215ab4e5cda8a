#include "harness/core/verdicts.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "harness/core/errors.hpp"
#include "harness/core/gates.hpp"
#include "harness/core/stats.hpp"
#include "harness/core/text.hpp"

namespace kgate {

namespace {

SampleStats stats_of(const std::vector<std::vector<double>>& groups) {
  std::vector<double> all;
  for (const auto& g : groups) all.insert(all.end(), g.begin(), g.end());
  SampleSummary s = summarize(all);
  return {static_cast<int64_t>(s.n), s.median, s.q1, s.q3, s.iqr, s.min, s.max};
}

SignatureRecord signature_record(const std::vector<SignatureCount>& v, const std::vector<std::string>& declared) {
  SignatureRecord r;
  std::set<std::string> names;
  for (const auto& s : v) {
    names.insert(s.signature.kernel_names.begin(), s.signature.kernel_names.end());
    r.calls += s.calls;
  }
  r.A = v.front().signature.records;
  r.L = v.front().signature.launches;
  r.K = static_cast<int64_t>(v.front().signature.kernel_names.size());
  r.consistent = v.size() == 1;
  r.names.assign(names.begin(), names.end());
  // A declared name matches any observed name containing it (observed names are mangled).
  for (const auto& n : r.names)
    if (std::none_of(declared.begin(), declared.end(),
                     [&](const std::string& d) { return n.find(d) != std::string::npos; }))
      r.undeclared.push_back(n);
  return r;
}

SideSummary side_summary_of(const std::vector<double>& xs) {
  const SampleSummary sm = summarize(xs);
  return {sm.median, sm.min, sm.max, static_cast<int64_t>(sm.n)};
}

std::optional<std::map<std::string, SideSummary>> side_summary(const std::map<std::string, SideSeries>& side,
                                                               std::vector<double> SideSeries::*which) {
  std::map<std::string, SideSummary> out;
  for (const auto& [arm, s] : side) {
    const std::vector<double>& xs = s.*which;
    if (!xs.empty()) out[arm] = side_summary_of(xs);
  }
  if (out.empty()) return std::nullopt;
  return out;
}

// Per arm and activity name, its time per call over every call of the arm (0 in calls that did
// not run it); none where no arm has activity series.
std::optional<std::map<std::string, std::map<std::string, SideSummary>>> activity_summary(
    const std::map<std::string, SideSeries>& side) {
  std::map<std::string, std::map<std::string, SideSummary>> out;
  for (const auto& [arm, s] : side) {
    std::set<std::string> names;
    for (const auto& call : s.activity_us)
      for (const auto& kv : call) names.insert(kv.first);
    for (const auto& name : names) {
      std::vector<double> xs;
      for (const auto& call : s.activity_us) {
        auto it = call.find(name);
        xs.push_back(it == call.end() ? 0.0 : it->second);
      }
      out[arm][name] = side_summary_of(xs);
    }
  }
  if (out.empty()) return std::nullopt;
  return out;
}

// A pair gate's raw verdict over some of a row's pairs: null where it judges nothing (the row was
// not measured, no pair ran, or the gate does not apply to this row), else whether every pair
// passes.
json pair_verdict(const GateDef& g, const RowRecord& row, const std::vector<const PairRecord*>& pairs,
                  const GateSet& gs, bool measured) {
  if (!measured || pairs.empty()) return nullptr;
  const std::optional<double> L = effective_limit(row, gs);
  bool all = true;
  for (const PairRecord* p : pairs) {
    const GateResult r = g.judge({row, *p, gs, L});
    if (!r.judged) return nullptr;
    all = all && r.passed;
  }
  return all;
}

// The raw verdicts of a gate set over some of a row's pairs, with the row's effective limit.
json pair_gates(const RowRecord& row, const std::vector<const PairRecord*>& pairs, const GateSet& gs, bool measured) {
  json raw = json::object();
  for (const GateDef& g : gate_table())
    if (g.pair_gate && recorded(g, gs)) raw[g.name] = pair_verdict(g, row, pairs, gs, measured);
  const std::optional<double> L = effective_limit(row, gs);
  raw["limit_value"] = L ? json(*L) : json(nullptr);
  return raw;
}

}  // namespace

json to_json(const IntervalSpec& s) {
  return {{"method", s.method},
          {"level", s.level},
          {"resamples", s.resamples},
          {"statistic", "baseline median / candidate median of the pooled resample"},
          {"resample", "groups with replacement, then each drawn group's ABBA/BAAB blocks with replacement"},
          {"seed", "protocol.seed mixed with the row id and the pair index (splitmix64)"}};
}

IntervalSpec interval_spec_from_json(const json& protocol) {
  if (!protocol.is_object() || !protocol.contains("interval") || !protocol["interval"].is_object())
    throw AuditError("field 'protocol.interval': missing or not an object");
  const json& j = protocol["interval"];
  IntervalSpec s;
  if (!j.contains("method") || j["method"] != s.method)
    throw AuditError("field 'protocol.interval.method': not " + s.method + " (the method this kgate computes)");
  if (!j.contains("level") || !j["level"].is_number() ||
      !(j["level"].get<double>() > 0 && j["level"].get<double>() < 1))
    throw AuditError("field 'protocol.interval.level': not a number in (0, 1)");
  if (!j.contains("resamples") || !j["resamples"].is_number_integer() || j["resamples"].get<int64_t>() < 1 ||
      j["resamples"].get<int64_t>() > 1000000)
    throw AuditError("field 'protocol.interval.resamples': not an integer in [1, 1e6]");
  s.level = j["level"].get<double>();
  s.resamples = static_cast<int>(j["resamples"].get<int64_t>());
  if (canonicalize(to_json(s)) != canonicalize(j))
    throw AuditError("field 'protocol.interval': has fields kgate does not write");
  return s;
}

void merge_signature_counts(std::vector<SignatureCount>& into, const std::vector<SignatureCount>& more) {
  for (const auto& s : more) {
    auto it =
        std::find_if(into.begin(), into.end(), [&](const SignatureCount& x) { return x.signature == s.signature; });
    if (it == into.end())
      into.push_back(s);
    else
      it->calls += s.calls;
  }
}

// A row's refused baselines as kgate records them: each a baseline of the row's pairs, never
// checked (a refused arm ran nothing).
static void check_refused(const RowRecord& row) {
  for (const auto& [arm, why] : row.refused) {
    if (std::none_of(row.pairs.begin(), row.pairs.end(), [&](const PairRecord& p) { return p.baseline == arm; }))
      throw AuditError("row '" + row.id + "': field 'refused' names " + quoted(arm) + ", not a baseline of the row");
    if (why.empty()) throw AuditError("row '" + row.id + "': field 'refused." + arm + "': no reason");
    for (const auto& c : row.correctness)
      if (c.arm == arm)
        throw AuditError("row '" + row.id + "': " + quoted(arm) + " refused the row, but its correctness is recorded");
  }
}

// The timed-call proof's rule: a row whose proof records a failed check or verified call is never
// passed (kgate records it incorrect, naming the failure).
static void check_proof(const RowRecord& row) {
  if (!row.proof || row.disposition != Disposition::passed) return;
  if (const std::string failed = row.proof->failure(); !failed.empty())
    throw AuditError("row '" + row.id + "': passed, but its proof records a failure (" + failed + ")");
}

// A passed row's proof against its samples: every arm the row timed has an entry, checked on at
// least two input sets, whose timed calls are that arm's samples in the sidecar (once per rank
// that measured them) and whose verified calls cover at least each unit's last call.
static void check_proof_counts(const RowRecord& row, const RowSamples& samples) {
  if (!row.proof) return;
  std::map<std::string, int64_t> calls;
  size_t groups = 0;
  for (size_t i = 0; i < row.pairs.size() && i < samples.baseline.size() && i < samples.candidate.size(); ++i) {
    for (const auto& g : samples.baseline[i]) calls[row.pairs[i].baseline] += static_cast<int64_t>(g.size());
    for (const auto& g : samples.candidate[i]) calls[row.pairs[i].candidate] += static_cast<int64_t>(g.size());
    groups = std::max(groups, samples.candidate[i].size());
  }
  for (const auto& [arm, n] : calls) {
    if (n == 0) continue;
    const std::string where = "row '" + row.id + "': proof of " + arm + ": ";
    auto it = row.proof->arms.find(arm);
    if (it == row.proof->arms.end()) throw AuditError(where + "missing, though the sidecar holds its timed calls");
    const CallProof& c = it->second.calls;
    const int64_t ranks = n > 0 && c.timed % n == 0 ? c.timed / n : 0;
    if (ranks < 1 || ranks > std::max(1, samples.world_size))
      throw AuditError(where + std::to_string(c.timed) + " timed calls recorded, the sidecar holds " +
                       std::to_string(n));
    if (c.verified < static_cast<int64_t>(groups) * ranks)
      throw AuditError(where + std::to_string(c.verified) + " verified calls, fewer than one per unit");
    std::set<int> sets;
    for (const auto& chk : it->second.checks)
      if (chk.passed) sets.insert(chk.set);
    if (sets.size() < 2) throw AuditError(where + "checked on fewer than two input sets");
  }
}

namespace {

// Each pair's statistics from its samples (a pair whose baseline refused the row keeps none).
void measure_pairs(RowRecord& row, const RowSamples& samples, const DeriveContext& ctx) {
  if (samples.baseline.size() != row.pairs.size() || samples.candidate.size() != row.pairs.size())
    throw AuditError("row '" + row.id + "': sample pairs do not match the row's pairs");
  for (size_t i = 0; i < row.pairs.size(); ++i) {
    PairRecord& p = row.pairs[i];
    const std::string where = "row '" + row.id + "': pair " + std::to_string(i) + ": ";
    const bool none = samples.baseline[i].empty() && samples.candidate[i].empty();
    if (row.refused.count(p.baseline)) {
      if (!none) throw AuditError(where + p.baseline + " refused the row, but the sidecar holds samples of its pair");
      continue;  // not measured: the pair keeps no statistics
    }
    if (none) throw AuditError(where + "no samples");
    if (samples.baseline[i].size() != samples.candidate[i].size()) throw AuditError(where + "group counts differ");
    for (size_t g = 0; g < samples.baseline[i].size(); ++g)
      if (samples.baseline[i][g].empty() || samples.candidate[i][g].empty())
        throw AuditError(where + "group " + std::to_string(g) + " has no samples");
    PairStats ps = pair_stats(samples.baseline[i], samples.candidate[i]);
    p.baseline_stats = stats_of(samples.baseline[i]);
    p.candidate_stats = stats_of(samples.candidate[i]);
    p.ratio = ps.ratio;
    p.group_ratios = ps.group_ratios;
    p.drift = ps.drift;
    p.groups_agree = ps.groups_agree;
    try {
      p.ratio_ci = ratio_interval(samples.baseline[i], samples.candidate[i], ctx.blocks, ctx.interval,
                                  interval_seed(ctx.seed, row.id, i));
    } catch (const std::invalid_argument& e) {
      throw AuditError(where + e.what());
    }
  }
}

// The row's side measurements: activity signatures, side series, throttled samples.
void measure_side(RowRecord& row, const RowSamples& samples, const DeriveContext& ctx) {
  if (!samples.signatures.empty()) {
    std::map<std::string, SignatureRecord> sig;
    for (const auto& [arm, v] : samples.signatures) {
      if (v.empty()) continue;
      auto d = ctx.declared_kernels.find(arm);
      if (d == ctx.declared_kernels.end())
        throw AuditError("row '" + row.id + "': signatures of an arm not in the run: " + arm);
      sig[arm] = signature_record(v, d->second);
    }
    if (!sig.empty()) row.signatures = std::move(sig);
  }
  row.events_timer_us = side_summary(samples.side, &SideSeries::events_us);
  row.self_clock_us = side_summary(samples.side, &SideSeries::self_us);
  row.sm_clock_mhz = side_summary(samples.side, &SideSeries::sm_clock_mhz);
  row.cross_device_us = side_summary(samples.side, &SideSeries::cross_device_us);
  row.activity_us = activity_summary(samples.side);
  // Throttled samples: SM clock read after the call below 95 % of the device's maximum.
  if (ctx.max_sm_clock_mhz > 0 && row.sm_clock_mhz) {
    int64_t throttled = 0;
    for (const auto& [arm, s] : samples.side)
      for (double x : s.sm_clock_mhz) throttled += x < 0.95 * ctx.max_sm_clock_mhz;
    row.throttled_samples = throttled;
  }
}

bool listed(const GateSet& gs, const std::string& gate) {
  return std::find(gs.gates.begin(), gs.gates.end(), gate) != gs.gates.end();
}

// A gate set judges the pairs that ran. A pair whose baseline refused the row is not measured:
// where this policy accepts the refusal the pair is left out (a set left with no pair has nothing
// to judge and passes: `nothing_to_judge`); where it does not, every pair gate of the set fails.
json judge_set(const RowRecord& row, const Policy& policy, const GateSet& gs,
               const std::vector<const PairRecord*>& pairs, bool& nothing_to_judge) {
  std::vector<const PairRecord*> ran;
  std::vector<std::string> refused;
  for (const PairRecord* p : pairs)
    (row.refused.count(p->baseline) ? refused.push_back(p->baseline) : ran.push_back(p));
  json r = pair_gates(row, ran, gs, row.disposition == Disposition::passed);
  nothing_to_judge = false;
  if (refused.empty()) return r;
  r["refused"] = refused;
  const bool accepted =
      std::all_of(refused.begin(), refused.end(), [&](const std::string& b) { return policy.accepts_refusal(b); });
  nothing_to_judge = accepted && ran.empty();
  if (!accepted)
    for (const GateDef& g : gate_table())
      if (g.pair_gate && r.contains(g.name) && (!r[g.name].is_null() || listed(gs, g.name))) r[g.name] = false;
  return r;
}

// The row's verdicts: the raw verdict of every recorded gate, and the policy's.
Verdicts judge_row(const RowRecord& row, const Policy& policy) {
  json raw;
  bool all_correct = !row.correctness.empty();
  for (const auto& c : row.correctness) all_correct &= c.result.passed;
  raw["correct"] = all_correct && row.disposition != Disposition::incorrect;
  std::map<std::string, bool> nothing_to_judge;  // gate set ("" = top level) -> only accepted refusals
  // The top-level pair gates judge the pairs by_baseline does not name.
  std::vector<const PairRecord*> top;
  for (const auto& p : row.pairs)
    if (policy.judges("", p.baseline)) top.push_back(&p);
  raw.update(judge_set(row, policy, policy, top, nothing_to_judge[""]));
  if (!policy.by_baseline.empty()) {
    raw["by_baseline"] = json::object();
    for (const auto& [name, g] : policy.by_baseline) {
      std::vector<const PairRecord*> mine;
      for (const auto& p : row.pairs)
        if (p.baseline == name) mine.push_back(&p);
      raw["by_baseline"][name] = judge_set(row, policy, g, mine, nothing_to_judge[name]);
    }
  }
  std::vector<std::string> failed;
  // A row that did not run to the end (failed, not_supported, skipped, incorrect) fails every
  // policy, whatever gates it names: it stays in the denominators as a failure.
  if (row.disposition != Disposition::passed) failed.push_back("disposition");
  auto passes = [](const json& set, const std::string& g) { return set.contains(g) && set[g] == true; };
  for (const auto& g : policy.gates)
    if ((g == "correct" || !nothing_to_judge[""]) && !passes(raw, g)) failed.push_back(g);
  for (const auto& [name, gs] : policy.by_baseline) {
    if (nothing_to_judge[name]) continue;
    for (const auto& g : gs.gates)
      if (!passes(raw["by_baseline"][name], g)) failed.push_back(g + "@" + name);
  }
  return {raw, failed.empty(), failed};
}

}  // namespace

void derive_row(RowRecord& row, const RowSamples* samples, const Policy& policy, const DeriveContext& ctx) {
  check_refused(row);
  check_proof(row);
  row.signatures.reset();
  row.events_timer_us.reset();
  row.self_clock_us.reset();
  row.sm_clock_mhz.reset();
  row.cross_device_us.reset();
  row.activity_us.reset();
  row.throttled_samples.reset();
  for (auto& p : row.pairs) p = PairRecord{p.baseline, p.candidate, {}, {}, {}, {}, {}, {}, {}};
  if (row.disposition == Disposition::passed) {
    if (!samples) throw AuditError("row '" + row.id + "': passed but has no samples in the sidecar");
    check_proof_counts(row, *samples);
    measure_pairs(row, *samples, ctx);
    measure_side(row, *samples, ctx);
  }
  row.verdicts = judge_row(row, policy);
}

// The explanation of one failure label: a failing result per judged pair, or why none is.
static std::vector<GateResult> label_results(const RowRecord& row, const Policy& policy, const std::string& gate,
                                             const std::string& baseline) {
  std::vector<GateResult> out;
  const GateDef* g = find_gate(gate);
  if (g && g->pair_gate) {
    const GateSet& gs = baseline.empty() ? static_cast<const GateSet&>(policy) : policy.gates_for(baseline);
    for (const auto& p : row.pairs) {
      if (!policy.judges(baseline, p.baseline)) continue;
      GateResult r = judge_pair(*g, row, p, policy, gs);
      if (!r.passed) out.push_back(std::move(r));
    }
  }
  if (out.empty()) {
    GateResult r;
    r.gate = gate;
    r.judged = false;
    r.reason = g ? "no pair of this row is judged by it" : "not a gate of this kgate";
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<GateResult> failed_gates(const RowRecord& row, const Policy& policy, double level) {
  std::vector<GateResult> out;
  for (const std::string& label : row.verdicts.failed) {
    const size_t at = label.find('@');
    const std::string gate = label.substr(0, at), baseline = at == std::string::npos ? "" : label.substr(at + 1);
    std::vector<GateResult> mine;
    if (gate == "disposition") {
      GateResult r;
      r.gate = r.label = gate;
      r.disposition = to_string(row.disposition);
      r.error = row.error.value_or("");
      out.push_back(std::move(r));
      // An incorrect row under a policy without `correct`: its failed checks explain it all the same.
      const auto& f = row.verdicts.failed;
      if (row.disposition == Disposition::incorrect && std::find(f.begin(), f.end(), "correct") == f.end())
        for (GateResult& c : correctness_results(row))
          if (c.correctness) mine.push_back(std::move(c));
    } else {
      mine = gate == "correct" ? correctness_results(row) : label_results(row, policy, gate, baseline);
    }
    for (auto& r : mine) {
      r.label = r.gate == "correct" ? r.gate : label;
      r.level = level;
      out.push_back(std::move(r));
    }
  }
  return out;
}

WideTable wide_table(const std::vector<RowRecord>& rows, const std::string& anchor) {
  WideTable t;
  for (const auto& row : rows) {
    if (row.pairs.empty()) continue;
    t.arms.push_back(row.pairs[0].candidate);
    for (const auto& p : row.pairs) t.arms.push_back(p.baseline);
    break;
  }
  if (t.arms.size() < 2) return t;
  t.anchor = anchor.empty() ? t.arms[1] : anchor;
  if (std::find(t.arms.begin(), t.arms.end(), t.anchor) == t.arms.end()) {
    throw InputError("--anchor: '" + t.anchor + "' is not an arm of this receipt (" + join(t.arms, ", ") + ")");
  }
  std::vector<double> logs(t.arms.size(), 0.0);
  for (const auto& row : rows) {
    WideTable::Row w{row.id, row.disposition, {}, {}};
    for (const auto& p : row.pairs) {
      if (p.baseline_stats) w.median_us[p.baseline] = p.baseline_stats->median_us;
      if (p.candidate_stats && !w.median_us.count(p.candidate)) w.median_us[p.candidate] = p.candidate_stats->median_us;
    }
    bool all = w.median_us.size() >= t.arms.size() && w.median_us.count(t.anchor) && w.median_us[t.anchor] > 0;
    for (const auto& a : t.arms) all = all && w.median_us.count(a);
    if (all) {
      ++t.complete_rows;
      for (size_t i = 0; i < t.arms.size(); ++i) {
        w.over_anchor.push_back(w.median_us[t.arms[i]] / w.median_us[t.anchor]);
        logs[i] += std::log(w.over_anchor.back());
      }
    }
    t.rows.push_back(std::move(w));
  }
  if (t.complete_rows)
    for (double l : logs) t.geomean_over_anchor.push_back(std::exp(l / t.complete_rows));
  return t;
}

Summary derive_summary(const std::vector<RowRecord>& rows) {
  Summary s;
  s.rows = static_cast<int64_t>(rows.size());
  struct Acc {
    std::vector<double> ratios;
    std::map<std::string, std::vector<double>> by_tag;
  };
  std::map<std::string, Acc> acc;
  for (const auto& r : rows) {
    s.policy_passed += r.verdicts.policy;
    ++s.dispositions[to_string(r.disposition)];
    for (const auto& g : r.verdicts.failed) ++s.gate_failures[g];
    for (const auto& p : r.pairs) {
      BaselineSummary& b = s.by_baseline[p.baseline];
      Acc& a = acc[p.baseline];
      if (!p.ratio) {
        ++b.unmeasured_rows;
        continue;
      }
      double x = *p.ratio;
      if (!b.min_ratio || x < *b.min_ratio) {
        b.min_ratio = x;
        b.min_ratio_row = r.id;
      }
      a.ratios.push_back(x);
      b.sum_baseline_median_us += p.baseline_stats->median_us;
      b.sum_candidate_median_us += p.candidate_stats->median_us;
      for (const auto& [k, v] : r.tags) a.by_tag[k + "=" + v].push_back(x);
    }
  }
  s.policy_failed = s.rows - s.policy_passed;
  for (auto& [name, a] : acc) {
    BaselineSummary& b = s.by_baseline[name];
    b.measured_rows = static_cast<int64_t>(a.ratios.size());
    if (!a.ratios.empty()) b.geomean_ratio = geomean(a.ratios);
    for (auto& [tag, v] : a.by_tag) b.by_tag[tag] = {static_cast<int64_t>(v.size()), geomean(v)};
  }
  return s;
}

}  // namespace kgate
