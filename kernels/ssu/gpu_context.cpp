// ssu on the GPU: the row context. Inputs uploaded once per row; the per-call inputs a server
// changes every step (x, B, C, z, dt) rotate over the row's input sets (harness/gpu/proof.hpp),
// while the pool, the slot table and the per-head weights stay one copy; a verified call starts
// from the pristine pool. The oracle, per input set: for a correctness check, the CPU reference
// (family.cpp's check_arm) on rows whose pool it scans well under a second, the GPU reference
// (references/ssu/ssu_ref_gpu.cu) compared on the device above that; for a verified timed call,
// the GPU reference on every row (no pool download per call). The launch config of each arm.
#include <cuda_bf16.h>

#include <algorithm>
#include <cstring>

#include "harness/core/numeric.hpp"
#include "harness/core/parallel.hpp"
#include "harness/export/loader.hpp"
#include "harness/gpu/arm_context.hpp"
#include "harness/gpu/compare_device.hpp"
#include "harness/gpu/proof.hpp"
#include "harness/run/cpu_backend.hpp"  // merge_check
#include "kernels/ssu/family.hpp"
#include "kernels/ssu/launch.hpp"
#include "references/ssu/ssu_ref_gpu.hpp"

namespace kgate::ssu::gpu {
namespace {

using kgate::gpu::DeviceBuffer;

// Pools above this many values are checked on the device: the CPU reference of a 2^24-value
// pool (a 32 MiB BF16 pool, e.g. Nemotron-H batch 16) takes ~0.1 s on 16 cores; the largest
// rows (5 * 10^8 values) take seconds per row and as long again per arm to download and scan.
constexpr int64_t kCpuOracleMaxValues = int64_t{1} << 24;

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

// The inputs of one decode step, the ones that rotate over the input sets.
struct Step {
  std::vector<float> x, B, C, z, dt;
};
void swap_step(HostProblem& hp, Step& st) {
  hp.x.swap(st.x);
  hp.B.swap(st.B);
  hp.C.swap(st.C);
  hp.z.swap(st.z);
  hp.dt.swap(st.dt);
}
// The live buffers a Step fills, in InputSets order.
std::vector<unsigned char> step_bytes(const Step& st, size_t i, const Params& p) {
  const std::vector<float>* v[] = {&st.x, &st.B, &st.C, &st.z, &st.dt};
  return encode(*v[i], i == 4 ? p.weight_bf16 : p.io_bf16);
}

class Context final : public kgate::gpu::ArmContext<Arm> {
 public:
  Context(const CaseRow& row, uint64_t seed, kgate::gpu::GpuBackend& be)
      : Context(Params::from_json(row.params), row, seed, be) {}
  Context(const Params& params, const CaseRow& row, uint64_t seed, kgate::gpu::GpuBackend& be)
      : ArmContext(be),
        device_oracle_(pool_values(params) > kCpuOracleMaxValues),
        hp_(make_problem(params, seed, !device_oracle_)),
        tol_(row.tolerance) {
    const Params& p = hp_.p;
    if (device_oracle_) {
      state_ = DeviceBuffer(static_cast<size_t>(pool_values(p)) * (p.state_bf16 ? 2 : 4));
      fill_pool_device(p, seed, state_.get(), be_.stream());
      KGATE_CUDA(cudaStreamSynchronize(be_.stream()));
    } else {
      state_ = upload(hp_.state, p.state_bf16);
    }
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
    std::vector<float> poison(static_cast<size_t>(p.batch * p.nheads * kP), poison_f32());
    poisoned_out_ = upload(poison, p.io_bf16);
    sets_.bind({&x_, &B_, &C_, &z_, &dt_}, be_.stream());
    if (!device_oracle_) steps_.push_back(Step{hp_.x, hp_.B, hp_.C, hp_.z, hp_.dt});
    args_ = Args{state_.get(),
                 slots_.as<int32_t>(),
                 x_.get(),
                 B_.get(),
                 C_.get(),
                 p.has_z ? z_.get() : nullptr,
                 out_.get(),
                 dt_.get(),
                 A_.get(),
                 D_.get(),
                 dtb_.get(),
                 static_cast<int>(p.batch),
                 static_cast<int>(p.nheads),
                 static_cast<int>(p.ngroups),
                 p.x_stride(),
                 p.bc_stride(),
                 p.state_bf16,
                 p.io_bf16,
                 p.weight_bf16,
                 p.softplus,
                 p.has_z};
  }

