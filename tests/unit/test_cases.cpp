#include <gtest/gtest.h>

#include <map>
#include <set>

#include "harness/core/cases.hpp"
#include "harness/core/errors.hpp"

using namespace kgate;

namespace {

std::string expect_input_error(const std::string& text) {
  try {
    parse_case_table("t.json", text);
  } catch (const InputError& e) {
    std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << "one line: " << m;
    EXPECT_EQ(m.rfind("t.json: ", 0), 0u) << m;
    return m;
  }
  ADD_FAILURE() << "no InputError for: " << text;
  return "";
}

const char* kGood = R"({"table": "t", "family": "ag_gemm", "rows": [
  {"id": "r1", "params": {"world_size": 1, "m": 2, "n": 3, "k": 4}, "tags": {"dtype": "bf16"}}]})";

}  // namespace

TEST(Cases, LoadsAValidTable) {
  CaseTable t = parse_case_table("t.json", kGood);
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.rows[0].params["k"], 4);
  EXPECT_EQ(t.rows[0].tags["dtype"], "bf16");
  EXPECT_EQ(t.sha256.size(), 64u);
  EXPECT_DOUBLE_EQ(t.rows[0].tolerance.atol, 1e-2);
}

TEST(Cases, ASweepIsANumericParameterOfEveryRow) {
  const std::string rows = R"("rows": [
    {"id": "r1", "params": {"world_size": 1, "m": 2, "n": 3, "k": 4}, "tags": {"shape": "qkv"}}]})";
  EXPECT_EQ(parse_case_table("t.json", R"({"table": "t", "family": "ag_gemm", "sweep": "m", )" + rows).sweep, "m");
  EXPECT_EQ(parse_case_table("t.json", kGood).sweep, "");
  // A tag, a name no row has, a parameter that is not a number: refused, naming the field.
  for (const char* bad : {"shape", "mm", "nope"}) {
    const std::string m =
        expect_input_error(std::string(R"({"table": "t", "family": "ag_gemm", "sweep": ")") + bad + "\", " + rows);
    EXPECT_NE(m.find("field 'sweep'"), std::string::npos) << m;
  }
  expect_input_error(R"({"table": "t", "family": "ag_gemm", "sweep": 3, )" + rows);
}

TEST(Cases, DefaultsFillOptionalParams) {
  CaseTable t = parse_case_table("t.json", R"({"table": "t", "family": "ssu", "rows": [
    {"id": "a", "params": {"batch": 2, "nheads": 4, "ngroups": 2, "pool_slots": 4, "state_dtype": "fp32"}}]})");
  EXPECT_EQ(t.rows[0].params["pad_slots"], 0);
  EXPECT_EQ(t.rows[0].params["io_dtype"], "bf16");
  EXPECT_EQ(t.rows[0].params["softplus"], true);
}

