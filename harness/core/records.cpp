#include "harness/core/records.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "harness/core/errors.hpp"
#include "harness/core/text.hpp"

namespace kgate {

constexpr uint64_t kNsPerS = 1000000000;  // SideSeries::intervals_ns: (s, ns) integers

std::vector<uint64_t> SideSeries::flatten_intervals(const std::vector<std::pair<uint64_t, uint64_t>>& iv) {
  std::vector<uint64_t> flat;
  for (const auto& [a, z] : iv) flat.insert(flat.end(), {a / kNsPerS, a % kNsPerS, z / kNsPerS, z % kNsPerS});
  return flat;
}

void SideSeries::append_intervals(const std::vector<uint64_t>& f, int device, std::vector<Interval>& out) {
  for (size_t i = 0; i + 3 < f.size(); i += 4)
    out.push_back({f[i] * kNsPerS + f[i + 1], f[i + 2] * kNsPerS + f[i + 3], device});
}

namespace {

const char* const kDispositions[] = {"passed", "incorrect", "failed", "not_supported", "invalid_problem", "skipped"};

// A checked view of one json object: every accessor names the full field path on failure, so
// a receipt with a renamed or retyped key is refused with a message, never read out of bounds.
// Receipts are audited (a bad shape is an AuditError); journals are inputs (an InputError).
enum class Source { receipt, journal };

class Reader {
 public:
  Reader(const json& j, std::string where, Source src = Source::receipt) : j_(j), where_(std::move(where)), src_(src) {
    if (!j_.is_object()) fail("", "not an object");
  }
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    std::string m = where_ + (key.empty() ? "" : (where_.empty() ? "field " : ": field ") + quoted(key)) + ": " + what;
    if (src_ == Source::journal) throw InputError(m);
    throw AuditError(m);
  }
  const json& at(const std::string& k) const {
    auto it = j_.find(k);
    if (it == j_.end()) fail(k, "missing");
    return *it;
  }
  bool has_value(const std::string& k) const {
    auto it = j_.find(k);
    return it != j_.end() && !it->is_null();
  }
  std::string str(const std::string& k) const {
    const json& v = at(k);
    if (!v.is_string()) fail(k, "not a string");
    return v.get<std::string>();
  }
  double num(const std::string& k) const {
    const json& v = at(k);
    if (!v.is_number() || !std::isfinite(v.get<double>())) fail(k, "not a finite number");
    return v.get<double>();
  }
  int64_t integer(const std::string& k) const {
    const json& v = at(k);
    if (!v.is_number_integer()) fail(k, "not an integer");
    return v.get<int64_t>();
  }
  bool boolean(const std::string& k) const {
    const json& v = at(k);
    if (!v.is_boolean()) fail(k, "not true or false");
    return v.get<bool>();
  }
  const json& obj(const std::string& k) const {
    const json& v = at(k);
    if (!v.is_object()) fail(k, "not an object");
    return v;
  }
  const json& arr(const std::string& k) const {
    const json& v = at(k);
    if (!v.is_array()) fail(k, "not an array");
    return v;
  }
  std::vector<double> nums(const std::string& k) const {
    std::vector<double> out;
    for (const auto& x : arr(k)) {
      if (!x.is_number() || !std::isfinite(x.get<double>())) fail(k, "an entry is not a finite number");
      out.push_back(x.get<double>());
    }
    return out;
  }
  // An object of strings (arm -> reason).
  std::map<std::string, std::string> str_map(const std::string& k) const {
    std::map<std::string, std::string> out;
    const json& o = obj(k);
    for (auto it = o.begin(); it != o.end(); ++it) {
      if (!it.value().is_string()) fail(k + "." + it.key(), "not a string");
      out[it.key()] = it.value().get<std::string>();
    }
    return out;
  }
  std::vector<std::string> strs(const std::string& k) const {
    std::vector<std::string> out;
    for (const auto& x : arr(k)) {
      if (!x.is_string()) fail(k, "an entry is not a string");
      out.push_back(x.get<std::string>());
    }
    return out;
  }
  // A non-empty array of non-empty arrays of sample times (finite, >= 0). With allow_empty, either
  // may be empty: the lists of a pair whose baseline refused the row (derive_row checks which).
  std::vector<std::vector<double>> sample_lists(const std::string& k, bool allow_empty = false) const {
    std::vector<std::vector<double>> out;
    for (const auto& g : arr(k)) {
      if (!g.is_array() || (g.empty() && !allow_empty)) fail(k, "an entry is not a non-empty array");
      std::vector<double> v;
      for (const auto& x : g) {
        if (!x.is_number() || !std::isfinite(x.get<double>()) || x.get<double>() < 0)
          fail(k, "a sample is not a finite number >= 0");
        v.push_back(x.get<double>());
      }
      out.push_back(std::move(v));
    }
    if (out.empty() && !allow_empty) fail(k, "empty");
    return out;
  }
  Reader sub(const std::string& k) const { return Reader(obj(k), path(k), src_); }
  Reader element(const json& v, const std::string& k, size_t i) const {
    return Reader(v, path(k) + "[" + std::to_string(i) + "]", src_);
  }
  std::string path(const std::string& k) const { return where_ + (where_.empty() ? "" : ".") + k; }
  const json& raw() const { return j_; }

