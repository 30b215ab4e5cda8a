// ssu on the GPU: the row context. Inputs uploaded once per row, the CPU reference as oracle
// (family.cpp's check_arm), the launch config of each arm for the row.
#include <cuda_bf16.h>

#include <algorithm>
#include <cstring>

#include "harness/core/numeric.hpp"
#include "harness/core/parallel.hpp"
#include "harness/export/loader.hpp"
#include "harness/gpu/backend.hpp"
#include "kernels/ssu/family.hpp"
#include "kernels/ssu/launch.hpp"

namespace kgate::ssu::gpu {
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
    if (impl.exported) export_supports(impl, &args_);  // InputError: the row is not_supported
    const Params& p = hp_.p;
    KGATE_CUDA(cudaMemcpy(state_.get(), pristine_.get(), state_.bytes(), cudaMemcpyDeviceToDevice));
    std::vector<float> poison(static_cast<size_t>(p.batch * p.nheads * kP), poison_f32());
    auto pb = encode(poison, p.io_bf16);
    out_.upload(pb.data(), pb.size());
    const bool to_dst = !impl.exported && arm(impl).launch_to;
    if (to_dst) {
      DeviceBuffer& d = dst_pool();
      KGATE_CUDA(cudaMemset(d.get(), 0xff, d.bytes()));
    }
    launch(impl, be_.stream());
    KGATE_CUDA(cudaStreamSynchronize(be_.stream()));
    std::vector<unsigned char> so(state_.bytes()), oo(out_.bytes());
    state_.download(so.data(), so.size());
    out_.download(oo.data(), oo.size());
    std::vector<float> state = decode(so, p.state_bf16), out = decode(oo, p.io_bf16);
    auto ref = [&]() -> const Reference& {
      if (!ref_) ref_ = std::make_unique<Reference>(reference(hp_));
      return *ref_;
    };
    Correctness c = check_arm(impl, hp_, ref, state, out, tol_);
    if (to_dst && c.passed) check_copy(c);
    return c;
  }

  // An export arm's launch configuration is its own: none recorded.
  json config(const Implementation& impl) const override {
    return impl.exported ? json(nullptr) : arm(impl).config(args_).to_json();
  }

 protected:
  void launch(const Implementation& impl, cudaStream_t s) override {
    if (impl.exported) export_launch(impl, &args_, s);
    else if (arm(impl).launch_to) arm(impl).launch_to(args_, dst_pool().get(), s);
    else arm(impl).launch(args_, s);
    KGATE_CUDA_LAUNCHED();
  }

 private:
  static const GpuArm& arm(const Implementation& impl) { return *static_cast<const GpuArm*>(impl.launch); }

  // The second pool of an out-of-place arm, allocated on its first check (before any timing).
  DeviceBuffer& dst_pool() {
    if (!dst_.get()) dst_ = DeviceBuffer(state_.bytes());
    return dst_;
  }
  // An out-of-place copy: every tile of an owned slot bit-identical to the source pool, every
  // other byte of the second pool still the 0xff poison written before the launch.
  void check_copy(Correctness& c) {
    const Params& p = hp_.p;
    std::vector<unsigned char> src(pristine_.bytes()), got(dst_.bytes());
    pristine_.download(src.data(), src.size());
    dst_.download(got.data(), got.size());
    const size_t tile = static_cast<size_t>(p.nheads) * kP * kN * (p.state_bf16 ? 2 : 4);
    std::vector<char> owned(static_cast<size_t>(p.pool_slots), 0);
    for (int32_t sl : hp_.slots)
      if (sl >= 0) owned[static_cast<size_t>(sl)] = 1;
    int64_t bad = 0;
    for (size_t sl = 0; sl < owned.size(); ++sl) {
      const unsigned char* g = got.data() + sl * tile;
      const bool ok = owned[sl] ? std::memcmp(g, src.data() + sl * tile, tile) == 0
                                : std::all_of(g, g + tile, [](unsigned char v) { return v == 0xff; });
      if (!ok && bad++ == 0) c.worst = std::string(owned[sl] ? "copied" : "unowned") + " pool slot " + std::to_string(sl);
    }
    c.elements += static_cast<int64_t>(owned.size());
    c.mismatches += bad;
    c.passed = bad == 0;
    c.note = "out-of-place floor: owned slots copied bit-identical into a second pool, other slots untouched, "
             "source pool unchanged";
  }

  HostProblem hp_;
  Tolerance tol_;
  std::unique_ptr<Reference> ref_;
  DeviceBuffer state_, pristine_, dst_, slots_, x_, B_, C_, z_, out_, dt_, A_, D_, dtb_;
  Args args_{};
};

}  // namespace

}  // namespace kgate::ssu::gpu

namespace kgate::ssu {

std::unique_ptr<RowContext> make_gpu_context(const CaseRow& row, uint64_t seed, void* be) {
  return std::make_unique<gpu::Context>(row, seed, *static_cast<kgate::gpu::GpuBackend*>(be));
}

}  // namespace kgate::ssu