TEST(Cases, BadInputNamesFileRowAndField) {
  EXPECT_NE(expect_input_error("{not json").find("malformed JSON"), std::string::npos);
  EXPECT_NE(
      expect_input_error(R"({"table": "t", "family": "nope", "rows": [{"id": "a"}]})").find("unknown family 'nope'"),
      std::string::npos);
  auto row = [](const std::string& params, const std::string& extra = "") {
    return std::string(R"({"table": "t", "family": "ag_gemm", "rows": [{"id": "r7", "params": )") + params + extra +
           "}]}";
  };
  std::string m = expect_input_error(row(R"({"world_size": 1, "m": 2, "n": 3})"));
  EXPECT_NE(m.find("row 'r7'"), std::string::npos) << m;
  EXPECT_NE(m.find("params.k"), std::string::npos) << m;
  EXPECT_NE(m.find("missing"), std::string::npos) << m;
  m = expect_input_error(row(R"({"world_size": 1, "m": "2", "n": 3, "k": 4})"));
  EXPECT_NE(m.find("params.m"), std::string::npos) << m;
  EXPECT_NE(m.find("integer"), std::string::npos) << m;
  m = expect_input_error(row(R"({"world_size": 1, "m": 0, "n": 3, "k": 4})"));
  EXPECT_NE(m.find("params.m"), std::string::npos) << m;
  EXPECT_NE(m.find("out of range"), std::string::npos) << m;
  m = expect_input_error(row(R"({"world_size": 1, "m": -5, "n": 3, "k": 4})"));
  EXPECT_NE(m.find("out of range"), std::string::npos) << m;
  m = expect_input_error(row(R"({"world_size": 1, "m": 2, "n": 3, "k": 4, "q": 1})"));
  EXPECT_NE(m.find("params.q"), std::string::npos) << m;
  m = expect_input_error(
      row(R"({"world_size": 1, "m": 2, "n": 3, "k": 4})", R"(, "tolerance": {"atol": -1, "rtol": 0})"));
  EXPECT_NE(m.find("tolerance.atol"), std::string::npos) << m;
  m = expect_input_error(R"({"table": "t", "family": "ag_gemm", "rows": [
    {"id": "d", "params": {"world_size": 1, "m": 2, "n": 3, "k": 4}},
    {"id": "d", "params": {"world_size": 1, "m": 2, "n": 3, "k": 4}}]})");
  EXPECT_NE(m.find("duplicate id"), std::string::npos) << m;
  EXPECT_NE(m.find("row 'd'"), std::string::npos) << m;
  // Out-of-range index relations: pad slots beyond batch, pool smaller than batch.
  m = expect_input_error(R"({"table": "t", "family": "ssu", "rows": [
    {"id": "p", "params": {"batch": 2, "nheads": 4, "ngroups": 2, "pool_slots": 4, "state_dtype": "fp32", "pad_slots": 3}}]})");
  EXPECT_NE(m.find("pad_slots"), std::string::npos) << m;
  m = expect_input_error(R"({"table": "t", "family": "ssu", "rows": [
    {"id": "p", "params": {"batch": 8, "nheads": 4, "ngroups": 3, "pool_slots": 8, "state_dtype": "fp32"}}]})");
  EXPECT_NE(m.find("ngroups"), std::string::npos) << m;
  m = expect_input_error(R"({"table": "t", "family": "ssu", "rows": [
    {"id": "p", "params": {"batch": 2, "nheads": 4, "ngroups": 2, "pool_slots": 4, "state_dtype": "fp16"}}]})");
  EXPECT_NE(m.find("params.state_dtype"), std::string::npos) << m;
  EXPECT_NE(expect_input_error(R"({"table": "t", "family": "ag_gemm", "rows": []})").find("no rows"),
            std::string::npos);
  EXPECT_NE(expect_input_error(R"({"table": "t", "family": "ag_gemm", "rows": [{"params": {}}]})").find("rows[0]"),
            std::string::npos);
}

TEST(Cases, DeepTablesAreInputErrors) {
  std::string arrays =
      R"({"table": "t", "family": "ssu", "rows": )" + std::string(1000000, '[') + std::string(1000000, ']') + "}";
  EXPECT_NE(expect_input_error(arrays).find("t.json: JSON nested deeper than 64 levels"), std::string::npos);
  std::string objects = R"({"table": "t", "family": "ssu", "defaults": )";
  for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
  objects += "1" + std::string(100000, '}') + R"(, "rows": [{"id": "a"}]})";
  EXPECT_NE(expect_input_error(objects).find("nested deeper than 64 levels"), std::string::npos);
}