 private:
  const json& j_;
  std::string where_;
  Source src_;
};

using AuditReader = Reader;

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

Correctness correctness_from(const Reader& r) {
  Correctness c;
  c.passed = r.boolean("passed");
  c.max_abs_err = r.num("max_abs_err");
  c.max_rel_err = r.num("max_rel_err");
  c.worst = r.str("worst");
  c.worst_out = r.num("worst_out");
  c.worst_ref = r.num("worst_ref");
  c.elements = r.integer("elements");
  c.mismatches = r.integer("mismatches");
  c.nonfinite = r.integer("nonfinite");
  c.unwritten = r.integer("unwritten");
  c.note = r.str("note");
  return c;
}

// An array of objects, each read by `one`.
template <class T, class F>
std::vector<T> list_from(const Reader& r, const std::string& key, F&& one) {
  std::vector<T> out;
  const json& a = r.arr(key);
  for (size_t i = 0; i < a.size(); ++i) out.push_back(one(r.element(a[i], key, i)));
  return out;
}

std::vector<ArmCheck> checks_from(const Reader& r, const std::string& key) {
  return list_from<ArmCheck>(r, key, [](const Reader& e) { return ArmCheck{e.str("arm"), correctness_from(e)}; });
}

json checks_json(const std::vector<ArmCheck>& v) {
  json out = json::array();
  for (const auto& c : v) out.push_back(c.result.to_json(c.arm));
  return out;
}

json signature_counts_json(const std::map<std::string, std::vector<SignatureCount>>& m) {
  json out = json::object();
  for (const auto& [arm, v] : m) {
    json a = json::array();
    for (const auto& s : v)
      a.push_back({{"records", s.signature.records},
                   {"launches", s.signature.launches},
                   {"kernel_names", s.signature.kernel_names},
                   {"calls", s.calls}});
    out[arm] = a;
  }
  return out;
}

std::map<std::string, std::vector<SignatureCount>> signature_counts_from(const Reader& r, const std::string& key) {
  std::map<std::string, std::vector<SignatureCount>> out;
  Reader m = r.sub(key);
  for (auto it = m.raw().begin(); it != m.raw().end(); ++it) {
    if (!it.value().is_array()) m.fail(it.key(), "not an array");
    auto& v = out[it.key()];
    for (size_t i = 0; i < it.value().size(); ++i) {
      Reader e = m.element(it.value()[i], it.key(), i);
      SignatureCount s;
      s.signature.records = e.integer("records");
      s.signature.launches = e.integer("launches");
      s.signature.kernel_names = e.strs("kernel_names");
      s.calls = e.integer("calls");
      v.push_back(std::move(s));
    }
  }
  return out;
}

// Per-call activity maps as one series per name over the calls (0 where a call did not run it).
json activity_series_json(const std::vector<std::map<std::string, double>>& calls) {
  json out = json::object();
  for (size_t c = 0; c < calls.size(); ++c)
    for (const auto& [name, us] : calls[c]) {
      json& v = out[name];
      if (v.is_null()) v = std::vector<double>(calls.size(), 0.0);
      v[c] = us;
    }
  return out;
}

json side_json(const std::map<std::string, SideSeries>& m) {
  json out = json::object();
  for (const auto& [arm, s] : m) {
    out[arm] = {{"events_us", s.events_us}, {"self_us", s.self_us}, {"sm_clock_mhz", s.sm_clock_mhz}};
    // Written only where present: receipts without ranks keep their form.
    if (!s.intervals_ns.empty()) out[arm]["intervals_ns"] = s.intervals_ns;
    if (!s.cross_device_us.empty()) out[arm]["cross_device_us"] = s.cross_device_us;
    if (!s.activity_us.empty()) out[arm]["activity_us"] = activity_series_json(s.activity_us);
  }
  return out;
}

std::map<std::string, SideSeries> side_from(const Reader& r, const std::string& key) {
  std::map<std::string, SideSeries> out;
  Reader m = r.sub(key);
  for (auto it = m.raw().begin(); it != m.raw().end(); ++it) {
    Reader a = m.sub(it.key());
    SideSeries s{a.nums("events_us"), a.nums("self_us"), a.nums("sm_clock_mhz"), {}, {}};
    if (a.has_value("cross_device_us")) s.cross_device_us = a.nums("cross_device_us");
    if (a.has_value("activity_us")) {
      Reader act = a.sub("activity_us");
      for (auto n = act.raw().begin(); n != act.raw().end(); ++n) {
        const std::vector<double> v = act.nums(n.key());
        if (v.empty()) act.fail(n.key(), "its series has no calls");
        if (s.activity_us.empty()) s.activity_us.resize(v.size());
        if (v.size() != s.activity_us.size())
          act.fail(n.key(), "its series has another number of calls than the others");
        for (size_t c = 0; c < v.size(); ++c) s.activity_us[c][n.key()] = v[c];
      }
    }
    if (a.has_value("intervals_ns"))
      for (const auto& call : a.arr("intervals_ns")) {
        if (!call.is_array() || call.size() % 4)
          a.fail("intervals_ns", "an entry is not an array of (start_s, start_ns, end_s, end_ns) quadruples");
        std::vector<uint64_t> v;
        for (const auto& x : call) {
          if (!x.is_number_unsigned()) a.fail("intervals_ns", "an entry is not a non-negative integer");
          v.push_back(x.get<uint64_t>());
        }
        s.intervals_ns.push_back(std::move(v));
      }
    out[it.key()] = std::move(s);
  }
  return out;
}

json side_summary_json(const std::optional<std::map<std::string, SideSummary>>& m) {
  if (!m) return nullptr;
  json out = json::object();
  for (const auto& [arm, s] : *m) out[arm] = {{"median", s.median}, {"min", s.min}, {"max", s.max}, {"n", s.n}};
  return out;
}

std::optional<std::map<std::string, SideSummary>> side_summary_from(const AuditReader& r, const std::string& key) {
  if (!r.has_value(key)) {
    r.at(key);  // present, as null
    return std::nullopt;
  }
  std::map<std::string, SideSummary> out;
  AuditReader m = r.sub(key);
  for (auto it = m.raw().begin(); it != m.raw().end(); ++it) {
    AuditReader a = m.sub(it.key());
    out[it.key()] = {a.num("median"), a.num("min"), a.num("max"), a.integer("n")};
  }
  return out;
}

json stats_json(const std::optional<SampleStats>& s) {
  if (!s) return nullptr;
  return {{"n", s->n},           {"median_us", s->median_us}, {"q1_us", s->q1_us},  {"q3_us", s->q3_us},
          {"iqr_us", s->iqr_us}, {"min_us", s->min_us},       {"max_us", s->max_us}};
}

std::optional<SampleStats> stats_from(const AuditReader& r, const std::string& key) {
  if (!r.has_value(key)) {
    r.at(key);
    return std::nullopt;
  }
  AuditReader s = r.sub(key);
  return SampleStats{s.integer("n"),  s.num("median_us"), s.num("q1_us"), s.num("q3_us"),
                     s.num("iqr_us"), s.num("min_us"),    s.num("max_us")};
}

std::optional<double> opt_num(const AuditReader& r, const std::string& k) {
  if (!r.has_value(k)) {
    r.at(k);
    return std::nullopt;
  }
  return r.num(k);
}

// Seeds as 0x-prefixed hex strings: a full 64-bit seed is not exact as a JSON number read back.
std::string seed_hex(uint64_t s) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(s));
  return buf;
}

