// Device comparisons (compare_device.hpp): two passes over the elements, the first for counts and
// maxima, the second for the first index of the largest excess; a per-tile flag pass for bytes.
#include "harness/gpu/compare_device.hpp"

#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "harness/core/numeric.hpp"
#include "harness/gpu/check.hpp"
#include "harness/gpu/device.hpp"

namespace kgate::gpu {
namespace {

struct Stats {
  unsigned long long unwritten, nonfinite, mismatches, compared;
  unsigned long long max_abs, max_rel;  // bits of non-negative doubles: ordered as integers
  unsigned long long worst_key;         // ordered key of the largest excess
  unsigned long long worst_i;           // first index with that excess (pass 2)
};

// Doubles to integers with the same order (the usual sign flip).
__device__ __forceinline__ unsigned long long order_key(double v) {
  const unsigned long long b = static_cast<unsigned long long>(__double_as_longlong(v));
  return (b >> 63) ? ~b : b | 0x8000000000000000ull;
}

struct Elem {
  bool skip, unwritten, nonfinite_bad, finite;
  double o, r, err, bound, excess;
};

__device__ Elem element(const DeviceOutput& out, const double* ref, long long i, double atol, double rtol) {
  Elem e{};
  long long j = i;
  if (out.rows) {
    const int32_t row = out.rows[i / out.row_elems];
    if (row < 0) {
      e.skip = true;
      return e;
    }
    j = static_cast<long long>(row) * out.row_elems + i % out.row_elems;
  }
  if (out.bf16) {
    const unsigned short bits = static_cast<const unsigned short*>(out.data)[j];
    if (out.poison && bits == kPoisonBf16) e.unwritten = true;
    e.o = static_cast<double>(__uint_as_float(static_cast<unsigned>(bits) << 16));
  } else {
    const unsigned bits = static_cast<const unsigned*>(out.data)[j];
    if (out.poison && bits == kPoisonF32) e.unwritten = true;
    e.o = static_cast<double>(__uint_as_float(bits));
  }
  if (e.unwritten) return e;
  e.r = ref[i];
  if (!isfinite(e.o) || !isfinite(e.r)) {
    e.nonfinite_bad = !(e.o == e.r);
    e.excess = e.nonfinite_bad ? INFINITY : -INFINITY;
    return e;
  }
  e.finite = true;
  e.err = fabs(e.o - e.r);
  // Rounded as the host rounds them (no fused multiply-add): an element exactly at the bound
  // counts the same on both.
  e.bound = __dadd_rn(atol, __dmul_rn(rtol, fabs(e.r)));
  e.excess = __dsub_rn(e.err, e.bound);
  return e;
}

__global__ void stats_kernel(DeviceOutput out, const double* ref, long long n, double atol, double rtol, Stats* st) {
  unsigned long long unw = 0, nf = 0, mis = 0, cmp = 0;
  // worst: compare_elements' running maximum starts at -1 and takes only a strictly larger
  // excess, so elements whose excess is <= -1 never become the worst.
  double max_abs = 0, max_rel = 0, worst = -1;
  bool any = false;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const Elem e = element(out, ref, i, atol, rtol);
    if (e.skip) continue;
    ++cmp;
    if (e.unwritten) {
      ++unw;
      continue;
    }
    if (!e.finite) {
      if (e.nonfinite_bad) {
        ++nf;
        worst = INFINITY;
        any = true;
      }
      continue;
    }
    max_abs = fmax(max_abs, e.err);
    max_rel = fmax(max_rel, e.err / fmax(fabs(e.r), atol > 0 ? atol : 1e-30));
    mis += e.err > e.bound;
    if (e.excess > worst) {
      worst = e.excess;
      any = true;
    }
  }
  // Warp sums and maxima, then one atomic per warp.
  for (int o = 16; o > 0; o >>= 1) {
    unw += __shfl_xor_sync(0xffffffffu, unw, o);
    nf += __shfl_xor_sync(0xffffffffu, nf, o);
    mis += __shfl_xor_sync(0xffffffffu, mis, o);
    cmp += __shfl_xor_sync(0xffffffffu, cmp, o);
    max_abs = fmax(max_abs, __shfl_xor_sync(0xffffffffu, max_abs, o));
    max_rel = fmax(max_rel, __shfl_xor_sync(0xffffffffu, max_rel, o));
    const double w = __shfl_xor_sync(0xffffffffu, worst, o);
    const bool a = __shfl_xor_sync(0xffffffffu, any, o);
    if (a && (!any || w > worst)) worst = w;
    any = any || a;
  }
  if ((threadIdx.x & 31) == 0) {
    if (unw) atomicAdd(&st->unwritten, unw);
    if (nf) atomicAdd(&st->nonfinite, nf);
    if (mis) atomicAdd(&st->mismatches, mis);
    if (cmp) atomicAdd(&st->compared, cmp);
    atomicMax(&st->max_abs, static_cast<unsigned long long>(__double_as_longlong(max_abs)));
    atomicMax(&st->max_rel, static_cast<unsigned long long>(__double_as_longlong(max_rel)));
    if (any) atomicMax(&st->worst_key, order_key(worst));
  }
}

__global__ void worst_kernel(DeviceOutput out, const double* ref, long long n, double atol, double rtol, Stats* st) {
  const unsigned long long key = st->worst_key;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const Elem e = element(out, ref, i, atol, rtol);
    if (e.skip || e.unwritten || (!e.finite && !e.nonfinite_bad) || !(e.excess > -1.0)) continue;
    if (order_key(e.excess) == key) {
      atomicMin(&st->worst_i, static_cast<unsigned long long>(i));
      return;  // later indices of this thread are larger
    }
  }
}

