// Seeded fuzzing of the two loaders that read files written by others: case tables
// (parse_case_table must accept or throw InputError, nothing else) and receipts (audit_receipt
// must return problems, never crash or throw). Deterministic: fixed seeds, no clock.
#include <gtest/gtest.h>

#include "tests/unit/temp_dir.hpp"

#include <filesystem>
#include <random>

#include "harness/core/cases.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/json_io.hpp"
#include "harness/core/receipt.hpp"
#include "harness/run/campaign.hpp"

using namespace kgate;
namespace fs = std::filesystem;

namespace {

using Ptr = json::json_pointer;

void collect(const json& j, const Ptr& at, std::vector<Ptr>& out) {
  out.push_back(at);
  if (j.is_object())
    for (auto it = j.begin(); it != j.end(); ++it) collect(it.value(), at / it.key(), out);
  else if (j.is_array())
    for (size_t i = 0; i < j.size(); ++i) collect(j[i], at / i, out);
}

class Fuzzer {
 public:
  explicit Fuzzer(uint64_t seed) : rng_(seed) {}
  size_t below(size_t n) { return n ? static_cast<size_t>(rng_() % n) : 0; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[below(v.size())];
  }

  // A value of some other type or an extreme one.
  json odd_value() {
    switch (below(12)) {
      case 0:
        return nullptr;
      case 1:
        return true;
      case 2:
        return 1e308;
      case 3:
        return -1e308;
      case 4:
        return json::parse("18446744073709551616");  // 2^64: parsed as a double
      case 5:
        return 18446744073709551615ull;
      case 6:
        return -1;
      case 7:
        return "";
      case 8:
        return "NaN";
      case 9:
        return json::array();
      case 10:
        return json::object();
      default:
        return std::string(1 + below(200000), 'x');
    }
  }

  // Serialized doc with the value at `at` replaced by n levels of nesting (built as text: the
  // value itself would be too deep to build, copy or destroy safely).
  static std::string nested_at(json doc, const Ptr& at, size_t n, bool objects) {
    doc[at] = "\x01@DEEP@\x01";
    std::string s = doc.dump(), mark = json("\x01@DEEP@\x01").dump();
    std::string deep;
    if (objects) {
      for (size_t i = 0; i < n; ++i) deep += "{\"k\":";
      deep += "0" + std::string(n, '}');
    } else {
      deep = std::string(n, '[') + std::string(n, ']');
    }
    return s.replace(s.find(mark), mark.size(), deep);
  }

  // One mutation of doc's text. structural: may delete/rename keys or change container types.
  std::string mutate(const json& doc, bool structural, bool* was_structural = nullptr) {
    std::vector<Ptr> ptrs;
    collect(doc, Ptr(), ptrs);
    json t = doc;
    const Ptr at = pick(ptrs);
    const bool container = t[at].is_object() || t[at].is_array();
    if (was_structural) *was_structural = false;
    switch (below(8)) {
      case 0: {  // delete a key or element
        if (!structural || at.empty()) break;
        if (was_structural) *was_structural = true;
        json& parent = t[at.parent_pointer()];
        if (parent.is_object())
          parent.erase(at.back());
        else if (parent.is_array() && !parent.empty())
          parent.erase(parent.begin() + std::stoul(at.back()));
        break;
      }
      case 1: {  // rename a key (sometimes to a very long one)
        if (!structural || at.empty() || !t[at.parent_pointer()].is_object()) break;
        if (was_structural) *was_structural = true;
        json& parent = t[at.parent_pointer()];
        json v = parent[at.back()];
        parent.erase(at.back());
        parent[below(4) ? at.back() + "_" : std::string(100000, 'K')] = v;
        break;
      }
      case 2:
      case 3:  // change a value's type or make it extreme
        if (container && !structural) break;
        if (was_structural) *was_structural = container;
        t[at] = odd_value();
        break;
      case 4: {  // nest deeply
        if (at.empty()) break;
        static const size_t depths[] = {63, 65, 1000, 100000};
        return nested_at(t, at, depths[below(4)], below(2));
      }
      case 5: {  // truncate
        std::string s = t.dump();
        return s.substr(0, below(s.size()));
      }
      case 6: {  // a number or literal spelled as JSON does not allow
        std::string s = t.dump();
        static const std::vector<std::string> bad = {"NaN", "Infinity", "-Infinity", "1e999", "-1e999", "0x10", "01"};
        size_t p = s.find_first_of("0123456789", below(s.size()));
        if (p == std::string::npos) return s;
        size_t e = s.find_first_not_of("0123456789.eE+-", p);
        return s.replace(p, e == std::string::npos ? s.size() - p : e - p, pick(bad));
      }
      default: {  // a random byte somewhere
        std::string s = t.dump();
        if (!s.empty()) s[below(s.size())] = static_cast<char>(below(256));
        return s;
      }
    }
    return t.dump();
  }

