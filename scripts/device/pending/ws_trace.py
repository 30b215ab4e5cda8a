#!/usr/bin/env python3
"""DIAGNOSTIC, never to land: adds clock64 stamps to the warp-specialized sparse_mla kernel of the working tree
(kernels/sparse_mla/fast_ws.cuh, with or without issue14-cl-depth2.patch applied) and, in launch.cu, a dump of them to
KGATE_WS_TRACE_FILE after every launch of that kernel (the launch waits for the kernel). scripts/ws_trace_summary.py
reads the files. build.sh runs it on a copy of a stack's sources (builds tr and t2) and puts the sources back.
Usage (repository root): python3 scripts/device/pending/ws_trace.py"""

HELPERS = r"""// DIAGNOSTIC (scripts/device/pending/ws_trace.py, never to land): clock64 stamps of one thread of each role
// per CTA (the first kWsTraceCtas CTAs), read by launch.cu when KGATE_WS_TRACE_FILE is set. Slots: 0 globaltimer at
// entry, 1 clock64 at entry; producer (thread 256): 2 role start, 3 first indices in, 4 first rows in, 5-12 block k's
// stage arrived (k < 8), 13 loop end; warpgroup 0 (thread 0): 14 Q in, 15 block 0 full, 16 S0 done, 17-24 block k's
// P V done and released, 25 emit start, 26 emit done; warpgroup 1 (thread 128): 27 block 0 full, 28 last P V done,
// 29 emit done; thread 0: 30 before the final cluster sync, 31 after; warpgroup 0: 32-39 block k full (k < 8);
// producer (FP8): 40-47 block k's stage free (its empty wait done), 48-55 block k's rows stored (its last dequant
// store issued, which waits for the rows' loads). A value consumed before a stamp is passed
// through ws_consume so the stamp waits for its load.
constexpr int kWsTraceCtas = 264, kWsTraceSlots = 56;
__device__ unsigned long long g_ws_trace[kWsTraceCtas][kWsTraceSlots];
__device__ __forceinline__ unsigned long long ws_clock() {
  unsigned long long c;
  asm volatile("mov.u64 %0, %%clock64;\n" : "=l"(c)::"memory");
  return c;
}
__device__ __forceinline__ unsigned long long ws_gtime() {
  unsigned long long c;
  asm volatile("mov.u64 %0, %%globaltimer;\n" : "=l"(c)::"memory");
  return c;
}
__device__ int g_ws_trace_k0;  // the window of per-block stamps: block steps k0 .. k0 + 7 (KGATE_WS_TRACE_K0)
// The slot offset of block step g in the window, or -1 outside it.
__device__ __forceinline__ int ws_k(int g) { return g - g_ws_trace_k0 >= 0 && g - g_ws_trace_k0 < 8 ? g - g_ws_trace_k0 : -1; }
__device__ __forceinline__ void ws_stamp(int slot) {
  if (blockIdx.x < kWsTraceCtas) g_ws_trace[blockIdx.x][slot] = ws_clock();
}
__device__ __forceinline__ void ws_consume(uint32_t v) {
  uint32_t d;
  asm volatile("add.u32 %0, %1, 1;\n" : "=r"(d) : "r"(v) : "memory");
  if (d == 0xdeadbeefu && blockIdx.x < kWsTraceCtas) g_ws_trace[blockIdx.x][0] ^= 1;  // never: keeps d live
}

"""

