#include "harness/core/gates.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace kgate {
namespace {

// The ratio gates' shared facts: the pair's ratio, interval and medians, as recorded.
GateResult ratio_facts(const PairInput& in) {
  GateResult r;
  r.ratio = in.pair.ratio;
  r.interval = in.pair.ratio_ci;
  r.candidate_us = in.pair.candidate_stats->median_us;
  r.baseline_us = in.pair.baseline_stats->median_us;
  return r;
}

GateResult judge_strict(const PairInput& in) {
  GateResult r = ratio_facts(in);
  // Resolved faster: the whole interval above 1.
  r.passed = r.holds = in.pair.ratio_ci->lo > 1;
  r.measure = "ratio interval lower bound";
  r.relation = ">";
  r.value = in.pair.ratio_ci->lo;
  r.threshold = 1;
  return r;
}

GateResult judge_strict_median(const PairInput& in) {
  GateResult r = ratio_facts(in);
  r.passed = r.holds = *in.pair.ratio > 1;
  r.measure = "median ratio";
  r.relation = ">";
  r.value = *in.pair.ratio;
  r.threshold = 1;
  return r;
}

GateResult judge_limit(const PairInput& in) {
  GateResult r = ratio_facts(in);
  if (!in.limit) {
    r.judged = false;
    r.reason = "no limit for this row";
    return r;
  }
  const double b = in.pair.baseline_stats->median_us, c = in.pair.candidate_stats->median_us;
  r.passed = r.holds = c <= (1 + *in.limit) * b;
  r.measure = "candidate / baseline median time";
  r.relation = "<=";
  r.value = c / b;
  r.threshold = 1 + *in.limit;
  return r;
}

GateResult judge_drift(const PairInput& in) {
  GateResult r = ratio_facts(in);
  if (!in.gates.drift) {
    r.judged = false;
    r.reason = "no drift limit";
    return r;
  }
  const double D = *in.gates.drift, drift = *in.pair.drift;
  // Direction agreement matters only once the pooled ratio is resolved beyond the drift band: for
  // a tie within +-D (an A/A pair) the groups' sides of 1 are noise.
  const bool resolved = std::fabs(*in.pair.ratio - 1) > D, agree = !resolved || *in.pair.groups_agree;
  r.holds = drift <= D;
  r.passed = r.holds && agree;
  r.measure = "drift";
  r.relation = "<=";
  r.value = drift;
  r.threshold = D;
  if (!agree) {
    r.reason = "the groups disagree in direction";
    r.group_ratios = in.pair.group_ratios;
  }
  return r;
}

// The activity gates need an activity timer (cupti); with host/events timers they judge nothing.
GateResult activity_facts(const PairInput& in) {
  GateResult r;
  const auto& sig = in.row.signatures;
  if (!sig || sig->empty()) {
    r.judged = false;
    r.reason = "no activity signatures (needs the cupti timer)";
    return r;
  }
  auto b = sig->find(in.pair.baseline), c = sig->find(in.pair.candidate);
  if (b != sig->end()) r.baseline_signature = b->second;
  if (c != sig->end()) r.candidate_signature = c->second;
  if (!r.baseline_signature || !r.candidate_signature) r.reason = "an arm has no activity signature";
  return r;
}

GateResult judge_parity(const PairInput& in) {
  GateResult r = activity_facts(in);
  if (!r.judged || !r.reason.empty()) return r;
  const SignatureRecord &b = *r.baseline_signature, &c = *r.candidate_signature;
  r.passed = b.A == c.A && b.L == c.L && b.K == c.K && b.consistent && c.consistent;
  if (!r.passed) r.reason = "the activity signatures differ";
  return r;
}

GateResult judge_fallback(const PairInput& in) {
  GateResult r = activity_facts(in);
  if (!r.judged || !r.reason.empty()) return r;
  r.passed = r.candidate_signature->undeclared.empty();
  if (!r.passed) r.reason = "the candidate launched kernels it does not declare";
  r.baseline_signature.reset();
  return r;
}

}  // namespace