uint64_t seed_from(const Reader& r, const std::string& k, const json& v) {
  const std::string t = v.is_string() ? v.get<std::string>() : "";
  if (t.size() != 18 || t.rfind("0x", 0) != 0 || t.find_first_not_of("0123456789abcdef", 2) != std::string::npos)
    r.fail(k, "a seed is not a 0x-prefixed 16-digit hex string");
  return std::stoull(t.substr(2), nullptr, 16);
}

json seeds_json(const std::vector<uint64_t>& seeds) {
  json out = json::array();
  for (uint64_t s : seeds) out.push_back(seed_hex(s));
  return out;
}

std::vector<uint64_t> seeds_from(const Reader& r, const std::string& k) {
  std::vector<uint64_t> out;
  for (const auto& v : r.arr(k)) out.push_back(seed_from(r, k, v));
  return out;
}

json call_proof_json(const CallProof& c) {
  return {{"timed_calls", c.timed},
          {"verified_calls", c.verified},
          {"failed_calls", c.failed},
          {"first_failure", c.first_failure.empty() ? json(nullptr) : json(c.first_failure)}};
}

CallProof call_proof_from(const Reader& r) {
  CallProof c{r.integer("timed_calls"), r.integer("verified_calls"), r.integer("failed_calls"), ""};
  if (r.has_value("first_failure"))
    c.first_failure = r.str("first_failure");
  else
    r.at("first_failure");
  if (c.timed < 0 || c.verified < 0 || c.failed < 0 || c.verified > c.timed || c.failed > c.verified)
    r.fail("verified_calls", "counts not 0 <= failed <= verified <= timed");
  if ((c.failed > 0) != !c.first_failure.empty())
    r.fail("first_failure", "must name the first failure exactly when a verified call failed");
  return c;
}

