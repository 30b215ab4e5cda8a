// sparse_mla on the GPU: the row context. Inputs uploaded once per row in the ABI's layout
// (kernels/sparse_mla/abi.h: two index tables, or one concatenated; raw lengths and the offset;
// padding query rows), out and lse poisoned before every verified call. The input sets are the
// layers of one decode step (references' redraw_step): q and the index tables rotate
// (harness/gpu/proof.hpp), the KV caches, lengths and sink stay one copy, so lens_epoch, and the
// scheduler plans derived from it, hold for every set (NOTES.md, what was tried). The oracle per
// set: for a correctness check, the CPU reference on small rows, the GPU reference above
// kCpuOracleMaxTriples; for a verified timed call, the GPU reference on every row.
#include <cuda_bf16.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>

#include "harness/core/numeric.hpp"
#include "harness/export/loader.hpp"
#include "harness/gpu/arm_context.hpp"
#include "harness/gpu/compare_device.hpp"
#include "harness/gpu/proof.hpp"
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

// A set's index tables in the ABI's storage: one concatenated [T, W] table, or the SWA [T, 128]
// and compressed [T, topk] tables.
std::vector<std::vector<int32_t>> index_storage(const Params& p, const std::vector<int32_t>& indices) {
  if (p.index_concat) return {indices};
  const int64_t T = p.tokens(), W = p.width();
  std::vector<int32_t> swa(static_cast<size_t>(T * kSwaCols)), comp(static_cast<size_t>(T * p.topk));
  for (int64_t t = 0; t < T; ++t) {
    std::copy_n(&indices[t * W], kSwaCols, &swa[t * kSwaCols]);
    std::copy_n(&indices[t * W + kSwaCols], p.topk, comp.data() + t * p.topk);
  }
  return {swa, comp};
}

