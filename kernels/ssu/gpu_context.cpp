// ssu on the GPU: inputs uploaded once per row, the CPU reference as oracle, arm registration.
#include <cuda_bf16.h>

#include <algorithm>
#include <cstring>
#include <tuple>

#include "harness/core/numeric.hpp"
#include "harness/core/parallel.hpp"
#include "harness/gpu/backend.hpp"
#include "kernels/ssu/ssu_gpu.cuh"
#include "references/ssu/family.hpp"

namespace kgate::ssu::gpu {

void launch_baseline(const Args& a, cudaStream_t s);
void launch_fast(const Args& a, cudaStream_t s);
void launch_floor(const Args& a, cudaStream_t s);
void launch_floor_stream(const Args& a, cudaStream_t s);
void launch_t_mid_copyfirst(const Args& a, cudaStream_t s);
void launch_t_mid_nl8(const Args& a, cudaStream_t s);
void launch_t_occ18(const Args& a, cudaStream_t s);
void launch_t_tmain(const Args& a, cudaStream_t s);
void launch_t_tma(const Args& a, cudaStream_t s);
void launch_t_fastsilu(const Args& a, cudaStream_t s);
void launch_t_pflines(const Args& a, cudaStream_t s);
void launch_t_pfloads(const Args& a, cudaStream_t s);
void launch_t_vecxz(const Args& a, cudaStream_t s);
void launch_t_vecxz_mid(const Args& a, cudaStream_t s);
void launch_t_occ20(const Args& a, cudaStream_t s);
void launch_t_zlate(const Args& a, cudaStream_t s);
void launch_t_zlate18(const Args& a, cudaStream_t s);
void launch_d_nobc(const Args& a, cudaStream_t s);
void launch_d_nox(const Args& a, cudaStream_t s);
void launch_d_noz(const Args& a, cudaStream_t s);
void launch_d_now(const Args& a, cudaStream_t s);
void launch_d_noside(const Args& a, cudaStream_t s);
void launch_d_wave1(const Args& a, cudaStream_t s);

namespace {

using kgate::gpu::DeviceBuffer;

// Host floats (already exact in their dtype) to the device dtype's bytes.
std::vector<unsigned char> encode(const std::vector<float>& v, bool bf16) {
  std::vector<unsigned char> out(v.size() * (bf16 ? 2 : 4));
  if (bf16) {
    for (size_t i = 0; i < v.size(); ++i) {
      uint16_t b = f32_to_bf16_bits(v[i]);
      std::memcpy(&out[2 * i], &b, 2);
    }
  } else {
    std::memcpy(out.data(), v.data(), out.size());
  }
  return out;
}
// Device dtype bytes to host floats, on every core (a pool can hold 5 * 10^8 values).
std::vector<float> decode(const std::vector<unsigned char>& raw, bool bf16) {
  std::vector<float> v(raw.size() / (bf16 ? 2 : 4));
  const unsigned nt = hardware_threads();
  const size_t n = v.size(), step = (n + nt - 1) / nt;
  on_threads(nt, [&](unsigned t) {
    const size_t lo = std::min(n, t * step), hi = std::min(n, lo + step);
    if (bf16) {
      for (size_t i = lo; i < hi; ++i) {
        uint16_t b;
        std::memcpy(&b, &raw[2 * i], 2);
        v[i] = bf16_bits_to_f32(b);
      }
    } else if (hi > lo) {
      std::memcpy(&v[lo], &raw[4 * lo], (hi - lo) * 4);
    }
  });
  return v;
}
DeviceBuffer upload(const std::vector<float>& v, bool bf16) {
  auto bytes = encode(v, bf16);
  DeviceBuffer d(std::max<size_t>(bytes.size(), 16));
  if (!bytes.empty()) d.upload(bytes.data(), bytes.size());
  return d;
}

class Context final : public kgate::gpu::GpuRowContext {
 public:
  Context(const CaseRow& row, uint64_t seed, kgate::gpu::GpuBackend& be)
      : GpuRowContext(be), hp_(make_problem(Params::from_json(row.params), seed)), tol_(row.tolerance) {
    const Params& p = hp_.p;
    state_ = upload(hp_.state, p.state_bf16);
    pristine_ = DeviceBuffer(state_.bytes());
    KGATE_CUDA(cudaMemcpy(pristine_.get(), state_.get(), state_.bytes(), cudaMemcpyDeviceToDevice));
    slots_ = DeviceBuffer(hp_.slots.size() * 4);
    slots_.upload(hp_.slots.data(), hp_.slots.size() * 4);
    x_ = upload(hp_.x, p.io_bf16);
    B_ = upload(hp_.B, p.io_bf16);
    C_ = upload(hp_.C, p.io_bf16);
    z_ = upload(hp_.z, p.io_bf16);
    out_ = DeviceBuffer(static_cast<size_t>(p.batch * p.nheads * kP) * (p.io_bf16 ? 2 : 4));
    dt_ = upload(hp_.dt, p.weight_bf16);
    A_ = upload(hp_.A, p.weight_bf16);
    D_ = upload(hp_.D, p.weight_bf16);
    dtb_ = upload(hp_.dt_bias, p.weight_bf16);
    args_ = Args{state_.get(), slots_.as<int32_t>(), x_.get(), B_.get(), C_.get(), p.has_z ? z_.get() : nullptr,
                 out_.get(), dt_.get(), A_.get(), D_.get(), dtb_.get(), static_cast<int>(p.batch),
                 static_cast<int>(p.nheads), static_cast<int>(p.ngroups), p.x_stride(), p.bc_stride(),
                 p.state_bf16, p.io_bf16, p.weight_bf16, p.softplus, p.has_z};
  }