json seed_checks_json(const std::vector<SeedCheck>& v) {
  json out = json::array();
  for (const auto& c : v)
    out.push_back({{"set", c.set}, {"passed", c.passed}, {"mismatches", c.mismatches}, {"max_abs_err", c.max_abs_err}});
  return out;
}

std::vector<SeedCheck> seed_checks_from(const Reader& r, const std::string& k) {
  return list_from<SeedCheck>(r, k, [](const Reader& e) {
    return SeedCheck{static_cast<int>(e.integer("set")), e.boolean("passed"), e.integer("mismatches"),
                     e.num("max_abs_err")};
  });
}

std::map<std::string, std::vector<SeedCheck>> seed_check_map_from(const Reader& r, const std::string& k) {
  std::map<std::string, std::vector<SeedCheck>> out;
  Reader m = r.sub(k);
  for (auto it = m.raw().begin(); it != m.raw().end(); ++it) out[it.key()] = seed_checks_from(m, it.key());
  return out;
}

json row_proof_json(const RowProof& p) {
  json arms = json::object();
  for (const auto& [arm, a] : p.arms) {
    arms[arm] = call_proof_json(a.calls);
    arms[arm]["checks"] = seed_checks_json(a.checks);
  }
  return {{"input_sets", p.input_sets}, {"seeds", seeds_json(p.seeds)}, {"arms", arms}};
}

RowProof row_proof_from(const Reader& r) {
  RowProof p;
  p.input_sets = static_cast<int>(r.integer("input_sets"));
  p.seeds = seeds_from(r, "seeds");
  if (p.input_sets < 2 || p.seeds.size() != static_cast<size_t>(p.input_sets))
    r.fail("seeds", "not one seed per input set (at least 2)");
  Reader arms = r.sub("arms");
  for (auto it = arms.raw().begin(); it != arms.raw().end(); ++it) {
    Reader a = arms.sub(it.key());
    p.arms[it.key()] = {seed_checks_from(a, "checks"), call_proof_from(a)};
  }
  return p;
}
}  // namespace

std::string to_string(Disposition d) { return kDispositions[static_cast<int>(d)]; }

Disposition disposition_from_string(const std::string& s) {
  for (int i = 0; i < 6; ++i)
    if (s == kDispositions[i]) return static_cast<Disposition>(i);
  throw std::invalid_argument("unknown disposition '" + s + "'");
}

