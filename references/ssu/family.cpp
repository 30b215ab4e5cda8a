// The ssu family: schema, tolerances and the CPU context (inputs + reference on the host).
#include <cstring>

#include "harness/core/compare.hpp"
#include "harness/run/cpu_backend.hpp"
#include "harness/core/numeric.hpp"
#include "harness/core/registry.hpp"
#include "references/ssu/family.hpp"
#include "references/ssu/ssu.hpp"

namespace kgate::ssu {
namespace {

using PS = ParamSpec;

std::string check(const json& p) {
  if (p["nheads"].get<int64_t>() % p["ngroups"].get<int64_t>())
    return "ngroups: must divide nheads";
  if (p["pool_slots"].get<int64_t>() < p["batch"].get<int64_t>())
    return "pool_slots: must be >= batch (slots are distinct)";
  if (p["pad_slots"].get<int64_t>() > p["batch"].get<int64_t>())
    return "pad_slots: must be <= batch";
  return "";
}

class CpuContext final : public RowContext {
 public:
  CpuContext(const CaseRow& row, uint64_t seed)
      : hp_(make_problem(Params::from_json(row.params), seed)), ref_(reference(hp_)), tol_(row.tolerance) {
    state_ = hp_.state;
    out_.assign(static_cast<size_t>(hp_.p.batch * hp_.p.nheads * kP), 0.f);
  }
  Correctness check(const Implementation& impl) override {
    auto fn = reinterpret_cast<CpuFn>(impl.launch);
    std::vector<float> state = hp_.state;
    std::vector<float> out(out_.size(), poison_f32());
    fn(hp_, state, out);
    return check_outputs(hp_, ref_, state, out, tol_);
  }
  Sample time_once(const Implementation& impl) override {
    auto fn = reinterpret_cast<CpuFn>(impl.launch);
    Sample s;
    s.us = host_time_us([&] { fn(hp_, state_, out_); });
    return s;
  }
  double warm_call_us(const Implementation& impl) override { return time_once(impl).us; }

 private:
  HostProblem hp_;
  Reference ref_;
  Tolerance tol_;
  std::vector<float> state_, out_;
};

}  // namespace

Correctness check_outputs(const HostProblem& hp, const Reference& ref, const std::vector<float>& state,
                          const std::vector<float>& out, const Tolerance& tol) {
  const Params& p = hp.p;
  // Compared in place (no double copies of a pool that can hold 5 * 10^8 values), on every core.
  Correctness c = compare_elements(
      out.size(), [&](size_t i) { return static_cast<double>(out[i]); }, [&](size_t i) { return ref.out[i]; },
      [&](size_t i) { return is_poison_f32(out[i]); }, tol, [&](size_t i) {
    return "out[b=" + std::to_string(i / (p.nheads * kP)) + ",h=" + std::to_string(i / kP % p.nheads) +
           ",d=" + std::to_string(i % kP) + "]";
  });
  // State: every pool entry, with the state dtype's tolerance; entries no real slot owns
  // (pad slots, unused slots) must be bit-identical to before the call.
  Tolerance st = p.state_bf16 ? Tolerance{1e-2, 1e-2} : Tolerance{1e-4, 1e-4};
  Correctness cs = compare_elements(
      state.size(), [&](size_t i) { return static_cast<double>(state[i]); }, [&](size_t i) { return ref.state[i]; },
      [](size_t) { return false; }, st, [&](size_t i) {
    size_t per = static_cast<size_t>(p.nheads * kP * kN);
    return "state[slot=" + std::to_string(i / per) + ",h=" + std::to_string(i / (kP * kN) % p.nheads) +
           ",d=" + std::to_string(i / kN % kP) + ",n=" + std::to_string(i % kN) + "]";
  });
  std::vector<bool> owned(static_cast<size_t>(p.pool_slots), false);
  for (int32_t sl : hp.slots)
    if (sl >= 0) owned[sl] = true;
  int64_t changed = 0;
  size_t per = static_cast<size_t>(p.nheads * kP * kN);
  for (size_t slot = 0; slot < owned.size(); ++slot)
    if (!owned[slot] && std::memcmp(&state[slot * per], &hp.state[slot * per], per * sizeof(float)) != 0) ++changed;
  cs.mismatches += changed;
  cs.passed = cs.passed && changed == 0;
  cs.note = "unowned slots bit-identical: " + std::string(changed ? "NO (" + std::to_string(changed) + " changed)" : "yes") +
            ", pad slots " + std::to_string(p.pad_slots);
  merge_check(c, cs, "state");
  return c;
}

void register_family(Registry& r) {
  Family f;
  f.name = "ssu";
  f.summary = "Mamba2 selective_state_update, single-token decode (headdim 64, dstate 128)";
  f.params = {
      {"batch", PS::Kind::Int, true, 1, 1 << 20, {}, {}, "decode tokens (one per request)"},
      {"nheads", PS::Kind::Int, true, 1, 1 << 12, {}, {}, "heads"},
      {"ngroups", PS::Kind::Int, true, 1, 1 << 12, {}, {}, "B/C groups; divides nheads"},
      {"pool_slots", PS::Kind::Int, true, 1, 1 << 22, {}, {}, "state pool entries (>= batch)"},
      {"state_dtype", PS::Kind::String, true, 0, 0, {"bf16", "fp32"}, {}, "state pool dtype"},
      {"io_dtype", PS::Kind::String, false, 0, 0, {"bf16", "fp32"}, "bf16", "x, B, C, z, out dtype"},
      {"weight_dtype", PS::Kind::String, false, 0, 0, {"bf16", "fp32"}, "fp32", "dt, A, D, dt_bias dtype"},
      {"softplus", PS::Kind::Bool, false, 0, 0, {}, true, "softplus on dt + dt_bias"},
      {"has_z", PS::Kind::Bool, false, 0, 0, {}, false, "gate out by z * sigmoid(z)"},
      {"pad_slots", PS::Kind::Int, false, 0, 1 << 20, {}, 0, "batch entries with slot -1"},
      {"fused_extra", PS::Kind::Int, false, 0, 1 << 16, {}, 0, "extra elements in the x/B/C/z batch stride"},
  };
  f.check = check;
  f.tolerance = [](const json& p) {
    return p["io_dtype"] == "bf16" ? Tolerance{1e-2, 1e-2} : Tolerance{1e-4, 1e-4};
  };
  f.make_cpu_context = [](const CaseRow& row, uint64_t seed) -> std::unique_ptr<RowContext> {
    return std::make_unique<CpuContext>(row, seed);
  };
  r.add_family(std::move(f));
}

}  // namespace kgate::ssu