DUMP = """// DIAGNOSTIC (scripts/device/pending/ws_trace.py): with KGATE_WS_TRACE_FILE set, every launch of the warp-specialized
// kernel waits for it and rewrites that file with its stamps (fast_ws.cuh, g_ws_trace): a header, then per CTA its
// index, the globaltimer at entry (ns) and slots 2 to kWsTraceSlots - 1 as clock64 cycles after its entry (0: not
// stamped).
void ws_trace_dump(const sparse_mla_args& a, int grid, cudaStream_t s) {
  const char* f = std::getenv("KGATE_WS_TRACE_FILE");
  if (!f) return;
  KGATE_CUDA(cudaStreamSynchronize(s));
  static unsigned long long h[kWsTraceCtas][kWsTraceSlots];
  KGATE_CUDA(cudaMemcpyFromSymbol(h, g_ws_trace, sizeof(h)));
  if (FILE* o = std::fopen(f, "w")) {
    std::fprintf(o, "# tokens %d heads %d topk %d grid %d kv_fp8 %d k0 %s\\n", a.tokens, a.heads, a.topk, grid, a.kv_fp8 ? 1 : 0,
                 std::getenv("KGATE_WS_TRACE_K0") ? std::getenv("KGATE_WS_TRACE_K0") : "0");
    for (int c = 0; c < std::min(grid, kWsTraceCtas); ++c) {
      std::fprintf(o, "%d %llu", c, h[c][0]);
      for (int k = 2; k < kWsTraceSlots; ++k) std::fprintf(o, " %lld", h[c][k] ? static_cast<long long>(h[c][k] - h[c][1]) : 0LL);
      std::fprintf(o, "\\n");
    }
    std::fclose(o);
  }
  void* d = nullptr;
  KGATE_CUDA(cudaGetSymbolAddress(&d, g_ws_trace));
  KGATE_CUDA(cudaMemset(d, 0, sizeof(h)));
  const char* k0 = std::getenv("KGATE_WS_TRACE_K0");  // for the next launch (the first launch's window starts at 0)
  const int k = k0 ? std::atoi(k0) : 0;
  KGATE_CUDA(cudaMemcpyToSymbol(g_ws_trace_k0, &k, sizeof(k)));
}
"""


def rep(old, new, count=1):
    global s
    assert s.count(old) == count, (old[:90], s.count(old))
    s = s.replace(old, new)


def rep_in(seg_start, seg_end, old, new):
    """rep within s[index(seg_start) : the next seg_end]."""
    global s
    i = s.index(seg_start)
    j = s.index(seg_end, i)
    seg = s[i:j]
    assert seg.count(old) == 1, (old[:90], seg.count(old))
    s = s[:i] + seg.replace(old, new) + s[j:]


p = "kernels/sparse_mla/fast_ws.cuh"
s = open(p).read()
rep("// CL: the 2-CTA cluster of the FP8 rows", HELPERS + "// CL: the 2-CTA cluster of the FP8 rows")
rep("""  const uint32_t qbar = bars + 8 * 2 * NS, grabbar = qbar + 8;  // warpgroup 0's Q, the producer's queue slot
""","""  const uint32_t qbar = bars + 8 * 2 * NS, grabbar = qbar + 8;  // warpgroup 0's Q, the producer's queue slot
  if (threadIdx.x == 0 && blockIdx.x < kWsTraceCtas) {
    g_ws_trace[blockIdx.x][0] = ws_gtime();
    g_ws_trace[blockIdx.x][1] = ws_clock();
  }
""")
rep("""    const int p = tid - 256, warp = p >> 5, lane = p & 31, qd = lane >> 3;
""","""    const int p = tid - 256, warp = p >> 5, lane = p & 31, qd = lane >> 3;
    if (p == 0) ws_stamp(2);
""")
CL0="      if constexpr (CL) {\n        // Under CL two blocks'"; CL1="      } else {\n"
NC0=CL1; NC1="    release_queue();"
if "two blocks'" in s:
    rep_in(CL0, CL1, """        int32_t rn2[2] = {raw_of(nx2, 0), raw_of(nx2, 1)};
""","""        int32_t rn2[2] = {raw_of(nx2, 0), raw_of(nx2, 1)};
        if (p == 0) {
          ws_consume(static_cast<uint32_t>(e[0] ^ e[1] ^ en1[0] ^ en1[1]));
          ws_stamp(3);
        }
""")
    rep_in(CL0, CL1, """        cluster_wait();  // the barriers of both CTAs are initialized
""","""        if (p == 0) {
          ws_consume(v[0][0].x ^ v[0][6].w ^ v[1][0].x ^ v[1][6].w ^ lo32(scw[0]) ^ lo32(scw[1]));
          ws_stamp(4);
        }
        cluster_wait();  // the barriers of both CTAs are initialized
""")
    rep_in(CL0, CL1, """          if (gstep >= NS) mbar_wait(bars + 8 * (NS + st), ((gstep / NS) - 1) & 1);
""","""          if (gstep >= NS) mbar_wait(bars + 8 * (NS + st), ((gstep / NS) - 1) & 1);
          if (p == 0 && gstep < 8) ws_stamp(40 + gstep);
""")
    rep_in(CL0, CL1, """          else store_reload(dst, ecur, mine, n2.data, n2.scales, 0, static_cast<int>(rank));
""","""          else store_reload(dst, ecur, mine, n2.data, n2.scales, 0, static_cast<int>(rank));
          if (p == 0 && gstep < 8) ws_stamp(48 + gstep);
""")
    rep_in(CL0, CL1, """          else mbar_arrive(bars + 8 * st);
""","""          else mbar_arrive(bars + 8 * st);
          if (p == 0 && gstep < 8) ws_stamp(5 + gstep);
""")
    NC0="      } else {\n        Cursor cur = first();"
    ind="        "