json Correctness::to_json(const std::string& arm) const {
  return json{{"arm", arm},
              {"passed", passed},
              {"max_abs_err", max_abs_err},
              {"max_rel_err", max_rel_err},
              {"worst", worst},
              {"worst_out", worst_out},
              {"worst_ref", worst_ref},
              {"elements", elements},
              {"mismatches", mismatches},
              {"nonfinite", nonfinite},
              {"unwritten", unwritten},
              {"note", note}};
}

void CallProof::add(const CallProof& o) {
  timed += o.timed;
  verified += o.verified;
  failed += o.failed;
  if (first_failure.empty()) first_failure = o.first_failure;
}

std::string RowProof::failure() const {
  for (const auto& [arm, a] : arms)
    for (const auto& c : a.checks)
      if (!c.passed)
        return "arm " + arm + ": check on input set " + std::to_string(c.set) + " (seed " +
               seed_hex(c.set < static_cast<int>(seeds.size()) ? seeds[c.set] : 0) +
               ") failed: " + std::to_string(c.mismatches) + " elements wrong";
  for (const auto& [arm, a] : arms)
    if (!a.calls.first_failure.empty()) return a.calls.first_failure;
  return "";
}

const Implementation& Plan::impl(const std::string& arm) const {
  for (const auto& a : arms)
    if (a.name == arm) return *a.impl;
  throw std::out_of_range("arm '" + arm + "' is not in this run");
}

// ---- Unit results: the journal's and the isolated child's record -----------------------------

json to_json(const UnitResult& u) {
  json j = {{"kind", "unit"}, {"row", u.row_id}, {"group", u.group}, {"error", u.error}};
  if (u.abandoned) j["abandoned"] = true;  // only between ranks: a journal's merged unit is never abandoned alone
  if (u.check) {
    json cfg = json::object();
    for (const auto& [arm, c] : u.check->configs) cfg[arm] = c;
    j["check"] = {{"disposition", to_string(u.check->disposition)},
                  {"error", u.check->error},
                  {"correctness", checks_json(u.check->checks)},
                  {"config", cfg}};
    if (!u.check->refused.empty()) j["check"]["refused"] = u.check->refused;
    json sc = json::object();
    for (const auto& [arm, v] : u.check->seed_checks) sc[arm] = seed_checks_json(v);
    j["check"]["seeds"] = seeds_json(u.check->seeds);
    j["check"]["seed_checks"] = sc;
  } else {
    j["check"] = nullptr;
  }
  json ranks = json::array();
  for (const auto& r : u.ranks) {
    json proof = json::object();
    for (const auto& [arm, c] : r.proof) proof[arm] = call_proof_json(c);
    ranks.push_back({{"rank", r.rank},
                     {"baseline", r.baseline},
                     {"candidate", r.candidate},
                     {"side", side_json(r.side)},
                     {"signatures", signature_counts_json(r.signatures)},
                     {"proof", proof}});
  }
  j["ranks"] = ranks;
  return j;
}

UnitResult unit_result_from_json(const json& j) {
  Reader r(j, "journal unit record", Source::journal);
  UnitResult u;
  u.row_id = r.str("row");
  u.group = static_cast<int>(r.integer("group"));
  u.error = r.str("error");
  u.abandoned = j.contains("abandoned") && j["abandoned"] == true;
  if (r.has_value("check")) {
    Reader c = r.sub("check");
    RowCheck rc;
    try {
      rc.disposition = disposition_from_string(c.str("disposition"));
    } catch (const std::invalid_argument& e) {
      c.fail("disposition", e.what());
    }
    rc.error = c.str("error");
    rc.checks = checks_from(c, "correctness");
    const json& cfg = c.obj("config");
    for (auto it = cfg.begin(); it != cfg.end(); ++it) rc.configs[it.key()] = it.value();
    if (c.has_value("refused")) rc.refused = c.str_map("refused");
    if (c.has_value("seeds")) rc.seeds = seeds_from(c, "seeds");
    if (c.has_value("seed_checks")) rc.seed_checks = seed_check_map_from(c, "seed_checks");
    u.check = std::move(rc);
  }
  const json& ranks = r.arr("ranks");
  for (size_t i = 0; i < ranks.size(); ++i) {
    Reader e = r.element(ranks[i], "ranks", i);
    RankResult rr;
    rr.rank = static_cast<int>(e.integer("rank"));
    rr.baseline = e.sample_lists("baseline", true);  // a refused baseline's pair has none
    rr.candidate = e.sample_lists("candidate", true);
    rr.side = side_from(e, "side");
    rr.signatures = signature_counts_from(e, "signatures");
    if (e.has_value("proof")) {
      Reader proof = e.sub("proof");
      for (auto it = proof.raw().begin(); it != proof.raw().end(); ++it)
        rr.proof[it.key()] = call_proof_from(proof.sub(it.key()));
    }
    u.ranks.push_back(std::move(rr));
  }
  return u;
}