TEST(Cases, MessagesQuoteAndBoundUserText) {
  const std::string ok = R"("world_size": 1, "m": 2, "n": 3, "k": 4)";
  // A 5 MB unknown parameter key and a row id with a newline: one line, bounded.
  std::string big(5000000, 'k');
  std::string m = expect_input_error(R"({"table": "t", "family": "ag_gemm", "rows": [{"id": "r\nx", "params": {)" + ok +
                                     ", \"" + big + "\": 1}}]}");
  EXPECT_LT(m.size(), 300u) << m.substr(0, 300);
  EXPECT_NE(m.find("row 'r\\nx'"), std::string::npos) << m;
  EXPECT_NE(m.find("(5000007 bytes)"), std::string::npos) << m;  // "params." + the key
  // A key holding ':' is still named whole.
  m = expect_input_error(R"({"table": "t", "family": "ag_gemm", "rows": [{"id": "r", "params": {)" + ok +
                         R"(, "a:b": 1}}]})");
  EXPECT_NE(m.find("field 'params.a:b': unknown parameter"), std::string::npos) << m;
  // Top-level, row and tag keys, unknown family, choices.
  m = expect_input_error(R"({"table": "t", "family": "ag_gemm", "x\u0000y": 1, "rows": [{"id": "r"}]})");
  EXPECT_NE(m.find("field 'x\\x00y'"), std::string::npos) << m;
  m = expect_input_error(R"({"table": "t", "family": "ag\nx", "rows": [{"id": "r"}]})");
  EXPECT_NE(m.find("unknown family 'ag\\nx'"), std::string::npos) << m;
  m = expect_input_error(R"({"table": "t", "family": "ag_gemm", "rows": [{"id": "r", "params": {)" + ok +
                         R"(}, "tags": {"t\n": 1}}]})");
  EXPECT_NE(m.find("field 'tags.t\\n': must be a string"), std::string::npos) << m;
  m = expect_input_error(R"({"table": "t", "family": "ssu", "rows": [{"id": "p", "params": {"batch": 2, "nheads": 4,
    "ngroups": 2, "pool_slots": 4, "state_dtype": ")" +
                         std::string(100000, 'z') + R"("}}]})");
  EXPECT_LT(m.size(), 400u) << m.substr(0, 400);
}

TEST(Cases, RowFilterGlobs) {
  CaseTable t = parse_case_table("t.json", R"({"table": "t", "family": "ag_gemm", "rows": [
    {"id": "a-1", "params": {"world_size": 1, "m": 2, "n": 3, "k": 4}},
    {"id": "b-1", "params": {"world_size": 1, "m": 2, "n": 3, "k": 4}}]})");
  filter_rows(t, "b-*");
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.rows[0].id, "b-1");
  EXPECT_THROW(filter_rows(t, "zzz"), InputError);
  EXPECT_TRUE(glob_match("*mla*fp8", "sparse-mla-h8-fp8"));
  EXPECT_FALSE(glob_match("a?c", "abbc"));
}

// The sparse_mla tables of the sparse MLA issue: the 94 canonical rows in the historical table's
// composition, and the hardening rows covering every input form.
TEST(Cases, SparseMlaTablesHaveTheCanonicalComposition) {
  const CaseTable t = load_case_table(std::string(KGATE_SOURCE_DIR) + "/cases/sparse_mla_94.json");
  ASSERT_EQ(t.rows.size(), 94u);
  std::map<std::string, int> count;
  std::set<int64_t> heads, qlen;
  for (const CaseRow& r : t.rows) {
    ++count[r.tags["dtype"].get<std::string>()];
    ++count[r.tags["phase"].get<std::string>()];
    ++count[r.tags["sparse_case"].get<std::string>()];
    heads.insert(r.params["heads"].get<int64_t>());
    qlen.insert(r.params["q_len"].get<int64_t>());
    EXPECT_EQ(r.params["index_layout"], "split") << r.id;
    EXPECT_EQ(r.params["lens_offset"], 0) << r.id;
    EXPECT_EQ(r.params["q_pad_rows"], 0) << r.id;
  }
  EXPECT_EQ(count["bf16"], 48);
  EXPECT_EQ(count["fp8"], 46);
  EXPECT_EQ(count["decode"], 86);
  EXPECT_EQ(count["prefill"], 8);
  EXPECT_GT(count["swa128"], 0);
  EXPECT_GT(count["swa128+topk4x"], 0);
  EXPECT_GT(count["swa128+topk128x"], 0);
  EXPECT_EQ(heads, (std::set<int64_t>{8, 16, 32, 64, 128}));
  EXPECT_EQ(qlen, (std::set<int64_t>{5, 128, 257}));
  const CaseTable h = load_case_table(std::string(KGATE_SOURCE_DIR) + "/cases/sparse_mla_hardening.json");
  EXPECT_GE(h.rows.size(), 40u);
  std::set<std::string> kinds;
  for (const CaseRow& r : h.rows) kinds.insert(r.tags["hardening"].get<std::string>());
  EXPECT_EQ(kinds, (std::set<std::string>{"padded", "concat", "lens_offset", "combined", "empty"}));
}