else:
    NC0="      // FP8, software-pipelined"
    ind="      "
# the non-CL (or shared) FP8 loop
rep_in(NC0, NC1, f"""{ind}int32_t rn[2] = {{raw_of(nx, 0), raw_of(nx, 1)}};
""",f"""{ind}int32_t rn[2] = {{raw_of(nx, 0), raw_of(nx, 1)}};
{ind}if (p == 0) {{
{ind}  ws_consume(static_cast<uint32_t>(e[0] ^ e[1]));
{ind}  ws_stamp(3);
{ind}}}
""")
rep_in(NC0, NC1, f"""{ind}for (int gstep = 0; cur.valid(); ++gstep) {{
""",f"""{ind}if (p == 0) {{
{ind}  ws_consume(v[0][0].x ^ v[0][6].w ^ {"lo32(scw[0])" if "two blocks'" in s else "scw[0].x"});
{ind}  ws_stamp(4);
{ind}}}
{ind}for (int gstep = 0; cur.valid(); ++gstep) {{
""")
rep_in(NC0, NC1, f"""{ind}    mbar_wait(bars + 8 * (NS + st), ((gstep / NS) - 1) & 1);
{ind}  }}
""",f"""{ind}    mbar_wait(bars + 8 * (NS + st), ((gstep / NS) - 1) & 1);
{ind}  }}
{ind}  if (p == 0 && gstep < 8) ws_stamp(40 + gstep);
""")
rep_in(NC0, NC1, f"""{ind}  store_reload(dst, e[1], en[1], n1.data, n1.scales, 1, 1);
""",f"""{ind}  store_reload(dst, e[1], en[1], n1.data, n1.scales, 1, 1);
{ind}  if (p == 0 && gstep < 8) ws_stamp(48 + gstep);
""")
rep_in(NC0, NC1, f"""{ind}  mbar_arrive(bars + 8 * st);
""" if "two blocks'" in s else f"""{ind}  else mbar_arrive(bars + 8 * st);
""",(f"""{ind}  mbar_arrive(bars + 8 * st);
""" if "two blocks'" in s else f"""{ind}  else mbar_arrive(bars + 8 * st);
""")+f"""{ind}  if (p == 0 && gstep < 8) ws_stamp(5 + gstep);
""")
rep("""    release_queue();
""","""    if (p == 0) ws_stamp(13);
    release_queue();
""")
# consumers
rep("""      wg_mbar_sync(qbar, qsyncs++);  // this item's Q is in
""","""      wg_mbar_sync(qbar, qsyncs++);  // this item's Q is in
      if (ct == 0 && gstep == 0) ws_stamp(14);
""")
rep("""        mbar_wait(bars + 8 * st, (gstep / NS) & 1);
        const uint32_t k_addr = smem_u32(sk + st * G::kTile);""","""        mbar_wait(bars + 8 * st, (gstep / NS) & 1);
        if (ct == 0 && gstep == 0) ws_stamp(15);
        if (ct == 0 && gstep < 8) ws_stamp(32 + gstep);
        const uint32_t k_addr = smem_u32(sk + st * G::kTile);""")
rep("""        wg_commit();
        wg_wait0();
        fence_regs(s);
""","""        wg_commit();
        wg_wait0();
        fence_regs(s);
        if (ct == 0 && gstep == 0) ws_stamp(16);
""")
rep("""        fence_regs(o);
        release(st);
      }
      // Row sums over the quad;""","""        fence_regs(o);
        release(st);
        if (ct == 0 && gstep < 8) ws_stamp(17 + gstep);
      }
      // Row sums over the quad;""")