__global__ void tiles_kernel(const unsigned* a, const unsigned* b, unsigned fill, long long words_per_tile,
                             long long tiles, const unsigned char* want, unsigned* flag) {
  const long long n = words_per_tile * tiles;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long t = i / words_per_tile;
    if (want && !want[t]) continue;
    if (a[i] != (b ? b[i] : fill)) flag[t] = 1;
  }
}

unsigned grid_for(long long n) {
  return static_cast<unsigned>(std::max<long long>(1, std::min<long long>((n + 255) / 256, 132LL * 16)));
}

}  // namespace

Correctness compare_device(const DeviceOutput& out, const double* ref, int64_t n, const Tolerance& tol,
                           const std::function<std::string(int64_t)>& coords, cudaStream_t s) {
  DeviceBuffer buf(sizeof(Stats));
  Stats init{};
  init.worst_i = ~0ull;
  // On the kernels' stream: an upload on the legacy stream is not ordered before them.
  KGATE_CUDA(cudaMemcpyAsync(buf.get(), &init, sizeof init, cudaMemcpyHostToDevice, s));
  Stats* st = static_cast<Stats*>(buf.get());
  stats_kernel<<<grid_for(n), 256, 0, s>>>(out, ref, n, tol.atol, tol.rtol, st);
  KGATE_CUDA(cudaGetLastError());
  worst_kernel<<<grid_for(n), 256, 0, s>>>(out, ref, n, tol.atol, tol.rtol, st);
  KGATE_CUDA(cudaGetLastError());
  KGATE_CUDA(cudaStreamSynchronize(s));
  Stats r;
  buf.download(&r, sizeof r);
  auto as_double = [](unsigned long long b) {
    double d;
    std::memcpy(&d, &b, 8);
    return d;
  };
  Correctness c;
  c.elements = static_cast<int64_t>(r.compared);
  c.unwritten = static_cast<int64_t>(r.unwritten);
  c.nonfinite = static_cast<int64_t>(r.nonfinite);
  c.mismatches = static_cast<int64_t>(r.mismatches);
  c.max_abs_err = as_double(r.max_abs);
  c.max_rel_err = as_double(r.max_rel);
  // No element beat -1 (or none was compared): compare_elements names element 0.
  if (r.worst_i == ~0ull && n > 0) r.worst_i = 0;
  if (r.worst_i != ~0ull) {
    const int64_t i = static_cast<int64_t>(r.worst_i);
    c.worst = coords(i);
    int64_t j = i;
    if (out.rows) {
      int32_t row = 0;
      KGATE_CUDA(cudaMemcpy(&row, out.rows + i / out.row_elems, 4, cudaMemcpyDeviceToHost));
      j = static_cast<int64_t>(row) * out.row_elems + i % out.row_elems;
    }
    double o = 0, rv = 0;
    if (out.bf16) {
      uint16_t b = 0;
      KGATE_CUDA(cudaMemcpy(&b, static_cast<const uint16_t*>(out.data) + j, 2, cudaMemcpyDeviceToHost));
      o = bf16_bits_to_f32(b);
    } else {
      float f = 0;
      KGATE_CUDA(cudaMemcpy(&f, static_cast<const float*>(out.data) + j, 4, cudaMemcpyDeviceToHost));
      o = f;
    }
    KGATE_CUDA(cudaMemcpy(&rv, ref + i, 8, cudaMemcpyDeviceToHost));
    c.worst_out = std::isfinite(o) ? o : 0;
    c.worst_ref = std::isfinite(rv) ? rv : 0;
  }
  c.passed = c.mismatches == 0 && c.nonfinite == 0 && c.unwritten == 0 && c.elements > 0;
  if (!c.elements) c.note = "no output elements compared";
  return c;
}

int64_t differing_tiles(const void* a, const void* b, unsigned char fill, int64_t tiles, int64_t tile_bytes,
                        const unsigned char* want, int64_t* first, cudaStream_t s) {
  if (tile_bytes % 4) throw InputError("differing_tiles: tile_bytes must be a multiple of 4");
  DeviceBuffer flags(static_cast<size_t>(std::max<int64_t>(tiles, 1)) * 4);
  KGATE_CUDA(cudaMemsetAsync(flags.get(), 0, flags.bytes(), s));
  const unsigned f4 = 0x01010101u * fill;
  const long long words = tile_bytes / 4;
  tiles_kernel<<<grid_for(words * tiles), 256, 0, s>>>(static_cast<const unsigned*>(a), static_cast<const unsigned*>(b),
                                                       f4, words, tiles, want, flags.as<unsigned>());
  KGATE_CUDA(cudaGetLastError());
  KGATE_CUDA(cudaStreamSynchronize(s));
  std::vector<unsigned> h(static_cast<size_t>(tiles));
  if (tiles) flags.download(h.data(), h.size() * 4);
  int64_t count = 0;
  if (first) *first = -1;
  for (int64_t t = 0; t < tiles; ++t)
    if (h[static_cast<size_t>(t)]) {
      if (first && *first < 0) *first = t;
      ++count;
    }
  return count;
}

}  // namespace kgate::gpu