// ---- Rows ------------------------------------------------------------------------------------

json to_json(const RowRecord& r) {
  json j;
  j["id"] = r.id;
  j["family"] = r.family;
  j["params"] = r.params;
  j["tags"] = json::object();
  for (const auto& [k, v] : r.tags) j["tags"][k] = v;
  j["tolerance"] = {{"atol", r.tolerance.atol}, {"rtol", r.tolerance.rtol}};
  j["correctness"] = checks_json(r.correctness);
  j["config"] = json::object();
  for (const auto& [arm, c] : r.config) j["config"][arm] = c;
  j["disposition"] = to_string(r.disposition);
  j["error"] = r.error ? json(*r.error) : json(nullptr);
  if (!r.refused.empty()) j["refused"] = r.refused;    // rows without a refused baseline have no such field
  if (r.proof) j["proof"] = row_proof_json(*r.proof);  // receipts before the timed-call proof have none
  json pairs = json::array();
  for (const auto& p : r.pairs) {
    json pj = {{"baseline", p.baseline}, {"candidate", p.candidate}};
    pj["baseline_stats"] = stats_json(p.baseline_stats);
    pj["candidate_stats"] = stats_json(p.candidate_stats);
    pj["ratio"] = opt(p.ratio);
    pj["drift"] = opt(p.drift);
    pj["group_ratios"] = p.group_ratios ? json(*p.group_ratios) : json(nullptr);
    pj["groups_agree"] = p.groups_agree ? json(*p.groups_agree) : json(nullptr);
    pj["ratio_ci"] = p.ratio_ci ? json{{"lo", p.ratio_ci->lo}, {"hi", p.ratio_ci->hi}} : json(nullptr);
    pairs.push_back(pj);
  }
  j["pairs"] = pairs;
  j["work"] = r.work ? json{{"bytes", r.work->bytes}, {"flops", r.work->flops}} : json(nullptr);
  if (r.signatures) {
    json s = json::object();
    for (const auto& [arm, g] : *r.signatures)
      s[arm] = {{"A", g.A},
                {"L", g.L},
                {"K", g.K},
                {"names", g.names},
                {"consistent", g.consistent},
                {"undeclared", g.undeclared},
                {"calls", g.calls}};
    j["signatures"] = s;
  } else {
    j["signatures"] = nullptr;
  }
  j["events_timer_us"] = side_summary_json(r.events_timer_us);
  j["self_clock_us"] = side_summary_json(r.self_clock_us);
  j["sm_clock_mhz"] = side_summary_json(r.sm_clock_mhz);
  if (r.cross_device_us) j["cross_device_us"] = side_summary_json(r.cross_device_us);  // ranked rows only
  if (r.activity_us) {  // receipts from before it have none
    json a = json::object();
    for (const auto& [arm, per] : *r.activity_us) a[arm] = side_summary_json(per);
    j["activity_us"] = a;
  }
  j["throttled_samples"] = r.throttled_samples ? json(*r.throttled_samples) : json(nullptr);
  j["verdicts"] = {{"raw", r.verdicts.raw}, {"policy", r.verdicts.policy}, {"failed", r.verdicts.failed}};
  return j;
}