  Correctness check(const Implementation& impl) override {
    if (impl.exported) export_supports(impl, &args_);  // InputError: the row is not_supported
    prepare_verified(impl);
    launch(impl, be_.stream());
    return verified(impl, device_oracle());
  }

  // Sets 1.. from their seeds: the step inputs of make_problem(params, seed), the row's pool,
  // slots and weights kept.
  void add_input_sets(const std::vector<uint64_t>& seeds) override {
    for (uint64_t seed : seeds) {
      HostProblem other = make_problem(hp_.p, seed, false);
      Step st{std::move(other.x), std::move(other.B), std::move(other.C), std::move(other.z), std::move(other.dt)};
      sets_.add([&](size_t i, DeviceBuffer& master) {
        const auto bytes = step_bytes(st, i, hp_.p);
        if (!bytes.empty()) master.upload(bytes.data(), bytes.size());
      });
      if (!device_oracle_) steps_.push_back(std::move(st));
    }
  }
  int input_sets() const override { return sets_.size(); }
  void load_input(int set) override { sets_.load(set, be_.stream()); }

  // Stream-ordered before the call: the pool from pristine, out poisoned, an out-of-place arm's
  // second pool filled with 0xff.
  void prepare_verified(const Implementation& impl) override {
    const cudaStream_t s = be_.stream();
    kgate::gpu::copy_async(state_, pristine_, s);
    kgate::gpu::copy_async(out_, poisoned_out_, s);
    if (out_of_place(impl)) {
      const DeviceBuffer& d = dst_pool();
      KGATE_CUDA(cudaMemsetAsync(d.get(), 0xff, d.bytes(), s));
    }
  }

  // A timed call is verified on the device on every row: check_outputs' rules against the GPU
  // reference (GpuRef.SsuMatchesTheCpuReference), without downloading the pool per call; the CPU
  // reference decides the correctness checks of the rows it runs on.
  Correctness verify(const Implementation& impl) override { return verified(impl, true); }

 private:
  Correctness verified(const Implementation& impl, bool on_device) {
    KGATE_CUDA(cudaStreamSynchronize(be_.stream()));
    const int set = sets_.loaded();
    if (on_device) return check_on_device(impl, out_of_place(impl), set);
    const Params& p = hp_.p;
    std::vector<unsigned char> so(state_.bytes()), oo(out_.bytes());
    state_.download(so.data(), so.size());
    out_.download(oo.data(), oo.size());
    std::vector<float> state = decode(so, p.state_bf16), out = decode(oo, p.io_bf16);
    refs_.resize(static_cast<size_t>(sets_.size()));
    auto& slot = refs_[static_cast<size_t>(set)];
    Step& st = steps_.at(static_cast<size_t>(set));
    // hp_ holds the loaded set's step inputs for the reference and the check, then set 0's again.
    const kgate::gpu::SwappedIn swapped([&] { swap_step(hp_, st); });
    auto ref = [&]() -> const Reference& {
      if (!slot) slot = std::make_unique<Reference>(reference(hp_));
      return *slot;
    };
    Correctness c = check_arm(impl, hp_, ref, state, out, tol_);
    if (out_of_place(impl) && c.passed) check_copy(c);
    return c;
  }

 protected:
  void call(const Arm& a, cudaStream_t s) override {
    a.launch(args_, Pools{a.traits.out_of_place ? dst_pool().get() : nullptr}, s);
    KGATE_CUDA_LAUNCHED();
  }