// The inputs of one layer of the decode step, the ones that rotate over the input sets.
struct Step {
  std::vector<float> q;
  std::vector<int32_t> indices;
};
void swap_step(HostProblem& hp, Step& st) {
  hp.q.swap(st.q);
  hp.indices.swap(st.indices);
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
    const auto tables = index_storage(p, hp_.indices);
    idx_ = upload_vec(tables[0]);
    if (p.index_concat) {
      swa_stride = comp_stride = W;
      comp_ptr = idx_.as<int32_t>() + kSwaCols;
    } else {
      comp_idx_ = upload_vec(tables[1]);
      comp_ptr = comp_idx_.as<int32_t>();
    }
    lens_ = upload_vec(hp_.lens);
    if (p.sink) sink_ = upload_vec(hp_.sink);
    poisoned_out_ = upload_vec(std::vector<uint16_t>(static_cast<size_t>(p.q_rows() * p.heads * kD), kPoisonBf16));
    poisoned_lse_ = upload_vec(std::vector<float>(static_cast<size_t>(p.q_rows() * p.heads), poison_f32()));
    out_ = DeviceBuffer(poisoned_out_.bytes());
    lse_ = DeviceBuffer(poisoned_lse_.bytes());
    std::vector<const DeviceBuffer*> live{&q_, &idx_};
    if (!p.index_concat) live.push_back(&comp_idx_);
    sets_.bind(std::move(live), be_.stream());
    steps_.push_back(Step{hp_.q, hp_.indices});
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
    prepare_verified(impl);
    launch(impl, be_.stream());
    return verified(impl, device_oracle());
  }

  void add_input_sets(const std::vector<uint64_t>& seeds) override {
    for (uint64_t seed : seeds) {
      // redraw_step redraws a HostProblem's q and indices: hp_ lends the rest, keeps set 0's.
      Step st{hp_.q, hp_.indices};
      swap_step(hp_, st);
      redraw_step(hp_, seed);
      swap_step(hp_, st);
      const auto q = to_bf16(st.q);
      const auto tables = index_storage(hp_.p, st.indices);
      sets_.add([&](size_t i, DeviceBuffer& master) {
        if (i == 0)
          master.upload(q.data(), q.size() * 2);
        else if (!tables[i - 1].empty())
          master.upload(tables[i - 1].data(), tables[i - 1].size() * 4);
      });
      steps_.push_back(std::move(st));
    }
  }
  int input_sets() const override { return sets_.size(); }
  void load_input(int set) override { sets_.load(set, be_.stream()); }

  // out and lse poisoned, stream-ordered before the call (the padding rows too: they must stay so).
  void prepare_verified(const Implementation&) override {
    kgate::gpu::copy_async(out_, poisoned_out_, be_.stream());
    kgate::gpu::copy_async(lse_, poisoned_lse_, be_.stream());
  }

  // A timed call is verified on the device on every row: check_outputs' rules against the GPU
  // reference (GpuRef.SparseMlaMatchesTheCpuReference), only the padding rows downloaded; the
  // CPU reference decides the correctness checks of the rows it runs on.
  Correctness verify(const Implementation& impl) override { return verified(impl, true); }

 private:
  Correctness verified(const Implementation& impl, bool on_device) {
    KGATE_CUDA(cudaStreamSynchronize(be_.stream()));
    const int set = sets_.loaded();
    if (on_device && impl.role != "floor") return check_on_device(set);
    const Params& p = hp_.p;
    const size_t n_out = static_cast<size_t>(p.q_rows() * p.heads * kD),
                 n_lse = static_cast<size_t>(p.q_rows() * p.heads);
    std::vector<uint16_t> ob(n_out);
    std::vector<float> out(n_out), lse(n_lse);
    out_.download(ob.data(), n_out * 2);
    lse_.download(lse.data(), n_lse * 4);
    for (size_t i = 0; i < n_out; ++i) out[i] = ob[i] == kPoisonBf16 ? poison_f32() : bf16_bits_to_f32(ob[i]);
    if (impl.role == "floor") return check_floor(out, lse);
    refs_.resize(static_cast<size_t>(sets_.size()));
    std::unique_ptr<Reference>& ref = refs_[static_cast<size_t>(set)];
    // hp_ holds the loaded set's q and indices for the reference and the check, then set 0's again.
    Step& st = steps_.at(static_cast<size_t>(set));
    const kgate::gpu::SwappedIn swapped([&] { swap_step(hp_, st); });
    if (!ref) ref = std::make_unique<Reference>(reference(hp_));
    return check_outputs(hp_, *ref, out, lse, tol_);
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
  Correctness check_on_device(int set) {
    const Params& p = hp_.p;
    const int64_t T = p.tokens(), H = p.heads;
    const DeviceRef& r = device_ref(set);
    auto name = [&](const char* what, int64_t inner) {
      return [=](int64_t i) {
        return std::string(what) + "[t=" + std::to_string(i / (H * inner)) + ",h=" + std::to_string(i / inner % H) +
               (inner > 1 ? ",i=" + std::to_string(i % inner) : std::string()) + "]";
      };
    };
    Correctness c = kgate::gpu::compare_device({out_.get(), true, nullptr, 1, true}, r.out.as<double>(), T * H * kD,
                                               tol_, name("out", kD), be_.stream());
    merge_check(c,
                kgate::gpu::compare_device({lse_.get(), false, nullptr, 1, true}, r.lse.as<double>(), T * H, tol_,
                                           name("lse", 1), be_.stream()),
                "lse");
    const size_t pad_rows = static_cast<size_t>((p.q_rows() - T) * H);
    std::vector<uint16_t> out_pad(pad_rows * kD);
    std::vector<float> lse_pad(pad_rows);
    if (pad_rows) {
      out_.download(out_pad.data(), out_pad.size() * 2, static_cast<size_t>(T * H * kD) * 2);
      lse_.download(lse_pad.data(), lse_pad.size() * 4, static_cast<size_t>(T * H) * 4);
    }
    int64_t written = 0;
    for (uint16_t b : out_pad) written += b != kPoisonBf16;
    for (float f : lse_pad) written += !is_poison_f32(f);
    if (written) {
      c.mismatches += written;
      c.passed = false;
      if (c.worst.empty()) c.worst = "a padding query row";
    }
    c.note += std::string(c.note.empty() ? "" : "; ") +
              "oracle: the GPU reference (references/sparse_mla/sparse_mla_ref_gpu.cu), compared on the device";
    return c;
  }

  // The GPU reference of input set `set` (from its q master and logical indices), computed on the
  // set's first verified call and kept for the unit.
  struct DeviceRef {
    DeviceBuffer out, lse, indices;
  };
  const DeviceRef& device_ref(int set) {
    dev_refs_.resize(static_cast<size_t>(sets_.size()));
    DeviceRef& r = dev_refs_[static_cast<size_t>(set)];
    if (r.out.get()) return r;
    const Params& p = hp_.p;
    const int64_t T = p.tokens(), H = p.heads;
    const std::vector<int32_t>& indices = steps_.at(static_cast<size_t>(set)).indices;
    kgate::gpu::require_free(static_cast<size_t>(T * H * (kD + 1)) * 8 + indices.size() * 4,
                             "the GPU oracle of input set " + std::to_string(set));
    r.out = DeviceBuffer(static_cast<size_t>(T * H * kD) * 8);
    r.lse = DeviceBuffer(static_cast<size_t>(T * H) * 8);
    r.indices = upload_vec(indices);
    const DeviceInputs in{sets_.master(set, 0).get(), swa_.get(),          comp_.get(),
                          r.indices.as<int32_t>(),    lens_.as<int32_t>(), p.sink ? sink_.as<float>() : nullptr};
    reference_device(hp_, in, r.out.as<double>(), r.lse.as<double>(), be_.stream());
    return r;
  }

  HostProblem hp_;
  Tolerance tol_;
  std::vector<std::unique_ptr<Reference>> refs_;  // per input set, on the CPU oracle's rows
  std::vector<Step> steps_;                       // per input set
  std::vector<DeviceRef> dev_refs_;               // per input set, on the GPU oracle's rows
  DeviceBuffer q_, swa_, comp_, idx_, comp_idx_, lens_, sink_, out_, lse_, poisoned_out_, poisoned_lse_;
  kgate::gpu::InputSets sets_;  // q, the index table(s)
};

}  // namespace
}  // namespace kgate::sparse_mla::gpu

namespace kgate::sparse_mla {

std::unique_ptr<RowContext> make_gpu_context(const CaseRow& row, uint64_t seed, kgate::gpu::GpuBackend& be) {
  return std::make_unique<gpu::Context>(row, seed, be);
}

}  // namespace kgate::sparse_mla
