// The families' work models (Family::work: bytes, FLOPs) on specific rows, against values
// computed by hand; and the CPU backend's measured peaks (environment.peaks).
#include <gtest/gtest.h>

#include <set>

#include "harness/core/cases.hpp"
#include "harness/core/registry.hpp"
#include "harness/run/backend.hpp"
#include "harness/run/cpu_backend.hpp"
#include "kernels/calib/config.hpp"
#include "kernels/ssu/config.hpp"

using namespace kgate;

namespace {

// The row's normalized params: the schema's defaults under `params`.
json normalized(const std::string& family, const json& params) {
  json out;
  const std::string err = normalize_params(Registry::instance().family(family), params, out);
  EXPECT_EQ(err, "") << params.dump();
  return out;
}

Work work_of(const std::string& family, const json& params) {
  const Family& f = Registry::instance().family(family);
  EXPECT_TRUE(f.work) << family << " has no work model";
  return f.work(normalized(family, params));
}

const CaseRow& row_of(const CaseTable& t, const std::string& id) {
  for (const CaseRow& r : t.rows)
    if (r.id == id) return r;
  throw std::runtime_error("no row " + id);
}

}  // namespace

// The byte count of the state tiles of the owned slots, read + written, computed independently here:
// the model's state term must equal it on every row of the table.
TEST(WorkModels, SsuStateBytesMatchTheScriptsOnEveryRow) {
  const CaseTable t = load_case_table(std::string(KGATE_SOURCE_DIR) + "/cases/ssu.json");
  ASSERT_GE(t.rows.size(), 40u);
  for (const CaseRow& r : t.rows) {
    const json& p = r.params;
    const int64_t esz = p["state_dtype"] == "bf16" ? 2 : 4;
    const int64_t script =
        2 * (p["batch"].get<int64_t>() - p["pad_slots"].get<int64_t>()) * p["nheads"].get<int64_t>() * 64 * 128 * esz;
    const ssu::WorkTerms terms = ssu::work_terms(p);
    EXPECT_EQ(terms.state_bytes, static_cast<double>(script)) << r.id;
    const Work w = Registry::instance().family("ssu").work(p);
    EXPECT_EQ(w.bytes, terms.state_bytes + terms.side_bytes) << r.id;
    EXPECT_LT(terms.side_bytes, 0.015 * terms.state_bytes) << r.id << ": side inputs add < 1.5 % (NOTES)";
  }
}

TEST(WorkModels, SsuHandComputedRows) {
  const CaseTable t = load_case_table(std::string(KGATE_SOURCE_DIR) + "/cases/ssu.json");
  const auto& fam = Registry::instance().family("ssu");
  struct Expect {
    const char* id;
    double state, side, flops;
  };
  // side = x + out (+ z) + B + C + dt + A, D, dt_bias + slots; flops per (b, h) = 5 * 64 * 128 +
  // 64 * (3, or 7 with z) + 2. io BF16, weights FP32 unless the row says otherwise.
  const Expect rows[] = {
      // 2*256*128*8192*2; 256*128*64*2*2 + 2*256*8*128*2 + 256*128*4 + 3*128*4 + 256*4; 256*128*41154
      {"ssu-nemotron-h-bf16-b256", 1073741824, 8388608 + 1048576 + 131072 + 1536 + 1024, 1348534272},
      // pad rows own no state: 2*240*128*8192*4; the side inputs and FLOPs of all 256 rows
      {"ssu-nemotron-h-fp32-b256-pad", 2013265920, 9570816, 1348534272},
      // z: 32*128*64*2*3 + 2*32*8*128*2 + 32*128*4 + 1536 + 32*4; 32*128*(40960 + 448 + 2)
      {"ssu-nemotron-h-bf16-b32-z", 134217728, 1572864 + 131072 + 16384 + 1536 + 128, 169615360},
      // fused_extra is not read; BF16 weights: 16*80*64*2*2 + 2*16*128*2 + 16*80*2 + 3*80*2 + 16*4
      {"ssu-mamba2-2.7b-bf16-b16-fused-unaligned", 41943040, 327680 + 8192 + 2560 + 480 + 64, 52677120},
  };
  for (const Expect& e : rows) {
    const json& p = row_of(t, e.id).params;
    const ssu::WorkTerms terms = ssu::work_terms(p);
    EXPECT_EQ(terms.state_bytes, e.state) << e.id;
    EXPECT_EQ(terms.side_bytes, e.side) << e.id;
    EXPECT_EQ(fam.work(p), (Work{e.state + e.side, e.flops})) << e.id;
  }
}