 private:
  // The second pool of an out-of-place arm, allocated on its first check (before any timing).
  DeviceBuffer& dst_pool() {
    if (!dst_.get()) dst_ = DeviceBuffer(state_.bytes());
    return dst_;
  }
  bool device_oracle() const { return device_oracle_; }
  static bool out_of_place(const Implementation& impl) { return !impl.exported && arm(impl).traits.out_of_place; }
  int64_t tile_bytes() const { return hp_.p.nheads * kP * kN * (hp_.p.state_bf16 ? 2 : 4); }

  // Per pool slot: 1 where a real (non-pad) batch row owns it, and its complement, on the device.
  const unsigned char* slot_mask(bool owned_mask) {
    if (!owned_.get()) {
      const Params& p = hp_.p;
      std::vector<unsigned char> own(static_cast<size_t>(p.pool_slots), 0), other;
      for (int32_t sl : hp_.slots)
        if (sl >= 0) own[static_cast<size_t>(sl)] = 1;
      for (unsigned char o : own) other.push_back(o ? 0 : 1);
      owned_ = DeviceBuffer(own.size());
      owned_.upload(own.data(), own.size());
      unowned_ = DeviceBuffer(other.size());
      unowned_.upload(other.data(), other.size());
    }
    return (owned_mask ? owned_ : unowned_).as<unsigned char>();
  }
  // Pool slots (selected by mask; null = all) of `a` that differ from pristine (or from `fill`
  // bytes when `against_pristine` is false); the first one named into `first`.
  int64_t changed_slots(const DeviceBuffer& a, bool against_pristine, unsigned char fill, const unsigned char* mask,
                        int64_t* first) {
    return kgate::gpu::differing_tiles(a.get(), against_pristine ? pristine_.get() : nullptr, fill, hp_.p.pool_slots,
                                       tile_bytes(), mask, first, be_.stream());
  }
  static void add_slot_check(Correctness& c, int64_t tiles, int64_t bad, int64_t first, const std::string& what) {
    c.elements += tiles;
    c.mismatches += bad;
    c.passed = c.passed && bad == 0;
    if (bad && c.worst.empty()) c.worst = what + " pool slot " + std::to_string(first);
  }

  // The GPU oracle: the arm's pool and out compared on the device with check_outputs' rules
  // (state-dtype tolerance on owned tiles, unowned slots bit-identical); floors by bytes.
  Correctness check_on_device(const Implementation& impl, bool to_dst, int set) {
    const Params& p = hp_.p;
    Correctness c;
    c.passed = true;
    int64_t first = -1, bad = 0;
    if (impl.role == "floor") {
      bad = changed_slots(state_, true, 0, nullptr, &first);
      add_slot_check(c, p.pool_slots, bad, first, "changed");
      c.note = "floor arm: state bytes read and written back bit-identical; computes no output";
      if (to_dst) check_copy(c);
      c.note += "; checked on the device (floor arm: the source pool bit-identical)";
      return c;
    }
    const DeviceRef& r = device_ref(set);
    const int64_t per_row = p.nheads * kP * kN;
    c = kgate::gpu::compare_device(
        {out_.get(), p.io_bf16, nullptr, 1, true}, r.out.as<double>(), p.batch * p.nheads * kP, tol_,
        [&](int64_t i) {
          return "out[b=" + std::to_string(i / (p.nheads * kP)) + ",h=" + std::to_string(i / kP % p.nheads) +
                 ",d=" + std::to_string(i % kP) + "]";
        },
        be_.stream());
    const Tolerance st = p.state_bf16 ? Tolerance{1e-2, 1e-2} : Tolerance{1e-4, 1e-4};
    Correctness cs = kgate::gpu::compare_device(
        {state_.get(), p.state_bf16, slots_.as<int32_t>(), per_row, false}, r.state.as<double>(), p.batch * per_row, st,
        [&](int64_t i) {
          return "state[b=" + std::to_string(i / per_row) + ",h=" + std::to_string(i / (kP * kN) % p.nheads) +
                 ",d=" + std::to_string(i / kN % kP) + ",n=" + std::to_string(i % kN) + "]";
        },
        be_.stream());
    if (p.pad_slots == p.batch) {
      // Every batch row is a pad slot: no owned tile to compare (the CPU check compares the
      // whole pool, here unchanged); the verdict rests on the unowned-slot check below.
      cs.passed = cs.mismatches == 0 && cs.nonfinite == 0 && cs.unwritten == 0;
      cs.elements = p.pool_slots;
    }
    bad = changed_slots(state_, true, 0, slot_mask(false), &first);
    cs.mismatches += bad;
    cs.passed = cs.passed && bad == 0;
    cs.note = "unowned slots bit-identical: " + std::string(bad ? "NO (" + std::to_string(bad) + " changed)" : "yes") +
              ", pad slots " + std::to_string(p.pad_slots);
    merge_check(c, cs, "state");
    c.note += "; oracle: the GPU fp64 reference (references/ssu/ssu_ref_gpu.cu), compared on the device";
    return c;
  }