  Correctness check(const Implementation& impl) override {
    const Params& p = hp_.p;
    KGATE_CUDA(cudaMemcpy(state_.get(), pristine_.get(), state_.bytes(), cudaMemcpyDeviceToDevice));
    std::vector<float> poison(static_cast<size_t>(p.batch * p.nheads * kP), poison_f32());
    auto pb = encode(poison, p.io_bf16);
    out_.upload(pb.data(), pb.size());
    launch(impl, be_.stream());
    KGATE_CUDA(cudaStreamSynchronize(be_.stream()));
    std::vector<unsigned char> so(state_.bytes()), oo(out_.bytes());
    state_.download(so.data(), so.size());
    out_.download(oo.data(), oo.size());
    std::vector<float> state = decode(so, p.state_bf16), out = decode(oo, p.io_bf16);
    if (impl.role == "diagnostic") {
      Correctness c;
      c.passed = true;
      c.note = "diagnostic arm (tuning branch): computes wrong values on purpose; outputs not checked, timed only";
      return c;
    }
    if (impl.role == "floor") {
      // The floor arm only moves the state bytes: it must leave every byte as it found it.
      Correctness c;
      c.elements = static_cast<int64_t>(state.size());
      c.mismatches = std::memcmp(state.data(), hp_.state.data(), state.size() * 4) ? 1 : 0;
      for (size_t i = 0; c.mismatches && i < state.size(); ++i)
        if (std::memcmp(&state[i], &hp_.state[i], 4)) {
          c.worst = "state[" + std::to_string(i) + "]";
          break;
        }
      c.passed = c.mismatches == 0;
      c.note = "floor arm: state bytes read and written back bit-identical; computes no output";
      return c;
    }
    if (!ref_) ref_ = std::make_unique<Reference>(reference(hp_));
    return check_outputs(hp_, *ref_, state, out, tol_);
  }

 protected:
  void launch(const Implementation& impl, cudaStream_t s) override {
    reinterpret_cast<GpuFn>(impl.launch)(args_, s);
    KGATE_CUDA_LAUNCHED();
  }

