// An ssu export whose arms cheat the timing, for tests/gpu/cheat_ssu.sh: each computes honestly
// on a row's correctness checks (its first kHonestCalls calls on the row: sets 0 and 1) and
// cheats on the timed calls after them, launching the same kernel as the honest arm every call
// (so the parity and fallback gates see nothing amiss). Only the timed-call proof (rotated
// inputs, verified timed calls) can refuse them:
//   cheat.first_calls  computes on its first calls only, then launches the kernel doing nothing;
//   cheat.memo_ptr     memoizes by input address: a seen x pointer gets the saved output back,
//                      the pool untouched;
//   cheat.even_calls   writes only on even calls (odd ones do nothing);
//   cheat.stale        computes every call but writes the previous call's output;
//   cheat.honest       computes every call (the control: it must pass).
// BF16 state and io, fp32 weights (the example export's kernel, tests/exports/example_ssu.cu).
#include <cuda_bf16.h>

#include <cstdio>
#include <map>
#include <mutex>
#include <tuple>

#include "harness/export/kgate_export.h"
#include "kernels/ssu/abi.h"

namespace {

using bf16 = __nv_bfloat16;

// A row's correctness checks (the table's set and one more) come before its first timed call.
constexpr int kHonestCalls = 2;

enum Mode { kCompute, kNothing, kComputeAndSave, kReplay, kStale };

__global__ void cheat_ssu_kernel(ssu_args a, int mode, bf16* aux) {
  const int b = blockIdx.x, h = blockIdx.y, d = threadIdx.x, g = h / (a.nheads / a.ngroups), slot = a.slots[b];
  const long long o = (static_cast<long long>(b) * a.nheads + h) * 64 + d;
  bf16* out = static_cast<bf16*>(a.out);
  if (mode == kNothing) return;
  if (mode == kReplay) {
    out[o] = aux[o];
    return;
  }
  const bf16 *x = static_cast<const bf16*>(a.x) + b * a.x_stride + h * 64,
             *B = static_cast<const bf16*>(a.B) + b * a.bc_stride + g * 128,
             *C = static_cast<const bf16*>(a.C) + b * a.bc_stride + g * 128;
  float dt = static_cast<const float*>(a.dt)[b * a.nheads + h] + static_cast<const float*>(a.dt_bias)[h];
  if (a.softplus) dt = dt > 20.f ? dt : log1pf(expf(dt));
  const float dA = expf(static_cast<const float*>(a.A)[h] * dt), xd = __bfloat162float(x[d]);
  bf16* s =
      slot < 0 ? nullptr : static_cast<bf16*>(a.state) + ((static_cast<long long>(slot) * a.nheads + h) * 64 + d) * 128;
  float y = static_cast<const float*>(a.D)[h] * xd;
  for (int n = 0; n < 128; ++n) {
    const float v = (s ? __bfloat162float(s[n]) * dA : 0.f) + dt * __bfloat162float(B[n]) * xd;
    if (s) s[n] = __float2bfloat16(v);
    y += v * __bfloat162float(C[n]);
  }
  if (a.has_z) {
    const float z = __bfloat162float(static_cast<const bf16*>(a.z)[b * a.x_stride + h * 64 + d]);
    y *= z / (1.f + expf(-z));
  }
  const bf16 v = __float2bfloat16(y);
  if (mode == kStale) {
    out[o] = aux[o];  // the previous call's output
    aux[o] = v;
    return;
  }
  out[o] = v;
  if (mode == kComputeAndSave) aux[o] = v;
}

enum Cheat { kHonest, kFirstCalls, kMemoPtr, kEvenCalls, kStaleCopy };

// Per (arm, row): the calls made and the saved outputs (memo or previous call). A row is known
// by its shapes and buffer addresses; the test's rows differ in shape, so a reused address never
// merges two of them.
struct RowState {
  int calls = 0;
  bf16* aux = nullptr;
  std::map<const void*, bf16*> memo;  // by x address
};
using RowKey = std::tuple<int, const void*, const void*, const void*, int, int, int, long long>;
std::mutex g_mutex;
std::map<RowKey, RowState> g_rows;

bf16* alloc_out(const ssu_args& a) {
  void* p = nullptr;
  cudaMalloc(&p, static_cast<size_t>(a.batch) * a.nheads * 64 * sizeof(bf16));
  return static_cast<bf16*>(p);
}

// The mode of this call, and the buffer it reads or writes.
Mode plan(Cheat cheat, const ssu_args& a, bf16** aux) {
  std::lock_guard<std::mutex> lock(g_mutex);
  RowState& r = g_rows[RowKey{cheat, a.state, a.out, a.x, a.batch, a.nheads, a.has_z, a.x_stride}];
  const int call = ++r.calls;
  const bool honest = call <= kHonestCalls;
  switch (cheat) {
    case kHonest:
      return kCompute;
    case kFirstCalls:
      return honest ? kCompute : kNothing;
    case kEvenCalls:
      return honest || call % 2 == 0 ? kCompute : kNothing;
    case kStaleCopy:
      if (!r.aux) r.aux = alloc_out(a);
      *aux = r.aux;
      return honest ? kComputeAndSave : kStale;
    case kMemoPtr: {
      bf16*& m = r.memo[a.x];
      if (!m) m = alloc_out(a);
      *aux = m;
      return honest ? kComputeAndSave : kReplay;
    }
  }
  return kCompute;
}

int supports(const void* p, char* why, size_t n) {
  const ssu_args* a = static_cast<const ssu_args*>(p);
  if (a->state_bf16 && a->io_bf16 && !a->weight_bf16) return 0;
  std::snprintf(why, n, "cheat export: BF16 state and io, fp32 weights only");
  return 1;
}

template <Cheat cheat>
int launch(const void* p, void* stream, char* err, size_t n) {
  const ssu_args& a = *static_cast<const ssu_args*>(p);
  bf16* aux = nullptr;
  const Mode mode = plan(cheat, a, &aux);
  if (!aux && (mode == kComputeAndSave || mode == kReplay || mode == kStale)) {
    std::snprintf(err, n, "cheat export: out of device memory");
    return 1;
  }
  cheat_ssu_kernel<<<dim3(a.batch, a.nheads), 64, 0, static_cast<cudaStream_t>(stream)>>>(a, mode, aux);
  const cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return 0;
  std::snprintf(err, n, "cheat export: %s", cudaGetErrorString(e));
  return 1;
}

const char* const kKernels[] = {"cheat_ssu_kernel"};
const char* const kArchs[] = {"sm_90a", "sm_90"};
const kgate_export_arm_t kArms[] = {
    {"cheat.honest", "computes every call", kKernels, 1, kArchs, 2, supports, launch<kHonest>},
    {"cheat.first_calls", "computes on its first calls only", kKernels, 1, kArchs, 2, supports, launch<kFirstCalls>},
    {"cheat.memo_ptr", "memoizes its output by input address", kKernels, 1, kArchs, 2, supports, launch<kMemoPtr>},
    {"cheat.even_calls", "writes only on even calls", kKernels, 1, kArchs, 2, supports, launch<kEvenCalls>},
    {"cheat.stale", "writes the previous call's output", kKernels, 1, kArchs, 2, supports, launch<kStaleCopy>}};
const kgate_export_table_t kTable = {KGATE_EXPORT_ABI_VERSION, "ssu", kArms, 5};

}  // namespace

extern "C" __attribute__((visibility("default"))) const kgate_export_table_t* kgate_export_table(void) {
  return &kTable;
}
