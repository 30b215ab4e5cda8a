#include "harness/core/policy.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/gates.hpp"
#include "harness/core/json_io.hpp"
#include "harness/core/suggest.hpp"
#include "harness/core/text.hpp"

namespace kgate {

const std::vector<std::string>& all_gate_names() {
  static const std::vector<std::string> g = [] {
    std::vector<std::string> names;
    for (const auto& d : gate_table()) names.push_back(d.name);
    return names;
  }();
  return g;
}

// A gate's value under its own name ("limit": 0.05); null where unset, for the gates every policy
// has always written.
static json gateset_json(const GateSet& g) {
  json j;
  j["gates"] = g.gates;
  for (const auto& d : gate_table())
    if (d.value && (g.*d.value || d.in_every_row)) j[d.name] = g.*d.value ? json(*(g.*d.value)) : json(nullptr);
  j["limit_by_tag"] = json::object();
  for (const auto& [k, v] : g.limit_by_tag) j["limit_by_tag"][k] = v;
  return j;
}

json Policy::to_json() const {
  json j = gateset_json(*this);
  if (!by_baseline.empty()) {
    j["by_baseline"] = json::object();
    for (const auto& [name, g] : by_baseline) j["by_baseline"][name] = gateset_json(g);
  }
  if (!accept_refusals.empty()) j["accept_refusals"] = accept_refusals;
  return j;
}

bool Policy::accepts_refusal(const std::string& arm) const {
  const auto colon = arm.rfind(':');
  const std::string bare = colon == std::string::npos ? arm : arm.substr(colon + 1);
  for (const auto& a : accept_refusals)
    if (a == arm || a == bare) return true;
  return false;
}

void check_accept_refusals(const Policy& p, const std::string& candidate, const std::vector<std::string>& baselines,
                           const std::string& where) {
  for (const auto& entry : p.accept_refusals) {
    Policy one;
    one.accept_refusals = {entry};
    if (one.accepts_refusal(candidate))
      throw InputError(where + ": accept_refusals entry " + quoted(entry) + " matches the candidate " +
                       quoted(candidate) + ": only a baseline's refusal can be accepted (name the baseline in full)");
    if (std::none_of(baselines.begin(), baselines.end(), [&](const std::string& b) { return one.accepts_refusal(b); }))
      throw InputError(where + ": accept_refusals names " + quoted(entry) + ", which matches no baseline (" +
                       join(baselines, ", ") + ")");
  }
}

void check_gate_name(const std::string& g, const std::string& where) {
  for (const auto& n : all_gate_names())
    if (n == g) return;
  const std::string hint = did_you_mean(g, all_gate_names());
  throw InputError(where + ": unknown gate " + quoted(g) +
                   (hint.empty() ? " (known: " + gate_names_text() + ")" : hint));
}

// A gate value: a finite number >= 0 (NaN would make every comparison false, inf every limit true).
static bool valid_value(const json& v) {
  return v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() >= 0;
}

// A misspelt key ("accept_refusal", "limits") would otherwise be a gate silently not applied.
static void check_keys(const json& j, const std::vector<std::string>& known, const std::string& where) {
  for (auto it = j.begin(); it != j.end(); ++it)
    if (std::find(known.begin(), known.end(), it.key()) == known.end()) {
      const std::string hint = did_you_mean(it.key(), known);
      throw InputError(where + ": unknown field " + quoted(it.key()) +
                       (hint.empty() ? " (known: " + join(known, ", ") + ")" : hint));
    }
}

static GateSet gateset_from_json(const json& j, const std::string& where, bool pair_gates_only) {
  GateSet p;
  if (!j.is_object()) throw InputError(where + ": must be a JSON object with a field 'gates'");
  std::vector<std::string> keys = {"description", "gates", "limit_by_tag"};
  for (const auto& d : gate_table())
    if (d.value) keys.push_back(d.name);
  if (!pair_gates_only) keys.insert(keys.end(), {"by_baseline", "accept_refusals"});
  // Unknown keys first: a misspelt "gatez" is named as such, not reported as 'gates' missing.
  check_keys(j, keys, where);
  if (!j.contains("gates") || !j["gates"].is_array())
    throw InputError(where + ": field 'gates': missing or not an array");
  std::set<std::string> seen;
  for (const auto& g : j["gates"]) {
    if (!g.is_string()) throw InputError(where + ": field 'gates': entries must be strings");
    check_gate_name(g.get<std::string>(), where);
    if (pair_gates_only && g == "correct")
      throw InputError(where + ": 'correct' judges the whole row: name it in the top-level gates");
    if (seen.insert(g.get<std::string>()).second) p.gates.push_back(g.get<std::string>());
  }
  auto num = [&](const char* k) -> std::optional<double> {
    if (!j.contains(k) || j[k].is_null()) return std::nullopt;
    if (!valid_value(j[k])) throw InputError(where + ": field '" + k + "': must be a finite number >= 0");
    return j[k].get<double>();
  };
  for (const auto& d : gate_table())
    if (d.value) p.*d.value = num(d.name.c_str());
  if (j.contains("limit_by_tag")) {
    if (!j["limit_by_tag"].is_object()) throw InputError(where + ": field 'limit_by_tag': must be an object");
    for (auto it = j["limit_by_tag"].begin(); it != j["limit_by_tag"].end(); ++it) {
      if (!valid_value(it.value()) || it.key().find('=') == std::string::npos)
        throw InputError(where + ": field " + quoted("limit_by_tag." + it.key()) +
                         ": needs key=value and a finite number >= 0");
      p.limit_by_tag[it.key()] = it.value().get<double>();
    }
  }
  for (const auto& g : p.gates) {
    const GateDef& d = *find_gate(g);
    // A limit may come from limit_by_tag alone (rows without those tags then have none).
    if (d.value && !(p.*d.value) && !(d.value == &GateSet::limit && !p.limit_by_tag.empty()))
      throw InputError(where + ": gate " + quoted(g) + " needs a value: " + gate_usage(d) + " or field " + quoted(g));
  }
  return p;
}

Policy Policy::from_json(const json& j, const std::string& where) {
  Policy p;
  static_cast<GateSet&>(p) = gateset_from_json(j, where, false);
  if (j.contains("by_baseline")) {
    if (!j["by_baseline"].is_object() || j["by_baseline"].empty())
      throw InputError(where + ": field 'by_baseline': must be an object naming baselines");
    for (auto it = j["by_baseline"].begin(); it != j["by_baseline"].end(); ++it)
      p.by_baseline[it.key()] = gateset_from_json(it.value(), where + ": by_baseline." + quoted(it.key()), true);
  }
  if (j.contains("accept_refusals")) {
    const json& a = j["accept_refusals"];
    if (!a.is_array() || a.empty())
      throw InputError(where + ": field 'accept_refusals': must be a non-empty array of baseline arm names");
    for (const auto& n : a) {
      if (!n.is_string() || n.get<std::string>().empty())
        throw InputError(where + ": field 'accept_refusals': entries must be non-empty arm names");
      if (std::find(p.accept_refusals.begin(), p.accept_refusals.end(), n.get<std::string>()) ==
          p.accept_refusals.end())
        p.accept_refusals.push_back(n.get<std::string>());
    }
  }
  return p;
}

Policy Policy::parse(const std::string& spec) {
  if (spec.empty()) throw InputError("--policy: empty");
  if (spec.size() > kMaxPolicySpecBytes)
    throw InputError("--policy: " + std::to_string(spec.size()) + " bytes; a spec or policy file path is at most " +
                     std::to_string(kMaxPolicySpecBytes) + " bytes");
  std::error_code ec;  // a spec too long for a path is a spec, not a filesystem error
  if (std::filesystem::is_regular_file(spec, ec))
    return from_json(parse_json_bounded(read_file(spec), printable(spec)), printable(spec));
  json j;
  j["gates"] = json::array();
  auto empty_gate = [&] {
    return InputError("--policy: " + quoted(spec) + ": an empty gate name (two commas, or a comma at an end)");
  };
  if (spec.back() == ',') throw empty_gate();
  size_t s = 0;
  while (s < spec.size()) {
    size_t e = spec.find(',', s);
    if (e == std::string::npos) e = spec.size();
    std::string tok = spec.substr(s, e - s);
    s = e + 1;
    if (tok.empty()) throw empty_gate();
    auto lp = tok.find('(');
    if (lp != std::string::npos) {
      if (tok.back() != ')') throw InputError("--policy: " + quoted(tok) + ": expected name(value)");
      std::string name = tok.substr(0, lp), val = tok.substr(lp + 1, tok.size() - lp - 2);
      double v;
      try {
        size_t used = 0;
        v = std::stod(val, &used);
        if (used != val.size()) throw std::invalid_argument(val);
      } catch (const std::exception&) {
        throw InputError("--policy: " + quoted(tok) + ": value is not a number");
      }
      check_gate_name(name, "--policy");  // an unknown gate, with the nearest names
      if (!find_gate(name)->value) {
        std::string valued;
        for (const auto& d : gate_table())
          if (d.value) valued += (valued.empty() ? "" : " and ") + gate_usage(d);
        throw InputError("--policy: " + quoted(tok) + ": only " + valued + " take a value");
      }
      if (!std::isfinite(v) || v < 0)
        throw InputError("--policy: " + quoted(tok) + ": value must be a finite number >= 0");
      j[name] = v;
      j["gates"].push_back(name);
    } else {
      j["gates"].push_back(tok);
    }
  }
  return from_json(j, "--policy");
}

}  // namespace kgate
