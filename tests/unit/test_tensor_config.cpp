// The tensor family's operator model (kernels/tensor/config.hpp): expressions of the row's
// dimensions, strides and offsets, fills, poison, and the refusals that name the field.
#include <gtest/gtest.h>

#include <cmath>

#include "harness/core/errors.hpp"
#include "kernels/tensor/config.hpp"

namespace kgate::tensor {
namespace {

json gemm_row() {
  return json::parse(R"({"m": 4, "n": 3, "k": 5, "reference": "export:libg.so:g.ref", "operator": {
    "name": "gemm",
    "tensors": [
      {"name": "a", "shape": ["m", "k"], "dtype": "bf16"},
      {"name": "b", "shape": ["k", "n"], "strides": [1, "k"], "fill": {"kind": "uniform", "low": -1, "high": 1}},
      {"name": "c", "shape": ["m", "n"], "access": "output", "tolerance": {"atol": 0.5, "rtol": 0}}],
    "scalars": {"alpha": 2},
    "work": {"flops": "2*m*n*k"}}})");
}

TEST(TensorConfig, ShapesStridesAndWorkAreTheRowsExpressions) {
  const Op op = parse_op(gemm_row());
  ASSERT_EQ(op.tensors.size(), 3u);
  EXPECT_EQ(op.tensors[0].shape, (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(op.tensors[0].strides, (std::vector<int64_t>{5, 1}));
  EXPECT_TRUE(op.tensors[0].contiguous);
  const TensorSpec& b = op.tensors[1];  // column-major: element (1, 2) at 1 + 2 * 5
  EXPECT_FALSE(b.contiguous);
  EXPECT_EQ(b.storage, 15);
  EXPECT_EQ(b.offset(1 * 3 + 2), 11);
  EXPECT_EQ(b.coords(1 * 3 + 2), "[1,2]");
  EXPECT_EQ(op.work.flops, 2.0 * 4 * 3 * 5);
  EXPECT_EQ(op.work.bytes, 4 * 5 * 2 + 5 * 3 * 4 + 4 * 3 * 4);  // every input read, the output written
  EXPECT_EQ(op.scalars.at(0).second, 2);
  EXPECT_EQ(op.tensors[2].tolerance->atol, 0.5);
  const Tolerance t = default_tolerance(gemm_row());  // the f32 output's
  EXPECT_EQ(t.atol, 1e-4);
}

TEST(TensorConfig, MistakesAreRefusedNamingTheField) {
  auto refusal = [](const std::function<void(json&)>& edit) {
    json row = gemm_row();
    edit(row);
    return check_op(row);
  };
  EXPECT_EQ(refusal([](json&) {}), "");
  EXPECT_NE(refusal([](json& r) {
              r["operator"]["tensors"][0]["shape"][1] = "kk";
            }).find("params.operator.tensors[0].shape[1]: 'kk'"),
            std::string::npos);
  EXPECT_NE(refusal([](json& r) { r["operator"]["tensors"][0]["shape"][1] = "k/2"; }).find("whole number"),
            std::string::npos);
  EXPECT_NE(refusal([](json& r) {
              r["operator"]["tensors"][2]["fill"] = {{"kind", "normal"}};
            }).find("params.operator.tensors[2].fill: an output is written by the arm"),
            std::string::npos);
  EXPECT_NE(refusal([](json& r) { r["operator"]["tensors"][1]["name"] = "a"; }).find("declared twice"),
            std::string::npos);
  EXPECT_NE(refusal([](json& r) { r["operator"]["tensors"][2]["access"] = "input"; }).find("an input is not compared"),
            std::string::npos);
  EXPECT_NE(refusal([](json& r) {
              r["operator"]["tensors"][2]["access"] = "input";
              r["operator"]["tensors"][2].erase("tolerance");
            }).find("no output"),
            std::string::npos);
  EXPECT_NE(refusal([](json& r) { r["operator"]["tensors"][0]["dtype"] = "f8"; }).find("'f8' is not one of"),
            std::string::npos);
  EXPECT_NE(refusal([](json& r) { r["operator"]["tensorz"] = json::array(); }).find("params.operator.tensorz"),
            std::string::npos);
  EXPECT_NE(refusal([](json& r) {
              r["operator"]["tensors"][2]["strides"] = {0, 1};
            }).find("0 (broadcast) only"),
            std::string::npos);
}

TEST(TensorConfig, FillsAreSeededAndPoisonIsSeen) {
  json row = gemm_row();
  row["operator"]["tensors"][0] = {{"name", "idx"},
                                   {"shape", {"m", 1000}},
                                   {"dtype", "i32"},
                                   {"fill", {{"kind", "index"}, {"high", 7}, {"minus_one_share", 0.25}}}};
  const Op op = parse_op(row);
  const TensorSpec& idx = op.tensors[0];
  std::vector<int32_t> v(static_cast<size_t>(idx.storage)), w(v.size());
  fill(idx, v.data(), 42);
  fill(idx, w.data(), 42);
  EXPECT_EQ(v, w);
  int minus = 0;
  for (int32_t x : v) {
    EXPECT_TRUE(x >= -1 && x < 7) << x;
    minus += x == -1;
  }
  EXPECT_NEAR(minus / 4000.0, 0.25, 0.03);
  const TensorSpec& c = op.tensors[2];
  std::vector<float> out(static_cast<size_t>(c.storage), 1.0f);
  poison(c, out.data());
  EXPECT_TRUE(is_poison(c, out.data(), 3));
  store(out.data(), c.dtype, 3, 0.5);
  EXPECT_FALSE(is_poison(c, out.data(), 3));
  EXPECT_EQ(load(out.data(), c.dtype, 3), 0.5);
}

TEST(TensorConfig, HalfAndBf16RoundTrip) {
  for (int dt : {KGATE_F16, KGATE_BF16}) {
    uint16_t h = 0;
    for (double x : {0.0, 1.0, -2.5, 0.333251953125, 65504.0, 6.103515625e-05}) {
      if (dt == KGATE_BF16 && x == 65504.0) continue;  // not a bf16 value
      store(&h, dt, 0, x);
      EXPECT_NEAR(load(&h, dt, 0), x, std::fabs(x) * (dt == KGATE_F16 ? 1e-3 : 1e-2)) << dt << " " << x;
    }
  }
}

}  // namespace
}  // namespace kgate::tensor
