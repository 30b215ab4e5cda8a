#include <algorithm>
#include <cmath>

#include "harness/core/numeric.hpp"
#include "harness/core/parallel.hpp"
#include "references/ssu/ssu.hpp"

namespace kgate::ssu {

Params Params::from_json(const json& j) {
  Params p;
  p.batch = j.at("batch");
  p.nheads = j.at("nheads");
  p.ngroups = j.at("ngroups");
  p.pool_slots = j.at("pool_slots");
  p.pad_slots = j.at("pad_slots");
  p.fused_extra = j.at("fused_extra");
  p.state_bf16 = j.at("state_dtype") == "bf16";
  p.io_bf16 = j.at("io_dtype") == "bf16";
  p.weight_bf16 = j.at("weight_dtype") == "bf16";
  p.softplus = j.at("softplus");
  p.has_z = j.at("has_z");
  return p;
}

HostProblem make_problem(const Params& p, uint64_t seed, bool host_pool) {
  Rng rng(seed);
  HostProblem hp;
  hp.p = p;
  auto io = [&](float v) { return p.io_bf16 ? round_bf16(v) : v; };
  auto wt = [&](float v) { return p.weight_bf16 ? round_bf16(v) : v; };
  // The pool can hold 10^8+ values: pool_value(seed, i) on every core.
  if (host_pool) {
    hp.state.resize(static_cast<size_t>(pool_values(p)));
    const unsigned nt = hardware_threads();
    const size_t n = hp.state.size(), step = (n + nt - 1) / nt;
    on_threads(nt, [&](unsigned t) {
      for (size_t i = std::min(n, t * step); i < std::min(n, (t + 1) * step); ++i)
        hp.state[i] = pool_value(seed, i, p.state_bf16);
    });
  }
  // Distinct random slots; pad_slots of them replaced by -1 at random positions.
  std::vector<int32_t> all(static_cast<size_t>(p.pool_slots));
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int32_t>(i);
  for (size_t i = all.size(); i > 1; --i) std::swap(all[i - 1], all[rng.below(i)]);
  hp.slots.assign(all.begin(), all.begin() + p.batch);
  for (int64_t k = 0; k < p.pad_slots; ++k) {
    size_t b;
    do b = rng.below(static_cast<uint64_t>(p.batch));
    while (hp.slots[b] == -1);
    hp.slots[b] = -1;
  }
  // Fused-projection gaps hold NaN: a kernel that reads outside its view produces NaN.
  hp.x.assign(static_cast<size_t>(p.batch * p.x_stride()), NAN);
  hp.z.assign(p.has_z ? static_cast<size_t>(p.batch * p.x_stride()) : 0, NAN);
  hp.B.assign(static_cast<size_t>(p.batch * p.bc_stride()), NAN);
  hp.C.assign(static_cast<size_t>(p.batch * p.bc_stride()), NAN);
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t i = 0; i < p.nheads * kP; ++i) {
      hp.x[b * p.x_stride() + i] = io(rng.normal());
      if (p.has_z) hp.z[b * p.x_stride() + i] = io(rng.normal());
    }
    for (int64_t i = 0; i < p.ngroups * kN; ++i) {
      hp.B[b * p.bc_stride() + i] = io(rng.normal() * 0.5f);
      hp.C[b * p.bc_stride() + i] = io(rng.normal() * 0.5f);
    }
  }
  hp.dt.resize(static_cast<size_t>(p.batch * p.nheads));
  for (auto& v : hp.dt) v = wt(rng.uniform(-3.0f, 1.0f));
  hp.A.resize(p.nheads);
  hp.D.resize(p.nheads);
  hp.dt_bias.resize(p.nheads);
  for (int64_t h = 0; h < p.nheads; ++h) {
    hp.A[h] = wt(-rng.uniform(0.5f, 8.0f));  // A < 0: a decaying state
    hp.D[h] = wt(rng.uniform(0.5f, 1.5f));
    hp.dt_bias[h] = wt(rng.uniform(-1.0f, 0.5f));
  }
  return hp;
}

Reference reference(const HostProblem& hp) {
  const Params& p = hp.p;
  Reference r;
  r.out.resize(static_cast<size_t>(p.batch * p.nheads * kP));
  // The pool (up to 5 * 10^8 values) is copied on every core; real slots are then overwritten.
  r.state.resize(hp.state.size());
  {
    const unsigned nc = hardware_threads();
    const size_t n = hp.state.size(), step = (n + nc - 1) / nc;
    on_threads(nc, [&](unsigned t) {
      const size_t lo = std::min(n, t * step), hi = std::min(n, lo + step);
      std::copy(hp.state.begin() + lo, hp.state.begin() + hi, r.state.begin() + lo);
    });
  }
  int64_t hpg = p.nheads / p.ngroups;
  const unsigned nt = std::min<unsigned>(hardware_threads(), static_cast<unsigned>(std::max<int64_t>(1, p.batch)));
  on_threads(nt, [&](unsigned t) {
    std::vector<double> s(kP * kN);
    for (int64_t b = t; b < p.batch; b += nt) {
      int32_t slot = hp.slots[b];
      for (int64_t h = 0; h < p.nheads; ++h) {
        int64_t g = h / hpg;
        double dt = static_cast<double>(hp.dt[b * p.nheads + h]) + hp.dt_bias[h];
        if (p.softplus) dt = dt > 20 ? dt : std::log1p(std::exp(dt));
        double dA = std::exp(static_cast<double>(hp.A[h]) * dt);
        const float* x = &hp.x[b * p.x_stride() + h * kP];
        const float* B = &hp.B[b * p.bc_stride() + g * kN];
        const float* C = &hp.C[b * p.bc_stride() + g * kN];
        size_t base = static_cast<size_t>(((slot < 0 ? 0 : slot) * p.nheads + h) * kP * kN);
        for (int d = 0; d < kP; ++d) {
          double acc = 0;
          for (int n = 0; n < kN; ++n) {
            double prev = slot < 0 ? 0.0 : static_cast<double>(hp.state[base + d * kN + n]);
            double v = prev * dA + dt * B[n] * x[d];
            s[d * kN + n] = v;
            acc += v * C[n];
          }
          double o = acc + static_cast<double>(hp.D[h]) * x[d];
          if (p.has_z) {
            double zz = hp.z[b * p.x_stride() + h * kP + d];
            o *= zz / (1 + std::exp(-zz));
          }
          r.out[(b * p.nheads + h) * kP + d] = p.io_bf16 ? round_bf16(static_cast<float>(o)) : o;
        }
        if (slot >= 0)
          for (int i = 0; i < kP * kN; ++i)
            r.state[base + i] = p.state_bf16 ? round_bf16(static_cast<float>(s[i])) : static_cast<float>(s[i]);
      }
    }
  });
  return r;
}

}  // namespace kgate::ssu
