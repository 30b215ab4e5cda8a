// The sparse_mla family: schema, cross-field check and the contract of every arm (not a subject:
// the tolerance is the oracle's, references/sparse_mla/sparse_mla_check.cpp).
// Conventions: references/sparse_mla/sparse_mla.hpp.
#include "kernels/sparse_mla/family.hpp"

#include "harness/core/artifacts.hpp"
#include "kernels/sparse_mla/arms.hpp"
#ifdef KGATE_HAVE_CUDA
#include "harness/gpu/gpu.hpp"
#endif

namespace kgate::sparse_mla {
namespace {

void add_family_arms(Registry& r) {
  // An arm's sources: the dependencies of the units that implement it, and the oracle's.
  add_arms(r,
           {"sparse_mla", "cpu", {"host"}, built_arm_sources("sparse_mla", "cpu", {"kernels/sparse_mla/cpu_arms.cpp"})},
           kCpuArms);
#ifdef KGATE_HAVE_CUDA
  // launch.cu is one unit: every GPU arm names every kernel header it includes.
  add_arms(
      r,
      {"sparse_mla", "cuda", kgate::gpu::built_archs(),
       built_arm_sources("sparse_mla", "cuda", {"kernels/sparse_mla/launch.cu", "kernels/sparse_mla/gpu_context.cpp"})},
      kGpuArms);
#endif
}

// The work model. T = batch * q_len query tokens, W = 128 + topk index columns, H = heads.
//  bytes: the gathered KV rows, every index column of every token at the KV row size (BF16 1024 B;
//    FP8 584 B = 448 e4m3 + 64 BF16 + 7 ue8m0 scales + 1 pad, its row stride) + the index table
//    (T * W int32) + lens (T int32) + q and out (T * H * 512 BF16 each) + lse (T * H fp32) + the
//    sink (H fp32) when present. Rows are counted per token (not deduplicated across tokens) and
//    invalid (-1) or inactive columns count as gathered: FlashMLA's convention (it counts
//    q + out + indexed tokens x 576 for MODEL1; this model adds the 8 scale bytes, the indices,
//    lens and lse), so TB/s compares with its published numbers; with invalid_pct, ragged lens or
//    empty tokens the data a kernel must read is less.
//  flops: 2 * T * H * W * (d_qk + d_v), d_qk = d_v = 512: q.k and p.V as multiply-adds over every
//    index column, -1 included (FlashMLA's count: 2 h_q b s_q topk (d_qk + d_v)); the softmax
//    and the sink are not counted.
Work work(const json& params) {
  const Params p = Params::from_json(params);
  const double T = static_cast<double>(p.tokens()), W = static_cast<double>(p.width());
  const double H = static_cast<double>(p.heads);
  Work w;
  w.bytes = T * W * static_cast<double>(p.row_bytes()) + T * W * 4 + T * 4  // KV rows, indices, lens
            + 2 * T * H * kD * 2 + T * H * 4                                // q, out, lse
            + (p.sink ? H * 4 : 0);
  w.flops = 2 * T * H * W * (kD + kD);
  return w;
}

}  // namespace
}  // namespace kgate::sparse_mla

namespace kgate {

void register_family_sparse_mla(Registry& r) {
  using PS = ParamSpec;
  Family f;
  f.name = "sparse_mla";
  f.summary = "DeepSeek-V4-style sparse MLA decode (BF16 or FP8 KV, SWA + compressed indices)";
  f.params = {
      {"batch", PS::Kind::Int, true, 1, 1 << 16, {}, {}, "requests"},
      {"q_len", PS::Kind::Int, true, 1, 4096, {}, {}, "query tokens per request"},
      {"heads", PS::Kind::Int, true, 1, 1024, {}, {}, "query heads"},
      {"kv_dtype", PS::Kind::String, true, 0, 0, {"bf16", "fp8"}, {}, "KV row format"},
      {"swa_rows", PS::Kind::Int, true, 1, 1 << 24, {}, {}, "rows in the SWA table"},
      {"compressed_rows", PS::Kind::Int, true, 1, 1 << 24, {}, {}, "rows in the compressed table"},
      {"topk", PS::Kind::Int, false, 0, 1 << 16, {}, 0, "compressed index columns (W = 128 + topk)"},
      {"invalid_pct", PS::Kind::Int, false, 0, 100, {}, 5, "percent of -1 indices"},
      {"ragged", PS::Kind::Bool, false, 0, 0, {}, false, "random lens in [1, W]"},
      {"empty_tokens", PS::Kind::Int, false, 0, 1 << 20, {}, 0, "tokens forced to lens = 0"},
      {"sink", PS::Kind::Bool, false, 0, 0, {}, false, "attention sink per head"},
      {"page_block",
       PS::Kind::Int,
       false,
       2,
       1 << 12,
       {},
       64,
       "FP8: rows per MODEL1 page block (tables are whole blocks)"},
      {"index_layout",
       PS::Kind::String,
       false,
       0,
       0,
       {"split", "concat"},
       "split",
       "indices as two tables (SWA [T, 128], compressed [T, topk]) or one [T, 128 + topk]"},
      {"q_pad_rows",
       PS::Kind::Int,
       false,
       0,
       1 << 16,
       {},
       0,
       "padding query rows after the real ones (ignored, outputs untouched)"},
      {"lens_offset",
       PS::Kind::Int,
       false,
       -(1 << 16),
       1 << 16,
       {},
       0,
       "lens given raw: active columns = lens + offset"},
  };
  f.check = [](const json& p) -> std::string {
    if (p["empty_tokens"].get<int64_t>() > p["batch"].get<int64_t>() * p["q_len"].get<int64_t>())
      return "empty_tokens: more than batch * q_len tokens";
    if (p["kv_dtype"] == "fp8")
      for (const char* t : {"swa_rows", "compressed_rows"})
        if (p[t].get<int64_t>() % p["page_block"].get<int64_t>())
          return std::string(t) + ": FP8 tables are whole page blocks of page_block rows";
    return "";
  };
  f.tolerance = &sparse_mla::tolerance;  // references/sparse_mla/sparse_mla_check.cpp
  f.work = &sparse_mla::work;
  f.make_cpu_context = &sparse_mla::make_cpu_context;
#ifdef KGATE_HAVE_CUDA
  f.make_gpu_context = &sparse_mla::make_gpu_context;
#endif
  // Export arms (the FlashMLA peer) run through the same GPU context and oracle.
#ifdef KGATE_HAVE_CUDA
  f.export_sources = built_export_sources("sparse_mla", {"kernels/sparse_mla/gpu_context.cpp"});
#else
  // Without the GPU backend no context runs an export arm; the loader still reads libraries.
  f.export_sources = built_export_sources("sparse_mla", {});
#endif
  r.add_family(std::move(f));
  sparse_mla::add_family_arms(r);
}

}  // namespace kgate
