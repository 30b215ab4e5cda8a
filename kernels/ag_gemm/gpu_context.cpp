// ag_gemm on the GPU: the row context of one rank. Its shards are written on the device from
// (seed, rank) (references/ag_gemm/ag_gemm.hpp); C, and the gathered workspace the arms write,
// are poisoned before every verified call. Input set k is the whole problem of its seed (every
// shard and B: the references take one seed), rotated through fixed addresses
// (harness/gpu/proof.hpp); ranks of a real job agree before and after each rotation, since a peer
// reads this rank's shard. The oracle per set: for a correctness check, the CPU reference on
// small rows, the cuBLAS fp32 reference (ag_gemm_ref_gpu.hpp) on the others; for a verified timed
// call, the cuBLAS reference on every row; each computed on its set's first use.
//  - Simulated ranks (RankRole::simulated): the peers' shards are local buffers of this GPU,
//    handed to the arms as peer pointers; the arms move them with the copy engine.
//  - Rank threads of one process (RankRole::peers): every rank publishes its shard's device
//    pointer and waits (bounded) for the others'; peer access is enabled to each peer's device.
//  - Otherwise (world size 1, or rank processes): the peers' shards come through NCCL.
#include <bit>
#include <cstdio>
#include <memory>

#include "harness/core/numeric.hpp"
#include "harness/gpu/arm_context.hpp"
#include "harness/gpu/compare_device.hpp"
#include "harness/gpu/proof.hpp"
#include "kernels/ag_gemm/family.hpp"
#include "kernels/ag_gemm/launch.hpp"
#include "references/ag_gemm/ag_gemm_ref_gpu.hpp"

namespace kgate::ag_gemm::gpu {
namespace {

using kgate::gpu::DeviceBuffer;

// Rows up to this many multiply-adds are checked against the CPU reference (fp64, ~1 ns per
// multiply-add on one core: ~0.1 s); larger ones against the GPU reference.
constexpr int64_t kCpuOracleMaxMacs = int64_t{1} << 27;

void poison(const DeviceBuffer& b, cudaStream_t s) { poison16_device(b.get(), static_cast<int64_t>(b.bytes() / 2), s); }

void enable_peer_access(const void* ptr, int self) {
  cudaPointerAttributes at{};
  KGATE_CUDA(cudaPointerGetAttributes(&at, ptr));
  if (at.device == self) return;
  const cudaError_t e = cudaDeviceEnablePeerAccess(at.device, 0);
  if (e == cudaErrorPeerAccessAlreadyEnabled)
    cudaGetLastError();
  else
    KGATE_CUDA(e);
}

class Context final : public kgate::gpu::ArmContext<Arm> {
 public:
  Context(const CaseRow& row, uint64_t seed, kgate::gpu::GpuBackend& be)
      : ArmContext(be), p_(Params::from_json(row.params)), seeds_{seed}, tol_(row.tolerance), row_id_(row.id) {
    const kgate::gpu::RankRole& role = be.role();
    if (p_.world_size != role.world_size)
      throw InputError("world_size: the row has " + std::to_string(p_.world_size) + " ranks, this run " +
                       std::to_string(role.world_size) + " (--simulate-ranks W plays W ranks on one GPU)");
    const cudaStream_t s = be.stream();
    const int64_t shard = p_.m * p_.k;
    a_local_ = DeviceBuffer(static_cast<size_t>(shard) * 2);
    fill_a_device(seed, role.rank, shard, p_.fp16, a_local_.get(), s);
    b_ = DeviceBuffer(static_cast<size_t>(p_.k * p_.n) * 2);
    fill_b_device(seed, p_.k * p_.n, p_.fp16, b_.get(), s);
    gathered_ = DeviceBuffer(static_cast<size_t>(p_.rows() * p_.k) * 2);
    c_ = DeviceBuffer(static_cast<size_t>(p_.rows() * p_.n) * 2);
    if (role.simulated) {
      shards_.assign(static_cast<size_t>(p_.world_size), nullptr);
      shards_[0] = a_local_.get();
      for (int64_t j = 1; j < p_.world_size; ++j) {
        sim_.emplace_back(static_cast<size_t>(shard) * 2);
        fill_a_device(seed, j, shard, p_.fp16, sim_.back().get(), s);
        shards_[static_cast<size_t>(j)] = sim_.back().get();
      }
    }
    std::vector<const DeviceBuffer*> live{&a_local_, &b_};
    for (const DeviceBuffer& d : sim_) live.push_back(&d);
    sets_.bind(std::move(live), s);  // every rank's shard is written before any peer reads it
    if (!role.simulated && role.peers) {
      role.peers->publish(row.id + "/a_local", role.rank, a_local_.get());
      shards_ = role.peers->wait_all(row.id + "/a_local");
      for (const void* ptr : shards_) enable_peer_access(ptr, be.ordinal());
    }
    res_ = std::make_unique<Resources>(static_cast<int>(p_.world_size));
    args_ = ag_gemm_args{static_cast<int>(p_.world_size),
                         role.rank,
                         p_.m,
                         p_.n,
                         p_.k,
                         p_.fp16 ? 1 : 0,
                         a_local_.get(),
                         gathered_.get(),
                         b_.get(),
                         c_.get(),
                         role.simulated ? nullptr : be.nccl_comm(),
                         shards_.empty() ? nullptr : shards_.data()};
    if (p_.world_size > 1 && !args_.comm && !args_.peer_shards)
      throw InputError("world_size " + std::to_string(p_.world_size) +
                       ": this rank has neither a communicator nor peers");
  }

