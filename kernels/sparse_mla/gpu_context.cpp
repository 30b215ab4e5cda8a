// sparse_mla on the GPU: the row context. Inputs uploaded once per row in the ABI's layout
// (kernels/sparse_mla/abi.h: two index tables, or one concatenated; raw lengths and the offset;
// padding query rows), out and lse poisoned before every check, the CPU reference as oracle.
#include <cuda_bf16.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>

#include "harness/core/numeric.hpp"
#include "harness/export/loader.hpp"
#include "harness/gpu/arm_context.hpp"
#include "harness/gpu/compare_device.hpp"
#include "harness/run/cpu_backend.hpp"  // merge_check
#include "kernels/sparse_mla/family.hpp"
#include "kernels/sparse_mla/launch.hpp"
#include "references/sparse_mla/sparse_mla_ref_gpu.hpp"

namespace kgate::sparse_mla::gpu {
namespace {

using kgate::gpu::DeviceBuffer;

// Rows with more (token, head, column) triples than this are checked against the GPU reference:
// the CPU reference costs ~2 KFLOP (fp64) per triple, ~0.1 s at 2^17 triples.
constexpr int64_t kCpuOracleMaxTriples = int64_t{1} << 17;

template <class T>
DeviceBuffer upload_vec(const std::vector<T>& v) {
  DeviceBuffer d(std::max<size_t>(v.size() * sizeof(T), 16));
  if (!v.empty()) d.upload(v.data(), v.size() * sizeof(T));
  return d;
}
std::vector<uint16_t> to_bf16(const std::vector<float>& v) {
  std::vector<uint16_t> b(v.size());
  for (size_t i = 0; i < v.size(); ++i) b[i] = f32_to_bf16_bits(v[i]);
  return b;
}

// lens is written once, in the constructor, and never again: one epoch per context, unique in
// the process, so an arm's work derived from the lengths (the FlashMLA export's scheduler
// metadata) is reused within a row and never across rows.
unsigned long long next_lens_epoch() {
  static std::atomic<unsigned long long> epoch{0};
  return ++epoch;
}

class Context final : public kgate::gpu::ArmContext<Arm> {
 public:
  Context(const CaseRow& row, uint64_t seed, kgate::gpu::GpuBackend& be)
      : ArmContext(be), hp_(make_problem(Params::from_json(row.params), seed)), tol_(row.tolerance) {
    const Params& p = hp_.p;
    const int64_t T = p.tokens(), W = p.width();
    q_ = upload_vec(to_bf16(hp_.q));
    swa_ = upload_vec(hp_.swa);
    comp_ = upload_vec(hp_.compressed);
    long long swa_stride = kSwaCols, comp_stride = p.topk;
    const int32_t* comp_ptr = nullptr;
    if (p.index_concat) {
      idx_ = upload_vec(hp_.indices);
      swa_stride = comp_stride = W;
      comp_ptr = idx_.as<int32_t>() + kSwaCols;
    } else {
      std::vector<int32_t> swa(static_cast<size_t>(T * kSwaCols)), comp(static_cast<size_t>(T * p.topk));
      for (int64_t t = 0; t < T; ++t) {
        std::copy_n(&hp_.indices[t * W], kSwaCols, &swa[t * kSwaCols]);
        std::copy_n(&hp_.indices[t * W + kSwaCols], p.topk, comp.data() + t * p.topk);
      }
      idx_ = upload_vec(swa);
      comp_idx_ = upload_vec(comp);
      comp_ptr = comp_idx_.as<int32_t>();
    }
    lens_ = upload_vec(hp_.lens);
    if (p.sink) sink_ = upload_vec(hp_.sink);
    out_ = DeviceBuffer(static_cast<size_t>(p.q_rows() * p.heads * kD) * 2);
    lse_ = DeviceBuffer(static_cast<size_t>(p.q_rows() * p.heads) * 4);
    args_ = sparse_mla_args{q_.get(),
                            swa_.get(),
                            p.topk ? comp_.get() : nullptr,
                            idx_.as<int32_t>(),
                            p.topk ? comp_ptr : nullptr,
                            swa_stride,
                            comp_stride,
                            lens_.as<int32_t>(),
                            static_cast<int>(p.lens_offset),
                            p.sink ? sink_.as<float>() : nullptr,
                            out_.get(),
                            lse_.as<float>(),
                            static_cast<int>(T),
                            static_cast<int>(p.q_rows()),
                            static_cast<int>(p.heads),
                            static_cast<int>(p.topk),
                            p.swa_rows,
                            p.compressed_rows,
                            p.fp8 ? 1 : 0,
                            static_cast<int>(p.page_block),
                            static_cast<float>(hp_.sm_scale),
                            next_lens_epoch()};
  }