# the emits, with or without the item's sinks as an argument (issue14-sinks-early)
E0 = "emit(it, o, l0, m0, l1, m1, sinks);" if "m1, sinks);" in s else "emit(it, o, l0, m0, l1, m1);"
E1 = ("emit(it, o, fin[r0], fin[64 + r0], fin[r1], fin[64 + r1], sinks);" if "fin[64 + r1], sinks);" in s
      else "emit(it, o, fin[r0], fin[64 + r0], fin[r1], fin[64 + r1]);")
rep(f"""      named_sync(kFinal, 256);
      {E0}
""",f"""      named_sync(kFinal, 256);
      if (ct == 0) ws_stamp(25);
      {E0}
      if (ct == 0) ws_stamp(26);
""")
rep("""        mbar_wait(bars + 8 * st, (gstep / NS) & 1);
        if (blk + 1 == it.b1) next_item = snext[st];""","""        mbar_wait(bars + 8 * st, (gstep / NS) & 1);
        if (ct == 0 && gstep == 0) ws_stamp(27);
        if (blk + 1 == it.b1) next_item = snext[st];""")
rep(f"""      named_sync(kFinal, 256);
      if (next_item >= 0) named_sync(kPFree, 256);  // the item's last P is released after kFinal
      {E1}
""",f"""      if (ct == 0) ws_stamp(28);
      named_sync(kFinal, 256);
      if (next_item >= 0) named_sync(kPFree, 256);  // the item's last P is released after kFinal
      {E1}
      if (ct == 0) ws_stamp(29);
""")
rep("""  if (CL) cluster_sync();

#else""","""  if (tid == 0) ws_stamp(30);
  if (CL) cluster_sync();
  if (tid == 0) ws_stamp(31);

#else""")
# the BF16 producer: 40 + k its stage free, 48 + k its rows landed (cp.async.wait_group), 5 + k its arrive
rep("""        if (gstep >= NS) mbar_wait(bars + 8 * (NS + st), ((gstep / NS) - 1) & 1);
        // Thread: 16-byte units""", """        if (gstep >= NS) mbar_wait(bars + 8 * (NS + st), ((gstep / NS) - 1) & 1);
        if (p == 0 && gstep < 8) ws_stamp(40 + gstep);
        // Thread: 16-byte units""")
rep("""        asm volatile("cp.async.wait_group 0;\\n" ::: "memory");
        if (qd == 0) {""", """        asm volatile("cp.async.wait_group 0;\\n" ::: "memory");
        if (p == 0 && gstep < 8) ws_stamp(48 + gstep);
        if (qd == 0) {""")
rep("""        fence_proxy_async();
        mbar_arrive(bars + 8 * st);
        cur = nx;""", """        fence_proxy_async();
        mbar_arrive(bars + 8 * st);
        if (p == 0 && gstep < 8) ws_stamp(5 + gstep);
        cur = nx;""")
import re
n = len(re.findall(r"gstep < 8\) ws_stamp\((\d+) \+ gstep\)", s))
s = re.sub(r"gstep < 8\) ws_stamp\((\d+) \+ gstep\)", r"ws_k(gstep) >= 0) ws_stamp(\1 + ws_k(gstep))", s)
assert n >= 8, n
open(p, "w").write(s)

p = "kernels/sparse_mla/launch.cu"
s = open(p).read()
rep("#include <cstdint>\n", "#include <cstdint>\n#include <cstdio>\n")
rep("// plan: the length-balanced plan (ws_plan), or null for the queue", DUMP + "// plan: the length-balanced plan (ws_plan), or null for the queue")
rep("""(a, stride, 1, ws, ws_ml, nullptr, nullptr, plan);
    return;""", """(a, stride, 1, ws, ws_ml, nullptr, nullptr, plan);
    ws_trace_dump(a, ws_parts(a), s);
    return;""")
rep("""        a, p.splits, p.blocks_per_split, ws, ws_ml, ws_queue(), order, nullptr);
    return;""", """        a, p.splits, p.blocks_per_split, ws, ws_ml, ws_queue(), order, nullptr);
    ws_trace_dump(a, ws_units(a, p, CL), s);
    return;""")
rep("""static_cast<const int*>(order), static_cast<const int*>(nullptr)));
}""", """static_cast<const int*>(order), static_cast<const int*>(nullptr)));
  ws_trace_dump(a, 2 * ws_units(a, p, CL), s);
}""")
open(p, "w").write(s)