const std::vector<GateDef>& gate_table() {
  static const std::vector<GateDef> t = {
      {"correct", "every arm matches the reference within the row's tolerance", nullptr, false, true, nullptr},
      {"strict",
       "resolved faster: the lower bound of the ratio's 99 % interval (a bootstrap over the run's groups and "
       "ABBA blocks) is > 1",
       nullptr, true, true, judge_strict},
      {"strict_median", "the median rule: median ratio > 1 (a tie fails; noise passes it half the time)", nullptr, true,
       true, judge_strict_median},
      {"limit", "candidate <= (1+L) x baseline (medians), inclusive", &GateSet::limit, true, true, judge_limit},
      {"drift", "every group's ratio within D of the pooled ratio, and the groups agree in direction", &GateSet::drift,
       true, true, judge_drift},
      {"parity", "same activity signature A/L/K (records / launches / kernel names per call)", nullptr, true, true,
       judge_parity},
      {"fallback", "the candidate launched no kernel outside its declared names", nullptr, true, true, judge_fallback},
      // Judged from the sanitize statement beside a receipt (statement.hpp), never by a run.
      {"sanitized",
       "every arm of the row ran clean (0 errors, 0 hazards) under compute-sanitizer memcheck, racecheck, synccheck "
       "and "
       "initcheck, as the sanitize statement beside the receipt shows (kgate sanitize)",
       nullptr, false, false, nullptr},
  };
  return t;
}

const GateDef* find_gate(const std::string& name) {
  for (const auto& g : gate_table())
    if (g.name == name) return &g;
  return nullptr;
}

std::string gate_usage(const GateDef& g) {
  if (!g.value) return g.name;
  return g.name + "(" + static_cast<char>(std::toupper(static_cast<unsigned char>(g.name[0]))) + ")";
}

std::string gate_names_text(const std::string& sep) {
  std::string s;
  for (const auto& g : gate_table()) s += (s.empty() ? "" : sep) + gate_usage(g);
  return s;
}

std::string gate_help_text() {
  constexpr size_t kWidth = 101, kIndent = 17;  // "  name(value)    help", wrapped under the help
  std::string s;
  for (const auto& g : gate_table()) {
    std::string line = "  " + gate_usage(g);
    line.resize(std::max(line.size() + 1, kIndent), ' ');
    size_t at = 0;
    while (at < g.help.size()) {
      size_t end = g.help.size();
      if (line.size() + (end - at) > kWidth) {
        end = g.help.rfind(' ', at + (kWidth - line.size()));
        if (end == std::string::npos || end <= at) end = g.help.find(' ', at);
        if (end == std::string::npos) end = g.help.size();
      }
      line += g.help.substr(at, end - at);
      s += line + "\n";
      line = std::string(kIndent, ' ');
      at = end + (end < g.help.size());
    }
  }
  return s;
}

std::optional<double> effective_limit(const RowRecord& row, const GateSet& gs) {
  std::optional<double> L = gs.limit;
  for (const auto& [kv, v] : gs.limit_by_tag) {
    auto eq = kv.find('=');
    auto it = row.tags.find(kv.substr(0, eq));
    if (it != row.tags.end() && it->second == kv.substr(eq + 1)) L = v;
  }
  return L;
}

bool recorded(const GateDef& g, const GateSet& gs) {
  return g.in_every_row || std::find(gs.gates.begin(), gs.gates.end(), g.name) != gs.gates.end();
}

GateResult judge_pair(const GateDef& g, const RowRecord& row, const PairRecord& p, const Policy& policy,
                      const GateSet& gs) {
  GateResult r;
  if (auto it = row.refused.find(p.baseline); it != row.refused.end()) {
    r.passed = policy.accepts_refusal(p.baseline);
    r.reason =
        "refused the row (" + it->second + "), a refusal this policy " + (r.passed ? "accepts" : "does not accept");
  } else if (!p.ratio || !p.ratio_ci || !p.baseline_stats || !p.candidate_stats || !p.drift || !p.groups_agree) {
    r.judged = false;
    r.reason = "not measured (disposition " + to_string(row.disposition) + ")";
  } else {
    r = g.judge({row, p, gs, effective_limit(row, gs)});
  }
  r.gate = g.name;
  r.baseline = p.baseline;
  return r;
}

std::vector<GateResult> correctness_results(const RowRecord& row) {
  std::vector<GateResult> out;
  for (const auto& c : row.correctness) {
    if (c.result.passed) continue;
    GateResult r;
    r.gate = "correct";
    r.arm = c.arm;
    r.correctness = c.result;
    r.tolerance = row.tolerance;
    out.push_back(std::move(r));
  }
  if (out.empty()) {
    GateResult r;
    r.gate = "correct";
    r.judged = false;
    r.reason = row.correctness.empty() ? "not checked" : "no arm's check failed (the row did not reach its check)";
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace kgate