  Correctness check(const Implementation& impl) override {
    if (impl.exported) export_supports(impl, &args_);  // InputError: the row is not_supported
    const Params& p = hp_.p;
    const size_t n_out = static_cast<size_t>(p.q_rows() * p.heads * kD),
                 n_lse = static_cast<size_t>(p.q_rows() * p.heads);
    const std::vector<uint16_t> po(n_out, kPoisonBf16);
    const std::vector<float> pl(n_lse, poison_f32());
    out_.upload(po.data(), n_out * 2);
    lse_.upload(pl.data(), n_lse * 4);
    KGATE_CUDA(cudaDeviceSynchronize());  // legacy-stream uploads before the arm's stream
    launch(impl, be_.stream());
    KGATE_CUDA(cudaStreamSynchronize(be_.stream()));
    std::vector<uint16_t> ob(n_out);
    std::vector<float> out(n_out), lse(n_lse);
    out_.download(ob.data(), n_out * 2);
    lse_.download(lse.data(), n_lse * 4);
    for (size_t i = 0; i < n_out; ++i) out[i] = ob[i] == kPoisonBf16 ? poison_f32() : bf16_bits_to_f32(ob[i]);
    if (impl.role == "floor") return check_floor(out, lse);
    if (device_oracle()) return check_on_device(out, lse);
    if (!ref_) ref_ = std::make_unique<Reference>(reference(hp_));
    return check_outputs(hp_, *ref_, out, lse, tol_);
  }

 protected:
  void call(const Arm& a, cudaStream_t s) override {
    a.launch(args_, s);
    KGATE_CUDA_LAUNCHED();
  }

 private:
  // The floor computes nothing: every real out and lse element written, padding rows untouched.
  Correctness check_floor(const std::vector<float>& out, const std::vector<float>& lse) const {
    const Params& p = hp_.p;
    const size_t real_out = static_cast<size_t>(p.tokens() * p.heads * kD),
                 real_lse = static_cast<size_t>(p.tokens() * p.heads);
    Correctness c;
    c.elements = static_cast<int64_t>(out.size() + lse.size());
    for (size_t i = 0; i < out.size(); ++i) {
      const bool poisoned = is_poison_f32(out[i]);
      if (i < real_out ? poisoned : !poisoned) ++c.mismatches;
    }
    for (size_t i = 0; i < lse.size(); ++i) {
      const bool poisoned = is_poison_f32(lse[i]);
      if (i < real_lse ? poisoned : !poisoned) ++c.mismatches;
    }
    c.passed = c.mismatches == 0;
    c.note = "floor arm: every real out and lse element written, padding rows untouched; computes no attention";
    return c;
  }

  bool device_oracle() const { return hp_.p.tokens() * hp_.p.heads * hp_.p.width() > kCpuOracleMaxTriples; }

  // The GPU oracle: the real rows compared on the device with check_outputs' rules; the padding
  // rows (already downloaded) must still hold the poison.
  Correctness check_on_device(const std::vector<float>& out, const std::vector<float>& lse) {
    const Params& p = hp_.p;
    const int64_t T = p.tokens(), H = p.heads;
    if (!ref_out_.get()) {
      ref_out_ = DeviceBuffer(static_cast<size_t>(T * H * kD) * 8);
      ref_lse_ = DeviceBuffer(static_cast<size_t>(T * H) * 8);
      logical_idx_ = upload_vec(hp_.indices);
      const DeviceInputs in{q_.get(),
                            swa_.get(),
                            comp_.get(),
                            logical_idx_.as<int32_t>(),
                            lens_.as<int32_t>(),
                            p.sink ? sink_.as<float>() : nullptr};
      reference_device(hp_, in, ref_out_.as<double>(), ref_lse_.as<double>(), be_.stream());
    }
    auto name = [&](const char* what, int64_t inner) {
      return [=](int64_t i) {
        return std::string(what) + "[t=" + std::to_string(i / (H * inner)) + ",h=" + std::to_string(i / inner % H) +
               (inner > 1 ? ",i=" + std::to_string(i % inner) : std::string()) + "]";
      };
    };
    Correctness c = kgate::gpu::compare_device({out_.get(), true, nullptr, 1, true}, ref_out_.as<double>(), T * H * kD,
                                               tol_, name("out", kD), be_.stream());
    merge_check(c,
                kgate::gpu::compare_device({lse_.get(), false, nullptr, 1, true}, ref_lse_.as<double>(), T * H, tol_,
                                           name("lse", 1), be_.stream()),
                "lse");
    int64_t written = 0;
    for (size_t i = static_cast<size_t>(T * H * kD); i < out.size(); ++i) written += !is_poison_f32(out[i]);
    for (size_t i = static_cast<size_t>(T * H); i < lse.size(); ++i) written += !is_poison_f32(lse[i]);
    if (written) {
      c.mismatches += written;
      c.passed = false;
      if (c.worst.empty()) c.worst = "a padding query row";
    }
    c.note += std::string(c.note.empty() ? "" : "; ") +
              "oracle: the GPU reference (references/sparse_mla/sparse_mla_ref_gpu.cu), compared on the device";
    return c;
  }

  HostProblem hp_;
  Tolerance tol_;
  std::unique_ptr<Reference> ref_;
  DeviceBuffer ref_out_, ref_lse_, logical_idx_;
  DeviceBuffer q_, swa_, comp_, idx_, comp_idx_, lens_, sink_, out_, lse_;
};

}  // namespace
}  // namespace kgate::sparse_mla::gpu

namespace kgate::sparse_mla {

std::unique_ptr<RowContext> make_gpu_context(const CaseRow& row, uint64_t seed, kgate::gpu::GpuBackend& be) {
  return std::make_unique<gpu::Context>(row, seed, be);
}

}  // namespace kgate::sparse_mla