namespace {

PairRecord pair_record_from(AuditReader& p) {
  PairRecord pr;
  pr.baseline = p.str("baseline");
  pr.candidate = p.str("candidate");
  pr.baseline_stats = stats_from(p, "baseline_stats");
  pr.candidate_stats = stats_from(p, "candidate_stats");
  pr.ratio = opt_num(p, "ratio");
  pr.drift = opt_num(p, "drift");
  if (p.has_value("group_ratios"))
    pr.group_ratios = p.nums("group_ratios");
  else
    p.at("group_ratios");
  if (p.has_value("groups_agree"))
    pr.groups_agree = p.boolean("groups_agree");
  else
    p.at("groups_agree");
  if (p.has_value("ratio_ci")) {
    AuditReader ci = p.sub("ratio_ci");
    pr.ratio_ci = RatioInterval{ci.num("lo"), ci.num("hi")};
  } else {
    p.at("ratio_ci");
  }
  return pr;
}

// The row's identity and correctness: everything before its pairs.
void read_row_head(AuditReader& r, const json& j, RowRecord& row) {
  row.id = r.str("id");
  row.family = r.str("family");
  row.params = r.obj("params");
  const json& t = r.obj("tags");
  for (auto it = t.begin(); it != t.end(); ++it) {
    if (!it.value().is_string()) r.fail("tags." + it.key(), "not a string");
    row.tags[it.key()] = it.value().get<std::string>();
  }
  AuditReader tol = r.sub("tolerance");
  row.tolerance = {tol.num("atol"), tol.num("rtol")};
  row.correctness = checks_from(r, "correctness");
  for (auto it = r.obj("config").begin(); it != r.obj("config").end(); ++it) row.config[it.key()] = it.value();
  try {
    row.disposition = disposition_from_string(r.str("disposition"));
  } catch (const std::invalid_argument& e) {
    r.fail("disposition", e.what());
  }
  if (r.has_value("error"))
    row.error = r.str("error");
  else
    r.at("error");
  if (j.contains("refused")) {
    row.refused = r.str_map("refused");
    if (row.refused.empty()) r.fail("refused", "empty (kgate writes the field only for a refusal)");
  }
  if (j.contains("proof")) row.proof = row_proof_from(r.sub("proof"));
}

std::optional<std::map<std::string, SignatureRecord>> signatures_from(AuditReader& r) {
  if (!r.has_value("signatures")) {
    r.at("signatures");
    return std::nullopt;
  }
  std::map<std::string, SignatureRecord> m;
  AuditReader s = r.sub("signatures");
  for (auto it = s.raw().begin(); it != s.raw().end(); ++it) {
    AuditReader a = s.sub(it.key());
    m[it.key()] = {a.integer("A"),  a.integer("L"),       a.integer("K"),         a.integer("calls"),
                   a.strs("names"), a.strs("undeclared"), a.boolean("consistent")};
  }
  return m;
}

// The timer's side figures: events, self clock, SM clock, cross-device union, activity, throttling.
void read_row_sides(AuditReader& r, RowRecord& row) {
  row.events_timer_us = side_summary_from(r, "events_timer_us");
  row.self_clock_us = side_summary_from(r, "self_clock_us");
  row.sm_clock_mhz = side_summary_from(r, "sm_clock_mhz");
  if (r.has_value("cross_device_us")) row.cross_device_us = side_summary_from(r, "cross_device_us");
  if (r.has_value("activity_us")) {
    AuditReader a = r.sub("activity_us");
    std::map<std::string, std::map<std::string, SideSummary>> m;
    for (auto it = a.raw().begin(); it != a.raw().end(); ++it) {
      if (!it.value().is_object()) a.fail(it.key(), "is not an object of activities");
      m[it.key()] = *side_summary_from(a, it.key());
    }
    row.activity_us = std::move(m);
  }
  if (r.has_value("throttled_samples"))
    row.throttled_samples = r.integer("throttled_samples");
  else
    r.at("throttled_samples");
}

}  // namespace

RowRecord row_record_from_json(const json& j) {
  std::string id = j.is_object() && j.contains("id") && j["id"].is_string() ? j["id"].get<std::string>() : "?";
  AuditReader r(j, "row " + quoted(id));
  RowRecord row;
  read_row_head(r, j, row);
  const json& pairs = r.arr("pairs");
  for (size_t i = 0; i < pairs.size(); ++i) {
    AuditReader p = r.element(pairs[i], "pairs", i);
    row.pairs.push_back(pair_record_from(p));
  }
  if (r.has_value("work")) {
    AuditReader w = r.sub("work");
    row.work = Work{w.num("bytes"), w.num("flops")};
  } else {
    r.at("work");
  }
  row.signatures = signatures_from(r);
  read_row_sides(r, row);
  AuditReader v = r.sub("verdicts");
  row.verdicts.raw = v.obj("raw");
  row.verdicts.policy = v.boolean("policy");
  row.verdicts.failed = v.strs("failed");
  return row;
}