  // Rank threads read each other's shards: no rank frees its own before every rank's copies of
  // it are done (this device idle, then a bounded barrier of the row's ranks).
  ~Context() override {
    const kgate::gpu::RankRole& role = be_.role();
    if (role.simulated || !role.peers) return;
    try {
      KGATE_CUDA(cudaDeviceSynchronize());
      role.peers->publish(row_id_ + "/done", role.rank, this);
      role.peers->wait_all(row_id_ + "/done");
    } catch (const std::exception& e) {
      std::fprintf(stderr, "kgate: rank %d, row %s: %s\n", role.rank, row_id_.c_str(), e.what());
    }
  }

  Correctness check(const Implementation& impl) override {
    prepare_verified(impl);
    launch(impl, be_.stream());
    return verified(impl, false);
  }

  void add_input_sets(const std::vector<uint64_t>& seeds) override {
    const cudaStream_t s = be_.stream();
    for (uint64_t seed : seeds) {
      sets_.add([&](size_t i, DeviceBuffer& master) {
        if (i == 0) fill_a_device(seed, args_.rank, p_.m * p_.k, p_.fp16, master.get(), s);
        if (i == 1) fill_b_device(seed, p_.k * p_.n, p_.fp16, master.get(), s);
        if (i >= 2) fill_a_device(seed, static_cast<int64_t>(i) - 1, p_.m * p_.k, p_.fp16, master.get(), s);
      });
      seeds_.push_back(seed);
    }
    KGATE_CUDA(cudaStreamSynchronize(s));
  }
  int input_sets() const override { return sets_.size(); }
  // A real job's peers read this rank's shard: every rank's calls end before any rank rewrites
  // its shard, and every rank's new shard is written before any rank's next call.
  void load_input(int set) override {
    const bool peers_read = be_.role().world_size > 1 && !be_.role().simulated;
    if (peers_read) be_.agree_max(0);
    sets_.load(set, be_.stream());
    if (full_.get() && full_set_ != set) fill_full(set);
    if (peers_read) be_.agree_max(0);
  }
  void prepare_verified(const Implementation&) override {
    poison(c_, be_.stream());
    poison(gathered_, be_.stream());
  }
  // A timed call is verified on the device on every row (the cuBLAS fp32 reference of its set);
  // the CPU reference decides the correctness checks of the rows it runs on.
  Correctness verify(const Implementation& impl) override { return verified(impl, true); }

 protected:
  void call(const Arm& a, cudaStream_t s) override {
    if (a.traits.reads_gathered) {
      ag_gemm_args g = args_;
      g.a_gathered = full().get();
      a.launch(g, *res_, s);
    } else {
      a.launch(args_, *res_, s);
    }
    KGATE_CUDA_LAUNCHED();
  }

 private:
  // The gathered A of the loaded set, as every rank's shard makes it: the input of an arm that
  // reads it (the floor; never poisoned: the floor times real data). Made on that arm's first
  // call (a check) and rewritten by load_input when the set changes: a row whose arms never read
  // it neither holds nor rotates w x A.
  const DeviceBuffer& full() {
    if (!full_.get()) {
      full_ = DeviceBuffer(static_cast<size_t>(p_.rows() * p_.k) * 2);
      fill_full(sets_.loaded());
      KGATE_CUDA(cudaStreamSynchronize(be_.stream()));
    }
    return full_;
  }
  void fill_full(int set) {
    const int64_t shard = p_.m * p_.k;
    for (int64_t r = 0; r < p_.world_size; ++r)
      fill_a_device(seeds_[static_cast<size_t>(set)], r, shard, p_.fp16, full_.as<uint16_t>() + r * shard,
                    be_.stream());
    full_set_ = set;
  }

  Correctness verified(const Implementation& impl, bool on_device) {
    KGATE_CUDA(cudaStreamSynchronize(be_.stream()));
    return arm(impl).traits.writes == Writes::Gathered ? check_gathered() : check_c(on_device);
  }