TEST(WorkModels, SparseMlaHandComputedRows) {
  // FP8, T = 2, W = 192, H = 8: KV 2*192*584, indices 2*192*4, lens 2*4, q + out 2*2*8*512*2,
  // lse 2*8*4; FLOPs 2*2*8*192*1024.
  EXPECT_EQ(work_of("sparse_mla", {{"batch", 2},
                                   {"q_len", 1},
                                   {"heads", 8},
                                   {"kv_dtype", "fp8"},
                                   {"swa_rows", 256},
                                   {"compressed_rows", 512},
                                   {"topk", 64}}),
            (Work{224256 + 1536 + 8 + 32768 + 64, 6291456}));
  // BF16 with a sink, T = 4, W = 160, H = 16: KV 4*160*1024, indices 4*160*4, lens 16,
  // q + out 2*4*16*512*2, lse 4*16*4, sink 16*4. Ragged lens and invalid columns count in full.
  EXPECT_EQ(work_of("sparse_mla", {{"batch", 2},
                                   {"q_len", 2},
                                   {"heads", 16},
                                   {"kv_dtype", "bf16"},
                                   {"swa_rows", 256},
                                   {"compressed_rows", 512},
                                   {"topk", 32},
                                   {"ragged", true},
                                   {"sink", true},
                                   {"empty_tokens", 1},
                                   {"invalid_pct", 20}}),
            (Work{655360 + 2560 + 16 + 131072 + 256 + 64, 20971520}));
}

TEST(WorkModels, SparseMlaMatchesFlashMlaCounts) {
  // the shared facts, facts/flashmla-sparse-h200.md, model1_h64_b1_sq1_topk128+512 (13.4 us, 6 TFLOP/s,
  // 37 GB/s): FLOPs 2 h b s_q topk (512 + 512); bytes q + out + 640 x 576. This model adds the
  // 8 scale bytes per row, the int32 indices and lens, and lse.
  const Work w = work_of("sparse_mla", {{"batch", 1},
                                        {"q_len", 1},
                                        {"heads", 64},
                                        {"kv_dtype", "fp8"},
                                        {"swa_rows", 4096},
                                        {"compressed_rows", 4096},
                                        {"topk", 512}});
  EXPECT_EQ(w.flops, 2.0 * 64 * 1 * 1 * 640 * (512 + 512));
  const double flashmla_bytes = 64 * 512 * 2 * 2 + 640 * 576;
  EXPECT_EQ(w.bytes, flashmla_bytes + 640 * 8 + 640 * 4 + 4 + 64 * 4);
  EXPECT_NEAR(w.flops / 13.4e-6 / 1e12, 6.26, 0.01);
  EXPECT_NEAR(flashmla_bytes / 13.4e-6 / 1e9, 37.3, 0.1);
}

TEST(WorkModels, AgGemmHandComputedRows) {
  // w = 2, m = 32: the gathered A is 64 x 256. FLOPs 2*64*128*256; bytes 2*(64*256 + 256*128 + 64*128).
  EXPECT_EQ(work_of("ag_gemm", {{"world_size", 2}, {"m", 32}, {"n", 128}, {"k", 256}}), (Work{114688, 4194304}));
  // w = 8, m = 1024, n = k = 8192: 2 * 8192^3 FLOPs; A, B, C 8192 x 8192 BF16 each.
  EXPECT_EQ(work_of("ag_gemm", {{"world_size", 8}, {"m", 1024}, {"n", 8192}, {"k", 8192}}),
            (Work{3.0 * 8192 * 8192 * 2, 2.0 * 8192 * 8192 * 8192}));
}

TEST(WorkModels, Calib) {
  // The model is pure (config.hpp); the family itself is registered only with the GPU backend.
  EXPECT_EQ(calib::work({"copy", 10, 50, 1 << 24}), (Work{2.0 * (1 << 24), 0}));
  EXPECT_EQ(calib::work({"spin", 1000, 50, 1 << 24}), (Work{0, 0}));
  EXPECT_EQ(calib::work({"overlap", 1000, 50, 1 << 24}), (Work{0, 0}));
  if (Registry::instance().find_family("calib")) {
    EXPECT_EQ(work_of("calib", {{"kind", "copy"}, {"bytes", 512 << 20}}), (Work{1024.0 * (1 << 20), 0}));
    EXPECT_EQ(work_of("calib", {{"kind", "spin"}, {"us", 50}}), (Work{0, 0}));
  }
}

TEST(WorkModels, EveryBundledFamilyHasOne) {
  for (const Family& f : Registry::instance().families()) EXPECT_TRUE(f.work) << f.name;
}

TEST(Peaks, CpuBackendRecordsItsPeaksInTheEnvironment) {
  const json env = make_cpu_backend()->environment();
  ASSERT_TRUE(env.contains("peaks"));
  const json& p = env["peaks"];
  ASSERT_TRUE(p.is_object());
  std::set<std::string> keys;
  for (const auto& [k, v] : p.items()) keys.insert(k);
  EXPECT_EQ(keys, (std::set<std::string>{"copy_bytes_per_s", "gemm_bf16_flops_per_s", "copy_method", "gemm_method"}));
  ASSERT_TRUE(p["copy_bytes_per_s"].is_number()) << p.dump();
  EXPECT_GT(p["copy_bytes_per_s"].get<double>(), 1e8);   // any host moves > 100 MB/s
  EXPECT_LT(p["copy_bytes_per_s"].get<double>(), 1e13);  // and < 10 TB/s
  EXPECT_TRUE(p["gemm_bf16_flops_per_s"].is_null());
  EXPECT_EQ(p["gemm_method"], "none on the CPU backend");
  EXPECT_NE(p["copy_method"].get<std::string>().find("256 MiB"), std::string::npos);
  // Measured once per process: a second environment carries the same numbers.
  EXPECT_EQ(make_cpu_backend()->environment()["peaks"], p);
  EXPECT_EQ(cpu_peaks(), p);
}
