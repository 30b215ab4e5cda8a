// The oracle comparison: an arm's out and pool against the CPU reference, with the row's
// default tolerance and the check every context applies.
#include <cstring>

#include "harness/core/compare.hpp"
#include "harness/core/numeric.hpp"
#include "harness/core/registry.hpp"
#include "harness/run/cpu_backend.hpp"
#include "references/ssu/ssu.hpp"

namespace kgate::ssu {

Correctness check_outputs(const HostProblem& hp, const Reference& ref, const std::vector<float>& state,
                          const std::vector<float>& out, const Tolerance& tol) {
  const Params& p = hp.p;
  // Compared in place (no double copies of a pool that can hold 5 * 10^8 values), on every core.
  Correctness c = compare_elements(
      out.size(), [&](size_t i) { return static_cast<double>(out[i]); }, [&](size_t i) { return ref.out[i]; },
      [&](size_t i) { return is_poison_f32(out[i]); }, tol,
      [&](size_t i) {
        return "out[b=" + std::to_string(i / (p.nheads * kP)) + ",h=" + std::to_string(i / kP % p.nheads) +
               ",d=" + std::to_string(i % kP) + "]";
      });
  // State: every pool entry, with the state dtype's tolerance; entries no real slot owns
  // (pad slots, unused slots) must be bit-identical to before the call.
  Tolerance st = p.state_bf16 ? Tolerance{1e-2, 1e-2} : Tolerance{1e-4, 1e-4};
  Correctness cs = compare_elements(
      state.size(), [&](size_t i) { return static_cast<double>(state[i]); }, [&](size_t i) { return ref.state[i]; },
      [](size_t) { return false; }, st,
      [&](size_t i) {
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
  cs.note =
      "unowned slots bit-identical: " + std::string(changed ? "NO (" + std::to_string(changed) + " changed)" : "yes") +
      ", pad slots " + std::to_string(p.pad_slots);
  merge_check(c, cs, "state");
  return c;
}

Tolerance tolerance(const json& params) {
  return params["io_dtype"] == "bf16" ? Tolerance{1e-2, 1e-2} : Tolerance{1e-4, 1e-4};
}

Correctness check_arm(const Implementation& impl, const HostProblem& hp, const std::function<const Reference&()>& ref,
                      const std::vector<float>& state, const std::vector<float>& out, const Tolerance& tol) {
  if (impl.role != "floor") return check_outputs(hp, ref(), state, out, tol);
  // The floor arm only moves the state bytes: it must leave every byte as it found it.
  Correctness c;
  c.elements = static_cast<int64_t>(state.size());
  c.mismatches = std::memcmp(state.data(), hp.state.data(), state.size() * 4) ? 1 : 0;
  for (size_t i = 0; c.mismatches && i < state.size(); ++i)
    if (std::memcmp(&state[i], &hp.state[i], 4)) {
      c.worst = "state[" + std::to_string(i) + "]";
      break;
    }
  c.passed = c.mismatches == 0;
  c.note = "floor arm: state bytes read and written back bit-identical; computes no output";
  return c;
}

}  // namespace kgate::ssu