  Correctness check_c(bool on_device) {
    const int64_t n_c = p_.rows() * p_.n, N = p_.n;
    auto name = [N](int64_t i) { return "C[" + std::to_string(i / N) + "," + std::to_string(i % N) + "]"; };
    const size_t set = static_cast<size_t>(sets_.loaded());
    if (!on_device && p_.rows() * p_.n * p_.k <= kCpuOracleMaxMacs) {
      cpu_refs_.resize(seeds_.size());
      std::vector<double>& cpu_ref = cpu_refs_[set];
      if (cpu_ref.empty()) cpu_ref = reference(make_problem(p_, seeds_[set]));
      std::vector<uint16_t> cb(static_cast<size_t>(n_c));
      c_.download(cb.data(), cb.size() * 2);
      std::vector<double> out(cb.size());
      std::vector<bool> unw(cb.size());
      for (size_t i = 0; i < cb.size(); ++i) {
        unw[i] = cb[i] == kPoisonBf16;
        out[i] = p_.fp16 ? static_cast<float>(std::bit_cast<_Float16>(cb[i])) : bf16_bits_to_f32(cb[i]);
      }
      Correctness c = compare_outputs(out, cpu_ref, unw, tol_, [&](size_t i) { return name(static_cast<int64_t>(i)); });
      c.note = "oracle: the CPU reference (references/ag_gemm/ag_gemm_ref.cpp)";
      return c;
    }
    gpu_refs_.resize(seeds_.size());
    DeviceBuffer& gpu_ref = gpu_refs_[set];
    if (!gpu_ref.get()) {
      kgate::gpu::require_free(static_cast<size_t>(n_c) * 8, "the GPU oracle of input set " + std::to_string(set));
      gpu_ref = DeviceBuffer(static_cast<size_t>(n_c) * 8);
      reference_device(p_, seeds_[set], gpu_ref.as<double>(), be_.stream());
    }
    DeviceBuffer f32;  // an FP16 C as fp32: compare_device reads BF16 or FP32
    if (p_.fp16) {
      f32 = DeviceBuffer(static_cast<size_t>(n_c) * 4);
      fp16_to_f32_device(c_.get(), n_c, f32.as<float>(), be_.stream());
    }
    Correctness c = kgate::gpu::compare_device({p_.fp16 ? f32.get() : c_.get(), !p_.fp16, nullptr, 1, true},
                                               gpu_ref.as<double>(), n_c, tol_, name, be_.stream());
    c.note = "oracle: the cuBLAS fp32 reference (references/ag_gemm/ag_gemm_ref_gpu.cu), compared on the device";
    return c;
  }

  // The gather arm computes no C: every peer's slot of the workspace holds that peer's shard, bit
  // for bit (its own slot is not its to write).
  Correctness check_gathered() {
    const int64_t W = p_.world_size, shard_bytes = p_.m * p_.k * 2;
    Correctness c;
    c.elements = (W - 1) * p_.m * p_.k;
    DeviceBuffer want(static_cast<size_t>(shard_bytes));  // peer j's shard of the loaded set
    int64_t bad = 0, first = -1;
    for (int64_t j = 0; j < W; ++j) {
      if (j == args_.rank) continue;
      fill_a_device(seeds_[static_cast<size_t>(sets_.loaded())], j, p_.m * p_.k, p_.fp16, want.get(), be_.stream());
      KGATE_CUDA(cudaStreamSynchronize(be_.stream()));
      std::vector<uint16_t> got(static_cast<size_t>(p_.m * p_.k)), ref(got.size());
      gathered_.download(got.data(), static_cast<size_t>(shard_bytes), static_cast<size_t>(j * shard_bytes));
      want.download(ref.data(), static_cast<size_t>(shard_bytes));
      for (size_t i = 0; i < got.size(); ++i)
        if (got[i] != ref[i]) {
          ++bad;
          if (first < 0) first = j;
        }
    }
    c.mismatches = bad;
    c.passed = bad == 0;
    if (first >= 0) c.worst = "gathered shard " + std::to_string(first);
    c.note = "gather arm: every peer's shard lands in its slot of the gathered A bit for bit; computes no GEMM";
    return c;
  }

  Params p_;
  std::vector<uint64_t> seeds_;  // per input set: the whole problem's seed
  Tolerance tol_;
  std::string row_id_;
  DeviceBuffer a_local_, b_, gathered_, c_, full_;
  int full_set_ = -1;                   // the input set full_ holds
  std::vector<DeviceBuffer> gpu_refs_;  // per input set, on the GPU oracle's rows
  std::vector<DeviceBuffer> sim_;
  std::vector<const void*> shards_;
  std::unique_ptr<Resources> res_;
  std::vector<std::vector<double>> cpu_refs_;  // per input set, on the CPU oracle's rows
  kgate::gpu::InputSets sets_;                 // A_local, B, the simulated peers' shards
};

}  // namespace
}  // namespace kgate::ag_gemm::gpu

namespace kgate::ag_gemm {

std::unique_ptr<RowContext> make_gpu_context(const CaseRow& row, uint64_t seed, kgate::gpu::GpuBackend& be) {
  return std::make_unique<gpu::Context>(row, seed, be);
}

}  // namespace kgate::ag_gemm