json to_json(const RowSamples& s) {
  json pairs = json::array();
  for (size_t p = 0; p < s.baseline.size(); ++p)
    pairs.push_back({{"baseline", s.baseline[p]}, {"candidate", s.candidate[p]}});
  return {{"world_size", s.world_size},
          {"pairs", pairs},
          {"side", side_json(s.side)},
          {"signatures", signature_counts_json(s.signatures)}};
}

RowSamples row_samples_from_json(const json& j, const std::string& row_id) {
  AuditReader r(j, "samples of row " + quoted(row_id));
  RowSamples s;
  s.world_size = static_cast<int>(r.integer("world_size"));
  const json& pairs = r.arr("pairs");
  for (size_t i = 0; i < pairs.size(); ++i) {
    AuditReader p = r.element(pairs[i], "pairs", i);
    s.baseline.push_back(p.sample_lists("baseline", true));  // per group; none for a refused baseline
    s.candidate.push_back(p.sample_lists("candidate", true));
  }
  s.side = side_from(r, "side");
  s.signatures = signature_counts_from(r, "signatures");
  return s;
}

// ---- Summary ---------------------------------------------------------------------------------

json to_json(const Summary& s) {
  json j;
  j["rows"] = s.rows;
  j["policy_passed"] = s.policy_passed;
  j["policy_failed"] = s.policy_failed;
  j["dispositions"] = json::object();
  for (const auto& [k, v] : s.dispositions) j["dispositions"][k] = v;
  j["gate_failures"] = json::object();
  for (const auto& [k, v] : s.gate_failures) j["gate_failures"][k] = v;
  json pairs = json::object();
  for (const auto& [name, b] : s.by_baseline) {
    json p;
    p["measured_rows"] = b.measured_rows;
    p["unmeasured_rows"] = b.unmeasured_rows;
    p["geomean_ratio"] = opt(b.geomean_ratio);
    p["min_ratio"] = opt(b.min_ratio);
    p["min_ratio_row"] = b.min_ratio_row ? json(*b.min_ratio_row) : json(nullptr);
    p["sum_baseline_median_us"] = b.sum_baseline_median_us;
    p["sum_candidate_median_us"] = b.sum_candidate_median_us;
    p["by_tag"] = json::object();
    for (const auto& [tag, t] : b.by_tag) p["by_tag"][tag] = {{"rows", t.rows}, {"geomean_ratio", t.geomean_ratio}};
    pairs[name] = p;
  }
  j["by_baseline"] = pairs;
  return j;
}

Summary summary_from_json(const json& j) {
  AuditReader r(j, "summary");
  Summary s;
  s.rows = r.integer("rows");
  s.policy_passed = r.integer("policy_passed");
  s.policy_failed = r.integer("policy_failed");
  for (const char* k : {"dispositions", "gate_failures"}) {
    const json& m = r.obj(k);
    for (auto it = m.begin(); it != m.end(); ++it) {
      if (!it.value().is_number_integer()) r.fail(std::string(k) + "." + it.key(), "not an integer");
      (std::string(k) == "dispositions" ? s.dispositions : s.gate_failures)[it.key()] = it.value().get<int64_t>();
    }
  }
  AuditReader bb = r.sub("by_baseline");
  for (auto it = bb.raw().begin(); it != bb.raw().end(); ++it) {
    AuditReader b = bb.sub(it.key());
    BaselineSummary x;
    x.measured_rows = b.integer("measured_rows");
    x.unmeasured_rows = b.integer("unmeasured_rows");
    x.geomean_ratio = opt_num(b, "geomean_ratio");
    x.min_ratio = opt_num(b, "min_ratio");
    if (b.has_value("min_ratio_row")) x.min_ratio_row = b.str("min_ratio_row");
    x.sum_baseline_median_us = b.num("sum_baseline_median_us");
    x.sum_candidate_median_us = b.num("sum_candidate_median_us");
    AuditReader t = b.sub("by_tag");
    for (auto ti = t.raw().begin(); ti != t.raw().end(); ++ti) {
      AuditReader e = t.sub(ti.key());
      x.by_tag[ti.key()] = {e.integer("rows"), e.num("geomean_ratio")};
    }
    s.by_baseline[it.key()] = std::move(x);
  }
  return s;
}

}  // namespace kgate