  // The GPU reference of input set `set`, from its masters and the pristine pool, computed on the
  // set's first verified call and kept for the unit.
  struct DeviceRef {
    DeviceBuffer state, out;
  };
  const DeviceRef& device_ref(int set) {
    dev_refs_.resize(static_cast<size_t>(sets_.size()));
    DeviceRef& r = dev_refs_[static_cast<size_t>(set)];
    if (r.state.get()) return r;
    const Params& p = hp_.p;
    const size_t state_bytes = static_cast<size_t>(p.batch * p.nheads * kP * kN) * 8,
                 out_bytes = static_cast<size_t>(p.batch * p.nheads * kP) * 8;
    kgate::gpu::require_free(state_bytes + out_bytes, "the GPU oracle of input set " + std::to_string(set));
    r.state = DeviceBuffer(state_bytes);
    r.out = DeviceBuffer(out_bytes);
    auto in_set = [&](size_t i) { return sets_.master(set, i).get(); };
    const DeviceInputs in{pristine_.get(), slots_.as<int32_t>(),
                          in_set(0),       in_set(1),
                          in_set(2),       p.has_z ? in_set(3) : nullptr,
                          in_set(4),       A_.get(),
                          D_.get(),        dtb_.get()};
    reference_device(p, in, r.state.as<double>(), r.out.as<double>(), be_.stream());
    return r;
  }

  // An out-of-place copy: every tile of an owned slot bit-identical to the source pool, every
  // other slot of the second pool still the 0xff poison written before the launch.
  void check_copy(Correctness& c) {
    int64_t first = -1;
    // (The count first: arguments are evaluated in no fixed order, and `first` is its output.)
    const int64_t copied = changed_slots(dst_, true, 0, slot_mask(true), &first);
    add_slot_check(c, hp_.p.pool_slots, copied, first, "copied");
    const int64_t unowned = changed_slots(dst_, false, 0xff, slot_mask(false), &first);
    add_slot_check(c, 0, unowned, first, "unowned");
    c.note =
        "out-of-place floor: owned slots copied bit-identical into a second pool, other slots untouched, "
        "source pool unchanged";
  }

  bool device_oracle_;  // pool above kCpuOracleMaxValues: generated, referenced and compared on the device
  HostProblem hp_;
  Tolerance tol_;
  std::vector<std::unique_ptr<Reference>> refs_;  // per input set, on the CPU oracle's rows
  std::vector<Step> steps_;                       // per input set, on the CPU oracle's rows
  std::vector<DeviceRef> dev_refs_;               // per input set, on the GPU oracle's rows
  DeviceBuffer state_, pristine_, dst_, owned_, unowned_, slots_, x_, B_, C_, z_, out_, poisoned_out_, dt_, A_, D_,
      dtb_;
  kgate::gpu::InputSets sets_;  // x, B, C, z, dt
};

}  // namespace

}  // namespace kgate::ssu::gpu

namespace kgate::ssu {

std::unique_ptr<RowContext> make_gpu_context(const CaseRow& row, uint64_t seed, kgate::gpu::GpuBackend& be) {
  return std::make_unique<gpu::Context>(row, seed, be);
}

}  // namespace kgate::ssu
