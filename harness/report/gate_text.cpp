#include "harness/report/gate_text.hpp"

#include "harness/report/report_text.hpp"

namespace kgate {
namespace {

namespace rt = report_text;

std::string alk(const SignatureRecord& s) {
  return "A/L/K " + std::to_string(s.A) + "/" + std::to_string(s.L) + "/" + std::to_string(s.K) +
         (s.consistent ? "" : " (inconsistent across calls)");
}

// An arm's failed check against the oracle.
std::string correctness_text(const GateResult& r) {
  const Correctness& k = *r.correctness;
  std::string s =
      r.arm + ": " + std::to_string(k.mismatches) + " of " + std::to_string(k.elements) + " elements outside tolerance";
  if (r.tolerance)
    s += " (atol " + rt::shortest(r.tolerance->atol) + " + rtol " + rt::shortest(r.tolerance->rtol) + " x abs(ref))";
  s += ", " + std::to_string(k.nonfinite) + " non-finite, " + std::to_string(k.unwritten) + " unwritten; max abs err " +
       rt::shortest(k.max_abs_err) + ", max rel err " + rt::shortest(k.max_rel_err);
  if (!k.worst.empty())
    s += "; worst " + k.worst + ": out " + rt::shortest(k.worst_out) + ", ref " + rt::shortest(k.worst_ref);
  if (!k.note.empty()) s += "; " + k.note;
  return s;
}

// What was compared with what, then the pair's figures that the gate read.
std::string comparison_text(const GateResult& r) {
  std::string s = r.measure + " " + rt::sig4(*r.value) + (r.holds ? " " : " is not ") + r.relation + " " +
                  rt::shortest(*r.threshold);
  std::string facts;
  if (r.ratio) facts = "ratio " + rt::sig4(*r.ratio);
  if (r.interval)
    facts += ", " + rt::shortest(r.level * 100) + "% interval [" + rt::sig4(r.interval->lo) + ", " +
             rt::sig4(r.interval->hi) + "]";
  if (r.candidate_us && r.baseline_us)
    facts += (facts.empty() ? "" : "; ") + std::string("candidate ") + rt::sig4(*r.candidate_us) + " us, baseline " +
             rt::sig4(*r.baseline_us) + " us";
  if (!facts.empty()) s += " (" + facts + ")";
  return s;
}

std::string activity_text(const GateResult& r) {
  std::string s;
  if (r.candidate_signature) {
    s = "candidate " + alk(*r.candidate_signature);
    if (!r.candidate_signature->undeclared.empty())
      s += ", undeclared kernels: " + join(r.candidate_signature->undeclared, ", ");
  }
  if (r.baseline_signature) s += (s.empty() ? "" : "; ") + std::string("baseline ") + alk(*r.baseline_signature);
  return s;
}

}  // namespace

std::string gate_text(const GateResult& r) {
  if (r.gate == "disposition")
    return "disposition " + r.disposition + ": " + (r.error.empty() ? "no error recorded" : r.error);
  const std::string label = r.label.empty() ? r.gate : r.label;
  std::string s =
      label + (r.baseline.empty() || label.find('@') != std::string::npos ? "" : " vs " + r.baseline) + ": ";
  if (!r.judged) return s + "not judged: " + r.reason;
  if (r.correctness) return s + correctness_text(r);
  std::string facts = r.value && r.threshold ? comparison_text(r) : "";
  if (!r.reason.empty()) facts += (facts.empty() ? "" : "; ") + r.reason;
  if (r.group_ratios) {
    std::vector<std::string> g;
    for (double x : *r.group_ratios) g.push_back(rt::sig4(x));
    facts += " (group ratios " + join(g, ", ") + ")";
  }
  const std::string act = activity_text(r);
  if (!act.empty()) facts += (facts.empty() ? "" : ": ") + act;
  return s + (facts.empty() ? (r.passed ? "passed" : "failed") : facts);
}

json gate_json(const GateResult& r) {
  auto opt = [](const std::optional<double>& x) { return x ? json(*x) : json(nullptr); };
  json j = {{"gate", r.gate},
            {"label", r.label.empty() ? r.gate : r.label},
            {"baseline", r.baseline},
            {"judged", r.judged},
            {"passed", r.passed},
            {"measure", r.measure},
            {"relation", r.relation},
            {"value", opt(r.value)},
            {"threshold", opt(r.threshold)},
            {"ratio", opt(r.ratio)},
            {"ratio_ci", r.interval ? json{{"lo", r.interval->lo}, {"hi", r.interval->hi}} : json(nullptr)},
            {"text", gate_text(r)}};
  if (!r.arm.empty()) j["arm"] = r.arm;
  return j;
}

}  // namespace kgate