 private:
  std::mt19937_64 rng_;
};

const char* kTable = R"({"table": "t", "family": "ssu", "description": "fuzz",
  "defaults": {"io_dtype": "bf16", "pad_slots": 0},
  "rows": [
    {"id": "a", "params": {"batch": 2, "nheads": 4, "ngroups": 2, "pool_slots": 4, "state_dtype": "fp32"},
     "tags": {"dtype": "fp32"}, "tolerance": {"atol": 0.01, "rtol": 0.02}},
    {"id": "b", "params": {"batch": 1, "nheads": 8, "ngroups": 1, "pool_slots": 2, "state_dtype": "bf16", "has_z": true}}]})";

}  // namespace

TEST(Fuzz, CaseTablesAcceptOrThrowInputError) {
  Fuzzer f(20261129);
  const json base = json::parse(kTable);
  ASSERT_NO_THROW(parse_case_table("t.json", kTable));
  int rejected = 0;
  const int n = 3000;
  for (int i = 0; i < n; ++i) {
    std::string text = f.mutate(base, true);
    for (int extra = static_cast<int>(f.below(3)); extra > 0; --extra) {  // stack mutations while it still parses
      std::string why;
      std::optional<json> j = parse_json_checked(text, why);  // not the deep ones: too deep to walk here
      if (!j || !j->is_object()) break;
      text = f.mutate(*j, true);
    }
    try {
      parse_case_table("t.json", text);
    } catch (const InputError& e) {
      ++rejected;
      std::string m = e.what();
      EXPECT_EQ(m.find('\n'), std::string::npos) << "case " << i << ": " << m.substr(0, 300);
      EXPECT_LT(m.size(), 800u) << "case " << i << ": " << m.substr(0, 300);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "case " << i << ": not an InputError: " << e.what() << "\n  input: " << text.substr(0, 300);
    }
  }
  EXPECT_GT(rejected, n / 2);
}

class FuzzReceipt : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fresh_temp_dir("kgate_fuzz_");
    write_file_atomic((dir_ / "t.json").string(), R"({"table": "t", "family": "ag_gemm", "rows": [
      {"id": "a", "params": {"world_size": 1, "m": 8, "n": 16, "k": 32}, "tags": {"world": "1"}},
      {"id": "b", "params": {"world_size": 2, "m": 4, "n": 16, "k": 32}, "tags": {"world": "2"}}]})");
    // A tiny CPU campaign (one sample per letter): a real receipt and sidecar to mutate.
    const RunConfig c{.cases_path = (dir_ / "t.json").string(),
                      .candidate = "ag_gemm.cpu_eigen",
                      .baselines = {"ag_gemm.cpu_blocked"},
                      .out_path = (dir_ / "r.json").string(),
                      .policy = Policy::parse("correct,limit(10),drift(5)"),
                      .schedule = {2, 2, 1, 5},
                      .warmup_min_us = 0,
                      .warmup_min_calls = 1,
                      .quiet = true};
    run_campaign(c, *make_cpu_backend());
    bytes_ = read_file(c.out_path);
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static inline fs::path dir_;
  static inline std::string bytes_;

  // Audits mutated receipts (written next to the real one, sharing its sidecar).
  static void run(bool structural, uint64_t seed, int n) {
    ASSERT_TRUE(audit_receipt((dir_ / "r.json").string(), std::nullopt).ok());
    Fuzzer f(seed);
    const json receipt = json::parse(bytes_);
    const std::string path = (dir_ / "x.json").string();
    int audited = 0;
    for (int i = 0; i < n; ++i) {
      bool was_structural = false;
      std::string text = f.mutate(receipt, structural, &was_structural);
      if (structural && !was_structural) continue;  // the other test covers it
      bool resealed = false;
      if (f.below(2)) {  // an attacker who also recomputes the seal over the edited body
        std::string why;
        std::optional<json> j = parse_json_checked(text, why);
        if (j && j->is_object() && j->contains("body")) {
          try {
            text = receipt_bytes(seal_receipt((*j)["body"], std::nullopt));
            resealed = true;
          } catch (const std::exception&) {  // a body too broken to seal: audit it unsealed
          }
        }
      }
      std::string why;
      if (!resealed && f.below(2))  // canonical bytes, so the audit looks past the canonical-form check
        if (std::optional<json> j = parse_json_checked(text, why)) text = receipt_bytes(*j);
      write_file_atomic(path, text);
      try {
        AuditResult a = audit_receipt(path, std::nullopt);
        ++audited;
        // Unsealed edits always show; a resealed edit of a recorded fact (not derived) may not.
        if (!resealed && text != bytes_)
          EXPECT_FALSE(a.ok()) << "case " << i << " passed audit: " << text.substr(0, 300);
        for (const auto& p : a.problems) EXPECT_EQ(p.find('\n'), std::string::npos) << "case " << i << ": " << p;
      } catch (const std::exception& e) {
        ADD_FAILURE() << "case " << i << ": audit_receipt threw " << e.what();
      }
    }
    EXPECT_GT(audited, n / 4);
  }
};

TEST_F(FuzzReceipt, LeafEditsTruncationDeepNestingAndBadNumbers) { run(false, 777, 600); }

TEST_F(FuzzReceipt, DeletedRenamedAndRetypedKeys) {
  // Audit validates a receipt's shape into typed records before deriving anything, so a
  // missing, renamed or retyped key is a reported problem, never a read of a missing key.
  run(true, 4242, 600);
}