 private:
  HostProblem hp_;
  Tolerance tol_;
  std::unique_ptr<Reference> ref_;
  DeviceBuffer state_, pristine_, slots_, x_, B_, C_, z_, out_, dt_, A_, D_, dtb_;
  Args args_{};
};

}  // namespace

void install(Registry& r) {
  Family* f = r.find_family_mut("ssu");
  f->make_gpu_context = [](const CaseRow& row, uint64_t seed, void* be) -> std::unique_ptr<RowContext> {
    return std::make_unique<Context>(row, seed, *static_cast<kgate::gpu::GpuBackend*>(be));
  };
  const std::vector<std::string> src = {"kernels/ssu/ssu_gpu.cu", "kernels/ssu/ssu_gpu.cuh", "kernels/ssu/gpu_context.cpp"};
  r.add({"ssu.baseline", "ssu", "cuda", "baseline", {"sm_90a"}, {"ssu_baseline_kernel"}, src,
         "Triton selective_state_update structure, BLOCK_SIZE_M=8, 4 warps, grid (dim tiles, batch, heads)", nullptr,
         reinterpret_cast<void*>(&launch_baseline)});
  r.add({"ssu.fast", "ssu", "cuda", "candidate", {"sm_90a"}, {"ssu_fast_kernel", "ssu_fast_mid_kernel"}, src,
         "row owner: 2-warp CTAs over row slices of a (batch, head), state through cp.async, side rows prefetched to L2 (BF16 state)", nullptr,
         reinterpret_cast<void*>(&launch_fast)});
  r.add({"ssu.t_mid_copyfirst", "ssu", "cuda", "baseline", {"sm_90a"}, {"ssu_fast_kernel", "ssu_fast_mid_kernel"}, src,
         "tuning: BF16 mid range in the state-copy-first order (vector B/C, prefetch)", nullptr,
         reinterpret_cast<void*>(&launch_t_mid_copyfirst)});
  r.add({"ssu.t_mid_nl8", "ssu", "cuda", "baseline", {"sm_90a"}, {"ssu_fast_kernel", "ssu_fast_mid_kernel"}, src,
         "tuning: BF16 mid range at 8 chunks per lane, state copy first (vector B/C, prefetch)", nullptr,
         reinterpret_cast<void*>(&launch_t_mid_nl8)});
  for (auto [name, fn, what] : {std::tuple{"ssu.t_tmain", &launch_t_tmain, "tuning: BF16 mid kernel, state slice in by one bulk copy (mbarrier)"},
                                {"ssu.t_tma", &launch_t_tma, "tuning: BF16 mid kernel, state slice in and out by bulk copies"},
                                {"ssu.t_fastsilu", &launch_t_fastsilu, "tuning: BF16 mid kernel, z gate with __fdividef"},
                                {"ssu.t_pflines", &launch_t_pflines, "tuning: side rows prefetched line by line (prefetch.global.L2, warp 0)"},
                                {"ssu.t_pfloads", &launch_t_pfloads, "tuning: side rows read sector by sector into L2 (ld.global.cg, warp 0)"},
                                {"ssu.t_vecxz", &launch_t_vecxz, "tuning: BF16 mid and large kernels, x and z by 16-byte broadcast loads"},
                                {"ssu.t_vecxz_mid", &launch_t_vecxz_mid, "tuning: BF16 mid kernel, x and z by 16-byte broadcast loads"},
                                {"ssu.t_occ18", &launch_t_occ18, "tuning: BF16 mid kernel at 18 CTAs per SM (56 registers)"},
                                {"ssu.t_occ20", &launch_t_occ20, "tuning: BF16 mid kernel at 20 CTAs per SM (48 registers, 8 B spill)"},
                                {"ssu.t_zlate", &launch_t_zlate, "tuning: BF16 mid kernel, z read at the end"},
                                {"ssu.t_zlate18", &launch_t_zlate18, "tuning: BF16 mid kernel, z read at the end, 18 CTAs per SM"}})
    r.add({name, "ssu", "cuda", "baseline", {"sm_90a"}, {"ssu_fast_kernel", "ssu_fast_mid_kernel"}, src, what, nullptr,
           reinterpret_cast<void*>(fn)});
  // Diagnostics (tuning branch only): outputs wrong on purpose, role "diagnostic", timed only.
  for (auto [name, fn] : {std::pair{"ssu.d_nobc", &launch_d_nobc}, {"ssu.d_nox", &launch_d_nox}, {"ssu.d_noz", &launch_d_noz},
                          {"ssu.d_now", &launch_d_now}, {"ssu.d_noside", &launch_d_noside}, {"ssu.d_wave1", &launch_d_wave1}})
    r.add({name, "ssu", "cuda", "diagnostic", {"sm_90a"}, {"ssu_fast_mid_kernel"}, src, "diagnostic (wrong outputs)", nullptr,
           reinterpret_cast<void*>(fn)});
  r.add({"ssu.floor", "ssu", "cuda", "floor", {"sm_90a"}, {"ssu_floor_kernel"}, src,
         "copies the state bytes the update reads and writes (bandwidth anchor)", nullptr,
         reinterpret_cast<void*>(&launch_floor)});
  r.add({"ssu.floor_stream", "ssu", "cuda", "floor", {"sm_90a"}, {"ssu_floor_stream_kernel"}, src,
         "the same bytes by persistent warps, round-robin 4 KiB tiles, cp.async pipeline (second anchor)", nullptr,
         reinterpret_cast<void*>(&launch_floor_stream)});
}

}  // namespace kgate::ssu::gpu
