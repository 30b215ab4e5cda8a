// GPU tests (ctest label gpu): skipped cleanly where no GPU is present.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "harness/core/cases.hpp"
#include "harness/core/compare.hpp"
#include "harness/core/numeric.hpp"
#include "harness/export/loader.hpp"
#include "harness/gpu/backend.hpp"
#include "harness/gpu/compare_device.hpp"
#include "harness/gpu/gpu.hpp"
#include "harness/gpu/timer.hpp"
#include "kernels/ag_gemm/launch.hpp"
#include "kernels/sparse_mla/abi.h"
#include "kernels/sparse_mla/launch.hpp"
#include "kernels/ssu/launch.hpp"
#include "references/ag_gemm/ag_gemm_ref_gpu.hpp"
#include "references/ssu/ssu.hpp"
#include "references/ssu/ssu_ref_gpu.hpp"
#include "references/sparse_mla/sparse_mla.hpp"
#include "references/sparse_mla/sparse_mla_ref_gpu.hpp"
#include "tests/gpu/l2_probe.hpp"

using namespace kgate;

namespace {

bool have_gpu() {
  std::string why;
  return gpu::device_present(&why);
}

#define REQUIRE_GPU() \
  if (!have_gpu()) GTEST_SKIP() << "no GPU"

// A sparse_mla host problem's inputs on the device as the family lays them out: q in BF16, the
// tables' bytes, the [T, W] index table, the raw lengths, the sink (16 bytes when there is none).
struct SparseMlaOnDevice {
  gpu::DeviceBuffer q, swa, comp, idx, lens, sink;
  explicit SparseMlaOnDevice(const sparse_mla::HostProblem& hp)
      : q(hp.q.size() * 2),
        swa(hp.swa.size()),
        comp(hp.compressed.size()),
        idx(hp.indices.size() * 4),
        lens(hp.lens.size() * 4),
        sink(std::max<size_t>(16, hp.sink.size() * 4)) {
    std::vector<uint16_t> qb(hp.q.size());
    for (size_t i = 0; i < qb.size(); ++i) qb[i] = f32_to_bf16_bits(hp.q[i]);
    q.upload(qb.data(), q.bytes());
    swa.upload(hp.swa.data(), swa.bytes());
    comp.upload(hp.compressed.data(), comp.bytes());
    idx.upload(hp.indices.data(), idx.bytes());
    lens.upload(hp.lens.data(), lens.bytes());
    if (!hp.sink.empty()) sink.upload(hp.sink.data(), hp.sink.size() * 4);
  }
};

}  // namespace

TEST(CuptiRecords, FilterByExternalIdAndUnion) {
  // Pure logic (runs everywhere): records of other samples and of the L2 flush are excluded.
  std::vector<gpu::ActivityRecord> recs = {{100, 200, 0, 1, "memset", false},  // the flush: correlation 1 -> external 7
                                           {300, 400, 0, 2, "k_a", true},      // sample 8
                                           {350, 500, 1, 3, "k_b", true},      // sample 8, another device, overlapping
                                           {600, 650, 0, 4, "memcpy", false},  // sample 8, after a gap
                                           {700, 900, 0, 5, "k_a", true}};     // sample 9
  std::vector<std::pair<uint32_t, uint64_t>> corr = {{1, 7}, {2, 8}, {3, 8}, {4, 8}, {5, 9}};
  gpu::Measurement m = gpu::summarize_records(recs, corr, 8);
  EXPECT_DOUBLE_EQ(m.us, 0.25);       // [300,500] + [600,650] = 250 ns
  EXPECT_DOUBLE_EQ(m.span_us, 0.35);  // 300..650
  EXPECT_DOUBLE_EQ(m.sum_us, 0.30);   // 100 + 150 + 50
  ASSERT_TRUE(m.signature);
  EXPECT_EQ(m.signature->records, 3);
  EXPECT_EQ(m.signature->launches, 2);
  EXPECT_EQ(m.signature->kernel_names, (std::vector<std::string>{"k_a", "k_b", "memcpy"}));
  EXPECT_EQ(gpu::summarize_records(recs, corr, 42).signature->records, 0);
}

TEST(Gpu, CuptiTimerMeasuresOneKernelAndExcludesFlush) {
  REQUIRE_GPU();
  std::string why;
  auto t = gpu::make_cupti_timer(&why);
  if (!t) GTEST_SKIP() << "CUPTI held by another tool: " << why;
  gpu::Stream s;
  gpu::L2Flusher fl(0);
  for (int i = 0; i < 5; ++i) {
    fl.flush(s.get());
    gpu::Measurement m = t->measure([](cudaStream_t st) { gpu::launch_prime_kernel(st); }, s.get());
    ASSERT_TRUE(m.signature);
    EXPECT_EQ(m.signature->records, 1) << "the flush memset must not be counted";
    EXPECT_EQ(m.signature->launches, 1);
    EXPECT_GT(m.us, 0);
    EXPECT_LT(m.us, 100);
    EXPECT_GE(m.events_us, m.us * 0.5);
    // The intervals a job's rank records for the cross-device union: this call's, whose union
    // is the timer's value; its one kernel's time is the whole call's.
    const auto& iv = m.intervals_ns;
    ASSERT_EQ(iv.size(), 1u);
    EXPECT_NEAR(static_cast<double>(iv[0].second - iv[0].first) / 1000.0, m.us, 1e-6);
    ASSERT_EQ(m.activity_us.size(), 1u);
    EXPECT_NEAR(m.activity_us.begin()->second, m.us, 1e-6);
  }
}

// The cold-L2 step must leave no line of the previous sample in L2, including lines an arm
// marked evict_last (a plain memset flush does not evict those; measured on the H200).
TEST(Gpu, FlushEvictsEvictLastLines) {
  REQUIRE_GPU();
  gpu::Stream stream;
  gpu::L2Flusher flusher(0);
  test::L2Probe probe(8 << 20);
  flusher.flush(stream.get());
  const double cold = probe.cycles_per_load(stream.get());  // first touch after a flush: DRAM
  const double hot = probe.cycles_per_load(stream.get());   // just read: L2
  ASSERT_LT(hot, 0.8 * cold) << "the probe cannot tell L2 from DRAM here (hot " << hot << ", cold " << cold << ")";
  probe.prefetch_evict_last(stream.get());
  flusher.flush(stream.get());
  const double after = probe.cycles_per_load(stream.get());
  EXPECT_GT(after, 0.9 * cold) << "evict_last lines survived the flush: " << after << " cycles per load, cold " << cold
                               << ", L2 hit " << hot;
}

// The two L2 protocols: cold starts a sample from DRAM, warm from what the last call left in L2;
// each names itself in the receipt's protocol fields.
TEST(Gpu, ColdL2StartsFromDramAndWarmL2FromL2) {
  REQUIRE_GPU();
  gpu::Stream stream;
  gpu::L2Flusher flusher(0);
  test::L2Probe probe(8 << 20);
  auto cold = gpu::make_l2_protocol(false, flusher);
  auto warm = gpu::make_l2_protocol(true, flusher);
  cold->before_sample(stream.get());
  const double dram = probe.cycles_per_load(stream.get());
  warm->before_sample(stream.get());
  const double hit = probe.cycles_per_load(stream.get());
  ASSERT_LT(hit, 0.8 * dram) << "warm: " << hit << " cycles per load, cold " << dram;
  cold->before_sample(stream.get());
  EXPECT_GT(probe.cycles_per_load(stream.get()), 0.9 * dram);
  json c, w;
  cold->describe(c);
  warm->describe(w);
  EXPECT_EQ(c["cold_l2"], true);
  EXPECT_EQ(c["flush_bytes"], flusher.bytes());
  EXPECT_EQ(w["cold_l2"], false);
  EXPECT_EQ(w["flush_bytes"], 0);
  EXPECT_EQ(w["flush"], "none (--warm)");
}

TEST(Gpu, SsuArmsRefuseAnUnalignedStatePool) {
  REQUIRE_GPU();
  gpu::DeviceBuffer pool(64 * 128 * 2 + 16), slots(4);
  int32_t zero = 0;
  slots.upload(&zero, 4);
  ssu::gpu::Args a{};
  a.state = static_cast<char*>(pool.get()) + 2;
  a.slots = slots.as<int32_t>();
  a.batch = a.nheads = a.ngroups = 1;
  a.state_bf16 = a.io_bf16 = 1;
  gpu::Stream s;
  for (auto fn : {&ssu::gpu::launch_fast, &ssu::gpu::launch_baseline, &ssu::gpu::launch_floor}) {
    try {
      fn(a, {}, s.get());
      ADD_FAILURE() << "an unaligned state pool was launched";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("16-byte aligned"), std::string::npos) << e.what();
    }
  }
  KGATE_CUDA(cudaStreamSynchronize(s.get()));
}

// An ssu host problem's inputs on the device, BF16 where the fast arm takes BF16; the state's
// BF16 bits stay on the host (st) for the caller to upload when it wants a fresh start.
struct SsuOnDevice {
  const ssu::HostProblem& hp;
  std::vector<uint16_t> st;
  gpu::DeviceBuffer dstate, dslots, dx, dB, dC, dz, dout, ddt, dA, dD, ddb;
  static std::vector<uint16_t> bf16(const std::vector<float>& v) {
    std::vector<uint16_t> b(v.size());
    for (size_t i = 0; i < v.size(); ++i) b[i] = f32_to_bf16_bits(v[i]);
    return b;
  }
  static void upload_bf16(gpu::DeviceBuffer& d, const std::vector<float>& v) {
    const std::vector<uint16_t> b = bf16(v);
    d.upload(b.data(), d.bytes());
  }
  explicit SsuOnDevice(const ssu::HostProblem& p)
      : hp(p),
        st(bf16(p.state)),
        dstate(p.state.size() * 2),
        dslots(p.slots.size() * 4),
        dx(p.x.size() * 2),
        dB(p.B.size() * 2),
        dC(p.C.size() * 2),
        dz(p.z.size() * 2),
        dout(static_cast<size_t>(p.p.batch * p.p.nheads * 64) * 2),
        ddt(p.dt.size() * 4),
        dA(p.A.size() * 4),
        dD(p.D.size() * 4),
        ddb(p.dt_bias.size() * 4) {
    dslots.upload(p.slots.data(), dslots.bytes());
    upload_bf16(dx, p.x);
    upload_bf16(dB, p.B);
    upload_bf16(dC, p.C);
    upload_bf16(dz, p.z);
    ddt.upload(p.dt.data(), ddt.bytes());
    dA.upload(p.A.data(), dA.bytes());
    dD.upload(p.D.data(), dD.bytes());
    ddb.upload(p.dt_bias.data(), ddb.bytes());
  }
  ssu::gpu::Args args() const {
    const ssu::Params& q = hp.p;
    return {dstate.get(),
            dslots.as<int32_t>(),
            dx.get(),
            dB.get(),
            dC.get(),
            dz.get(),
            dout.get(),
            ddt.get(),
            dA.get(),
            dD.get(),
            ddb.get(),
            static_cast<int>(q.batch),
            static_cast<int>(q.nheads),
            static_cast<int>(q.ngroups),
            q.x_stride(),
            q.bc_stride(),
            1,
            1,
            0,
            1,
            1};
  }
};

TEST(Gpu, SsuFastGraphCaptureReplaysSameOutput) {
  REQUIRE_GPU();
  Registry& reg = Registry::instance();
  CaseTable t = parse_case_table("inline.json", R"({"table": "g", "family": "ssu", "rows": [
    {"id": "g", "params": {"batch": 8, "nheads": 16, "ngroups": 2, "pool_slots": 16, "state_dtype": "bf16", "has_z": true, "pad_slots": 1}}]})");
  ssu::HostProblem hp = ssu::make_problem(ssu::Params::from_json(t.rows[0].params), 5);
  auto be = gpu::make_backend("events", true);
  // Direct run through the registered context, then a graph of the same launch.
  auto ctx = be->prepare(reg.family("ssu"), t.rows[0], 5);
  Correctness c = ctx->check(reg.impl("ssu.fast"));
  EXPECT_TRUE(c.passed) << c.worst << " " << c.note;
  // Graph: capture once on a fresh problem copy, replay twice from the same starting state.
  SsuOnDevice d(hp);
  const size_t n_state = d.st.size(), n_out = d.dout.bytes() / 2;
  const ssu::gpu::Args a = d.args();
  // The stream is non-blocking and a pageable upload or a cudaMemset may still be in flight when
  // they return: each launch waits for the whole device first (a replay once saw the memset land
  // after the kernel's out stores: out all 0xffff).
  gpu::Stream s;
  d.dstate.upload(d.st.data(), d.dstate.bytes());
  KGATE_CUDA(cudaDeviceSynchronize());
  ssu::gpu::launch_fast(a, {}, s.get());
  KGATE_CUDA(cudaStreamSynchronize(s.get()));
  std::vector<uint16_t> direct(n_out), direct_state(n_state);
  d.dout.download(direct.data(), d.dout.bytes());
  d.dstate.download(direct_state.data(), d.dstate.bytes());
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  KGATE_CUDA(cudaStreamBeginCapture(s.get(), cudaStreamCaptureModeThreadLocal));
  ssu::gpu::launch_fast(a, {}, s.get());
  KGATE_CUDA(cudaStreamEndCapture(s.get(), &graph));
  KGATE_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int rep = 0; rep < 2; ++rep) {
    d.dstate.upload(d.st.data(), d.dstate.bytes());
    KGATE_CUDA(cudaMemset(d.dout.get(), 0xff, d.dout.bytes()));
    KGATE_CUDA(cudaDeviceSynchronize());
    KGATE_CUDA(cudaGraphLaunch(exec, s.get()));
    KGATE_CUDA(cudaStreamSynchronize(s.get()));
    std::vector<uint16_t> replay(n_out), replay_state(n_state);
    d.dout.download(replay.data(), d.dout.bytes());
    d.dstate.download(replay_state.data(), d.dstate.bytes());
    EXPECT_EQ(replay, direct) << "replay " << rep;
    EXPECT_EQ(replay_state, direct_state) << "replay " << rep;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}

// --launch graph's clock: CUPTI gives a replayed graph's nodes the correlation id of its
// cudaGraphLaunch, so the external id pushed around the launch files every node's record under the
// sample, each with a graphId; a direct launch's records have none.
TEST(Gpu, CuptiFilesAGraphReplaysRecordsUnderItsSample) {
  REQUIRE_GPU();
  std::string why;
  auto t = gpu::make_cupti_timer(&why);
  if (!t) GTEST_SKIP() << "CUPTI held by another tool: " << why;
  gpu::Stream s;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  KGATE_CUDA(cudaStreamBeginCapture(s.get(), cudaStreamCaptureModeThreadLocal));
  gpu::launch_prime_kernel(s.get());
  gpu::launch_prime_kernel(s.get());
  KGATE_CUDA(cudaStreamEndCapture(s.get(), &graph));
  KGATE_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int i = 0; i < 5; ++i) {
    gpu::Measurement m = t->measure([exec](cudaStream_t st) { KGATE_CUDA(cudaGraphLaunch(exec, st)); }, s.get());
    ASSERT_TRUE(m.signature);
    EXPECT_EQ(m.signature->records, 2) << "replay " << i;
    EXPECT_EQ(m.signature->launches, 2);
    EXPECT_EQ(m.graph_records, 2);
    EXPECT_GT(m.us, 0);
    EXPECT_GE(m.events_us, m.us * 0.5);
  }
  gpu::Measurement direct = t->measure([](cudaStream_t st) { gpu::launch_prime_kernel(st); }, s.get());
  ASSERT_TRUE(direct.signature);
  EXPECT_EQ(direct.signature->records, 1);
  EXPECT_EQ(direct.graph_records, 0);
  KGATE_CUDA(cudaGraphExecDestroy(exec));
  KGATE_CUDA(cudaGraphDestroy(graph));
}

// A row context under --launch graph: each arm's call is captured when its refusal is asked, and
// every call after that replays it: the check judges a replay's outputs, a sample times one.
TEST(Gpu, GraphModeRowContextChecksAndTimesReplays) {
  REQUIRE_GPU();
  Registry& reg = Registry::instance();
  CaseTable t = parse_case_table("inline.json", R"({"table": "g", "family": "ssu", "rows": [
    {"id": "g", "params": {"batch": 8, "nheads": 16, "ngroups": 2, "pool_slots": 16, "state_dtype": "bf16", "has_z": true, "pad_slots": 1}}]})");
  g_launch_mode = "graph";
  auto be = gpu::make_backend("cupti", false);
  g_launch_mode = "direct";
  EXPECT_EQ(be->protocol()["launch"], "graph");
  auto ctx = be->prepare(reg.family("ssu"), t.rows[0], 5);
  for (const char* name : {"ssu.fast", "ssu.baseline", "ssu.floor_copy"}) {
    const Implementation& impl = reg.impl(name);
    EXPECT_EQ(ctx->refusal(impl), "") << name;
    for (int rep = 0; rep < 2; ++rep) {
      Correctness c = ctx->check(impl);
      EXPECT_TRUE(c.passed) << name << " check " << rep << ": " << c.worst << " " << c.note;
    }
    for (int i = 0; i < 3; ++i) {
      Sample smp = ctx->time_once(impl);
      EXPECT_GT(smp.us, 0) << name;
      if (smp.signature) {
        EXPECT_GT(smp.signature->launches, 0) << name;
      }
    }
  }
}

// The side-warp kernel (BF16 state up to 768 tiles, both geometries) against the oracle on the
// inputs the canonical table's small rows do not have: z, an unaligned fused x stride, BF16
// weights, FP32 io, pad slots, softplus off, both geometries at 96 tiles and beyond; and the row
// names that kernel. (Softplus off only on 2 x 8 heads: the generator's dt' is then mostly negative
// and A < 0, so dA = exp(A dt') > 1 grows the state; on 6 x 128 heads that failed an out row with
// the state at 8.4e6, an input the tolerance cannot judge.)
TEST(Gpu, SsuFastSideWarpKernelMatchesTheOracle) {
  REQUIRE_GPU();
  Registry& reg = Registry::instance();
  CaseTable t = parse_case_table("inline.json", R"({"table": "s", "family": "ssu", "rows": [
    {"id": "narrow", "params": {"batch": 1, "nheads": 48, "ngroups": 1, "pool_slots": 4, "state_dtype": "bf16",
                                "has_z": true, "fused_extra": 3, "weight_dtype": "bf16"}},
    {"id": "wide", "params": {"batch": 3, "nheads": 40, "ngroups": 5, "pool_slots": 8, "state_dtype": "bf16",
                              "io_dtype": "fp32", "pad_slots": 1}},
    {"id": "last", "params": {"batch": 6, "nheads": 128, "ngroups": 8, "pool_slots": 8, "state_dtype": "bf16",
                              "has_z": true}},
    {"id": "narrow_fp32_io", "params": {"batch": 2, "nheads": 24, "ngroups": 4, "pool_slots": 4, "state_dtype": "bf16",
                                        "io_dtype": "fp32", "weight_dtype": "bf16", "pad_slots": 1, "fused_extra": 5,
                                        "has_z": true}},
    {"id": "edge96", "params": {"batch": 1, "nheads": 96, "ngroups": 8, "pool_slots": 2, "state_dtype": "bf16",
                                "fused_extra": 7}},
    {"id": "softplus_off", "params": {"batch": 2, "nheads": 8, "ngroups": 2, "pool_slots": 4, "state_dtype": "bf16",
                                      "softplus": false}}]})");
  auto be = gpu::make_backend("events", true);
  for (const auto& row : t.rows) {
    auto ctx = be->prepare(reg.family("ssu"), row, 7);
    const Correctness c = ctx->check(reg.impl("ssu.fast"));
    EXPECT_TRUE(c.passed) << row.id << ": " << c.worst << " " << c.note;
    EXPECT_EQ(ctx->config(reg.impl("ssu.fast")).at("kernel"), "ssu_fast_kernel_side_warp") << row.id;
  }
}

// No role passes the oracle unchecked: an arm that computes nothing (the floor kernel leaves
// out poisoned), registered as a "diagnostic", must fail correctness.
TEST(Gpu, SsuDiagnosticRoleIsCheckedAgainstTheOracle) {
  REQUIRE_GPU();
  Registry& reg = Registry::instance();
  Implementation fake = reg.impl("ssu.floor");
  fake.name = "ssu.test_diagnostic";
  fake.role = "diagnostic";
  CaseTable t = parse_case_table("inline.json", R"({"table": "d", "family": "ssu", "rows": [
    {"id": "d", "params": {"batch": 2, "nheads": 4, "ngroups": 1, "pool_slots": 4, "state_dtype": "bf16"}}]})");
  auto be = gpu::make_backend("events", true);
  auto ctx = be->prepare(reg.family("ssu"), t.rows[0], 5);
  EXPECT_TRUE(ctx->check(reg.impl("ssu.floor")).passed);
  Correctness c = ctx->check(fake);
  EXPECT_FALSE(c.passed) << c.note;
}

// environment.peaks: measured once per process, in the range an H200 reaches (facts file:
// cudaMemcpyAsync D2D 4.29 TB/s, cuBLAS BF16 GEMM K 8192 678-761 TFLOP/s on random data).
TEST(Gpu, PeaksInTheEnvironmentAreH200Class) {
  REQUIRE_GPU();
  auto be = gpu::make_backend("events", true);
  const std::string name = static_cast<gpu::GpuBackend&>(*be).device().name;
  const json p = be->environment()["peaks"];
  ASSERT_TRUE(p.is_object());
  EXPECT_TRUE(p["copy_method"].is_string());
  EXPECT_TRUE(p["gemm_method"].is_string());
  ASSERT_TRUE(p["copy_bytes_per_s"].is_number()) << p.dump();
  ASSERT_TRUE(p["gemm_bf16_flops_per_s"].is_number()) << p.dump();
  EXPECT_EQ(be->environment()["peaks"], p) << "measured once per process";
  if (name.find("H200") == std::string::npos) GTEST_SKIP() << "not an H200-class device: " << name << " " << p.dump();
  EXPECT_GT(p["copy_bytes_per_s"].get<double>(), 3.5e12) << p.dump();
  EXPECT_LT(p["copy_bytes_per_s"].get<double>(), 5e12) << p.dump();
  EXPECT_GT(p["gemm_bf16_flops_per_s"].get<double>(), 4e14) << p.dump();
  EXPECT_LT(p["gemm_bf16_flops_per_s"].get<double>(), 1e15) << p.dump();
}

// ---------------------------------------------------------------- ssu GPU oracle
namespace {

gpu::DeviceBuffer upload_as(const std::vector<float>& v, bool bf16) {
  gpu::DeviceBuffer d(std::max<size_t>(v.size() * (bf16 ? 2 : 4), 16));
  if (bf16) {
    std::vector<uint16_t> b(v.size());
    for (size_t i = 0; i < v.size(); ++i) b[i] = f32_to_bf16_bits(v[i]);
    if (!b.empty()) d.upload(b.data(), b.size() * 2);
  } else if (!v.empty()) {
    d.upload(v.data(), v.size() * 4);
  }
  return d;
}

}  // namespace

// The GPU reference against the CPU reference (the oracle of record) on small rows of every
// dtype combination, z, pad slots and a fused view: out and every owned state entry agree to
// fp64 rounding, except where the two libms' last-bit differences in exp/log1p move a value
// across a BF16/FP32 rounding boundary (at most one unit of the rounded dtype, on a handful).
TEST(GpuRef, SsuMatchesTheCpuReference) {
  REQUIRE_GPU();
  const char* rows[] = {
      R"({"batch": 4, "nheads": 8, "ngroups": 2, "pool_slots": 8, "state_dtype": "bf16", "io_dtype": "bf16", "weight_dtype": "fp32", "softplus": true, "has_z": false, "pad_slots": 0, "fused_extra": 0})",
      R"({"batch": 5, "nheads": 8, "ngroups": 1, "pool_slots": 9, "state_dtype": "fp32", "io_dtype": "fp32", "weight_dtype": "bf16", "softplus": true, "has_z": true, "pad_slots": 2, "fused_extra": 0})",
      R"({"batch": 3, "nheads": 4, "ngroups": 4, "pool_slots": 3, "state_dtype": "bf16", "io_dtype": "fp32", "weight_dtype": "fp32", "softplus": false, "has_z": true, "pad_slots": 1, "fused_extra": 7})",
      R"({"batch": 6, "nheads": 6, "ngroups": 3, "pool_slots": 12, "state_dtype": "fp32", "io_dtype": "bf16", "weight_dtype": "bf16", "softplus": true, "has_z": false, "pad_slots": 0, "fused_extra": 3})"};
  gpu::Stream s;
  for (const char* r : rows) {
    const ssu::Params p = ssu::Params::from_json(json::parse(r));
    const ssu::HostProblem hp = ssu::make_problem(p, 11);
    const ssu::Reference cpu = ssu::reference(hp);
    gpu::DeviceBuffer pool = upload_as(hp.state, p.state_bf16), slots(hp.slots.size() * 4),
                      x = upload_as(hp.x, p.io_bf16), B = upload_as(hp.B, p.io_bf16), C = upload_as(hp.C, p.io_bf16),
                      z = upload_as(hp.z, p.io_bf16), dt = upload_as(hp.dt, p.weight_bf16),
                      A = upload_as(hp.A, p.weight_bf16), D = upload_as(hp.D, p.weight_bf16),
                      db = upload_as(hp.dt_bias, p.weight_bf16);
    slots.upload(hp.slots.data(), slots.bytes());
    const size_t rows_n = static_cast<size_t>(p.batch * p.nheads * ssu::kP),
                 per = static_cast<size_t>(p.nheads) * ssu::kP * ssu::kN;
    gpu::DeviceBuffer rs(rows_n * ssu::kN * 8), ro(rows_n * 8);
    ssu::reference_device(p,
                          {pool.get(), slots.as<int32_t>(), x.get(), B.get(), C.get(), p.has_z ? z.get() : nullptr,
                           dt.get(), A.get(), D.get(), db.get()},
                          rs.as<double>(), ro.as<double>(), s.get());
    KGATE_CUDA(cudaStreamSynchronize(s.get()));
    std::vector<double> gs(rows_n * ssu::kN), go(rows_n);
    rs.download(gs.data(), gs.size() * 8);
    ro.download(go.data(), go.size() * 8);
    const double unit = p.state_bf16 ? 0x1p-7 : 0x1p-23, out_unit = p.io_bf16 ? 0x1p-7 : 1e-9;
    int64_t off_last_bit = 0, compared = 0;
    auto agree = [&](double g, double c, double u, const std::string& where) {
      ++compared;
      const double d = std::fabs(g - c), scale = std::max(std::fabs(c), 1e-3);
      if (d > 1e-12 * scale) ++off_last_bit;
      EXPECT_LE(d, u * scale) << r << " " << where << ": gpu " << g << " cpu " << c;
    };
    for (size_t i = 0; i < rows_n; ++i) agree(go[i], cpu.out[i], out_unit, "out[" + std::to_string(i) + "]");
    for (int64_t b = 0; b < p.batch; ++b) {
      if (hp.slots[b] < 0) continue;
      for (size_t e = 0; e < per; ++e)
        agree(gs[b * per + e], cpu.state[hp.slots[b] * per + e], unit, "state[b=" + std::to_string(b) + "]");
    }
    EXPECT_LE(off_last_bit, compared / 1000)
        << r << ": " << off_last_bit << " of " << compared << " differ beyond fp64 rounding";
  }
}

// Above the CPU oracle's size (a pool of more than 2^24 values) the row context checks on the
// device: ssu.fast and the floors pass, and an arm that computes nothing fails.
TEST(GpuRef, SsuLargeRowsAreCheckedOnTheDevice) {
  REQUIRE_GPU();
  Registry& reg = Registry::instance();
  CaseTable t = parse_case_table("inline.json", R"({"table": "big", "family": "ssu", "rows": [
    {"id": "big", "params": {"batch": 40, "nheads": 64, "ngroups": 4, "pool_slots": 48, "state_dtype": "bf16", "has_z": true, "pad_slots": 3}}]})");
  auto be = gpu::make_backend("events", true);
  auto ctx = be->prepare(reg.family("ssu"), t.rows[0], 5);
  for (const char* arm : {"ssu.fast", "ssu.baseline", "ssu.floor", "ssu.floor_copy"}) {
    const Correctness c = ctx->check(reg.impl(arm));
    EXPECT_TRUE(c.passed) << arm << ": " << c.worst << " " << c.note;
    EXPECT_NE(c.note.find("device"), std::string::npos) << arm << ": " << c.note;
  }
  Implementation fake = reg.impl("ssu.floor");
  fake.name = "ssu.test_diagnostic";
  fake.role = "diagnostic";
  const Correctness c = ctx->check(fake);
  EXPECT_FALSE(c.passed) << c.note;
  EXPECT_GT(c.unwritten, 0) << "the floor leaves out poisoned";
}

// sparse_mla's GPU context: the floor passes its check on a hardening row
// (padding query rows, one concatenated index table, raw lengths plus an offset, FP8 MODEL1),
// and the same kernel named a candidate fails the oracle (it computes no attention).
TEST(Gpu, SparseMlaFloorAndContext) {
  REQUIRE_GPU();
  Registry& reg = Registry::instance();
  CaseTable t = parse_case_table("inline.json", R"({"table": "m", "family": "sparse_mla", "rows": [
    {"id": "m", "params": {"batch": 2, "q_len": 3, "heads": 16, "kv_dtype": "fp8", "swa_rows": 256, "compressed_rows": 512,
     "topk": 64, "ragged": true, "sink": true, "q_pad_rows": 3, "index_layout": "concat", "lens_offset": -4}}]})");
  auto be = gpu::make_backend("events", true);
  auto ctx = be->prepare(reg.family("sparse_mla"), t.rows[0], 5);
  const Correctness f = ctx->check(reg.impl("sparse_mla.floor"));
  EXPECT_TRUE(f.passed) << f.worst << " " << f.note;
  Implementation fake = reg.impl("sparse_mla.floor");
  fake.name = "sparse_mla.test_candidate";
  fake.role = "candidate";
  EXPECT_FALSE(ctx->check(fake).passed);
  const Correctness b = ctx->check(reg.impl("sparse_mla.baseline"));
  EXPECT_TRUE(b.passed) << b.worst << " " << b.note;
}

// sparse_mla.baseline against the oracle: BF16 with 8 heads (a partial head group), an empty
// token and many splits; FP8 with 128 heads above the CPU oracle's size (the GPU reference).
TEST(Gpu, SparseMlaDeviceArmsAreCorrect) {
  REQUIRE_GPU();
  Registry& reg = Registry::instance();
  // Every head-tile width of sparse_mla.fast (8/16 -> 1 tile, 32 -> 2, 64/128 -> 4), one split
  // (136 tokens x h64: a wave without splitting) and several, both dtypes, the hardening forms.
  CaseTable t = parse_case_table("inline.json", R"({"table": "b", "family": "sparse_mla", "rows": [
    {"id": "bf16-h8", "params": {"batch": 3, "q_len": 2, "heads": 8, "kv_dtype": "bf16", "swa_rows": 256, "compressed_rows": 1024,
     "topk": 1024, "ragged": true, "empty_tokens": 1, "sink": true}},
    {"id": "fp8-h128", "params": {"batch": 4, "q_len": 5, "heads": 128, "kv_dtype": "fp8", "swa_rows": 512, "compressed_rows": 16384,
     "topk": 512}},
    {"id": "bf16-h16-hardening", "params": {"batch": 2, "q_len": 3, "heads": 16, "kv_dtype": "bf16", "swa_rows": 256,
     "compressed_rows": 512, "topk": 192, "ragged": true, "index_layout": "concat", "q_pad_rows": 3, "lens_offset": 5}},
    {"id": "fp8-h32-pad", "params": {"batch": 2, "q_len": 5, "heads": 32, "kv_dtype": "fp8", "swa_rows": 256, "compressed_rows": 1024,
     "topk": 1024, "sink": true, "q_pad_rows": 2, "invalid_pct": 20}},
    {"id": "bf16-h64-one-split", "params": {"batch": 34, "q_len": 4, "heads": 64, "kv_dtype": "bf16", "swa_rows": 4352,
     "compressed_rows": 64, "topk": 0, "ragged": true, "sink": true}},
    {"id": "fp8-h64-swa-only", "params": {"batch": 1, "q_len": 5, "heads": 64, "kv_dtype": "fp8", "swa_rows": 128,
     "compressed_rows": 64, "topk": 0, "empty_tokens": 2}}]})");
  auto be = gpu::make_backend("events", true);
  for (const CaseRow& row : t.rows) {
    auto ctx = be->prepare(reg.family("sparse_mla"), row, 5);
    for (const char* arm : {"sparse_mla.baseline", "sparse_mla.fast"}) {
      const Correctness c = ctx->check(reg.impl(arm));
      EXPECT_TRUE(c.passed) << row.id << " " << arm << ": " << c.worst << " " << c.note << " max_abs " << c.max_abs_err;
    }
  }
}

// sparse_mla.fast on every row of t, three launches each in one context, each correct; each row's
// kernels must include `kernel` and not `absent` (a skip where the row does not run the sm_90a
// warp-specialized kernel).
static void expect_ws_launches_correct(const CaseTable& t, const char* kernel, const char* absent = nullptr) {
  Registry& reg = Registry::instance();
  auto be = gpu::make_backend("events", true);
  for (const CaseRow& row : t.rows) {
    auto ctx = be->prepare(reg.family("sparse_mla"), row, 5);
    const Implementation& fast = reg.impl("sparse_mla.fast");
    const std::string kernels = ctx->config(fast).value("kernel", "");
    if (kernels.find("sparse_mla_fast_ws_kernel") == std::string::npos)
      GTEST_SKIP() << "not the sm_90a path: " << kernels;
    EXPECT_NE(kernels.find(kernel), std::string::npos) << row.id << ": " << kernels;
    if (absent) EXPECT_EQ(kernels.find(absent), std::string::npos) << row.id << ": " << kernels;
    for (int launch = 0; launch < 3; ++launch) {
      const Correctness c = ctx->check(fast);
      EXPECT_TRUE(c.passed) << row.id << " launch " << launch << ": " << c.worst << " " << c.note;
    }
  }
}

// sparse_mla.fast's warp-specialized kernel takes items from a global queue that the last CTA of a
// launch resets, and from two items per CTA a sort kernel orders the tokens first: launches in a row
// must each be correct (a queue left past the item count would run only the first items, quickly
// and wrongly). Ragged lengths, both dtypes, rows routed to the sorted queue (300 and 280 items); the
// FP8 row's 65 792-row tables are past the dequantized-once route's 64 MB, so its FP8 producer runs.
TEST(Gpu, SparseMlaWarpSpecializedRepeatsAreCorrect) {
  REQUIRE_GPU();
  CaseTable t = parse_case_table("inline.json", R"({"table": "q", "family": "sparse_mla", "rows": [
    {"id": "fp8-h64-ragged", "params": {"batch": 2, "q_len": 150, "heads": 64, "kv_dtype": "fp8", "swa_rows": 256,
     "compressed_rows": 65536, "topk": 512, "ragged": true, "sink": true}},
    {"id": "bf16-h128-ragged", "params": {"batch": 1, "q_len": 140, "heads": 128, "kv_dtype": "bf16", "swa_rows": 128,
     "compressed_rows": 1024, "topk": 128, "ragged": true, "empty_tokens": 3}}]})");
  expect_ws_launches_correct(t, "sparse_mla_ws_order_kernel", "sparse_mla_dequant_kernel");
}

// sparse_mla.fast's 2-CTA cluster (launch.cu, fast_ws.cuh CL): FP8 rows of 65-128 heads on the FP8 producer that the
// length-balanced plan leaves alone, each CTA of a cluster one 64-head group of the token, each producer dequantizing
// half of every block into both CTAs' stages. Rows on each of its item sources: the static order of one item per
// cluster (40 tokens of 96 heads: the second group's rows past the head count, in the hardening forms with invalid
// indices) and the sorted static order of several items per cluster (150 ragged tokens); and a planned row (20 split
// tokens, ragged, empty tokens, sinks), which keeps one CTA a unit. Tables of 65 536 rows keep them off the
// dequantized-once route. Three launches each, each correct, and the row's config names the cluster or not.
TEST(Gpu, SparseMlaClusterIsCorrect) {
  REQUIRE_GPU();
  CaseTable t = parse_case_table("inline.json", R"({"table": "c", "family": "sparse_mla", "rows": [
    {"id": "fp8-h128-plan", "params": {"batch": 4, "q_len": 5, "heads": 128, "kv_dtype": "fp8", "swa_rows": 512,
     "compressed_rows": 65536, "topk": 1024, "ragged": true, "empty_tokens": 2, "sink": true}},
    {"id": "fp8-h96-static-hardening", "params": {"batch": 2, "q_len": 20, "heads": 96, "kv_dtype": "fp8", "swa_rows": 256,
     "compressed_rows": 65536, "topk": 512, "index_layout": "concat", "q_pad_rows": 2, "lens_offset": 3, "invalid_pct": 10}},
    {"id": "fp8-h128-sorted", "params": {"batch": 1, "q_len": 150, "heads": 128, "kv_dtype": "fp8", "swa_rows": 256,
     "compressed_rows": 65536, "topk": 512, "ragged": true, "sink": true}}]})");
  expect_ws_launches_correct(t, "sparse_mla_fast_ws_kernel", "sparse_mla_dequant_kernel");
  if (IsSkipped()) return;
  Registry& reg = Registry::instance();
  auto be = gpu::make_backend("events", true);
  for (const CaseRow& row : t.rows) {
    auto ctx = be->prepare(reg.family("sparse_mla"), row, 5);
    const json cfg = ctx->config(reg.impl("sparse_mla.fast"));
    EXPECT_EQ(cfg.value("cluster", 0), row.id == "fp8-h128-plan" ? 1 : 2) << row.id << ": " << cfg.dump();
  }
}

// sparse_mla.fast's dequantized-once route (launch.cu: FP8 tables gathered many times over are dequantized to
// BF16 rows by sparse_mla_dequant_kernel, then the BF16 warp-specialized kernel runs on them), on rows the rule
// routes there: 140 query tokens of one request over a 1152-row table (h64, ragged, sinks), a split h128
// decode row in the hardening forms (one concatenated index table, padding rows, raw lengths plus an offset,
// invalid indices), and 300 ragged h128 tokens, whose sorted queue takes the token order from the dequant pass's
// first CTA; three launches each, each correct (padding rows untouched).
TEST(Gpu, SparseMlaDequantizedOnceRouteIsCorrect) {
  REQUIRE_GPU();
  CaseTable t = parse_case_table("inline.json", R"({"table": "d", "family": "sparse_mla", "rows": [
    {"id": "fp8-h64-prefill-shared", "params": {"batch": 1, "q_len": 140, "heads": 64, "kv_dtype": "fp8", "swa_rows": 128,
     "compressed_rows": 1024, "topk": 512, "ragged": true, "sink": true}},
    {"id": "fp8-h128-hardening", "params": {"batch": 3, "q_len": 5, "heads": 128, "kv_dtype": "fp8", "swa_rows": 384,
     "compressed_rows": 1024, "topk": 1024, "ragged": true, "index_layout": "concat", "q_pad_rows": 3, "lens_offset": 7,
     "invalid_pct": 10}},
    {"id": "fp8-h128-prefill-sorted", "params": {"batch": 1, "q_len": 300, "heads": 128, "kv_dtype": "fp8", "swa_rows": 128,
     "compressed_rows": 1024, "topk": 512, "ragged": true, "sink": true}}]})");
  expect_ws_launches_correct(t, "sparse_mla_dequant_kernel");
  if (IsSkipped()) return;
  Registry& reg = Registry::instance();
  auto ctx = gpu::make_backend("events", true)->prepare(reg.family("sparse_mla"), t.rows.back(), 5);
  const std::string kernels = ctx->config(reg.impl("sparse_mla.fast")).value("kernel", "");
  EXPECT_NE(kernels.find("its first CTA: the token order"), std::string::npos) << kernels;
  EXPECT_EQ(kernels.find("sparse_mla_ws_order_kernel"), std::string::npos) << kernels;
}

// The sparse_mla GPU reference against the CPU reference on small rows of both dtypes, sinks,
// ragged and empty tokens, invalid indices and a raw-length offset: lse to 1e-5, out to one BF16
// unit (the two round an fp32 vs an fp64 sum to BF16).
TEST(GpuRef, SparseMlaMatchesTheCpuReference) {
  REQUIRE_GPU();
  const char* rows[] = {
      R"({"batch": 2, "q_len": 3, "heads": 16, "kv_dtype": "bf16", "swa_rows": 256, "compressed_rows": 256, "topk": 64, "invalid_pct": 10, "empty_tokens": 1, "ragged": true, "sink": false, "page_block": 64, "index_layout": "split", "q_pad_rows": 0, "lens_offset": 0})",
      R"({"batch": 1, "q_len": 4, "heads": 8, "kv_dtype": "fp8", "swa_rows": 128, "compressed_rows": 512, "topk": 128, "invalid_pct": 5, "empty_tokens": 0, "ragged": true, "sink": true, "page_block": 64, "index_layout": "concat", "q_pad_rows": 2, "lens_offset": 3})"};
  gpu::Stream s;
  for (const char* r : rows) {
    const sparse_mla::Params p = sparse_mla::Params::from_json(json::parse(r));
    const sparse_mla::HostProblem hp = sparse_mla::make_problem(p, 13);
    const sparse_mla::Reference cpu = sparse_mla::reference(hp);
    const SparseMlaOnDevice d(hp);
    const gpu::DeviceBuffer &q = d.q, &swa = d.swa, &comp = d.comp, &idx = d.idx, &lens = d.lens, &sink = d.sink;
    gpu::DeviceBuffer ro(cpu.out.size() * 8), rl(cpu.lse.size() * 8);
    KGATE_CUDA(cudaDeviceSynchronize());
    sparse_mla::reference_device(hp,
                                 {q.get(), swa.get(), comp.get(), idx.as<int32_t>(), lens.as<int32_t>(),
                                  hp.sink.empty() ? nullptr : sink.as<float>()},
                                 ro.as<double>(), rl.as<double>(), s.get());
    std::vector<double> go(cpu.out.size()), gl(cpu.lse.size());
    ro.download(go.data(), go.size() * 8);
    rl.download(gl.data(), gl.size() * 8);
    for (size_t i = 0; i < gl.size(); ++i) {
      if (std::isinf(cpu.lse[i]))
        EXPECT_EQ(gl[i], cpu.lse[i]) << r << " lse " << i;
      else
        EXPECT_NEAR(gl[i], cpu.lse[i], 1e-5) << r << " lse " << i;
    }
    for (size_t i = 0; i < go.size(); ++i)
      EXPECT_LE(std::fabs(go[i] - cpu.out[i]), 0x1p-7 * std::fabs(cpu.out[i]) + 1e-6) << r << " out " << i;
  }
}

// The device generator writes the host's pool bit for bit (both dtypes, several chunks).
TEST(GpuRef, SsuDevicePoolIsTheHostPool) {
  REQUIRE_GPU();
  for (bool bf16 : {false, true}) {
    ssu::Params p{3, 8, 2, 70, 0, 0, bf16, true, false, true, false};
    const ssu::HostProblem hp = ssu::make_problem(p, 77);
    gpu::DeviceBuffer d(hp.state.size() * (bf16 ? 2 : 4));
    gpu::Stream s;
    ssu::fill_pool_device(p, 77, d.get(), s.get());
    KGATE_CUDA(cudaStreamSynchronize(s.get()));
    gpu::DeviceBuffer h = upload_as(hp.state, bf16);
    std::vector<unsigned char> a(d.bytes()), b(d.bytes());
    d.download(a.data(), a.size());
    h.download(b.data(), b.size());
    EXPECT_TRUE(a == b) << (bf16 ? "bf16" : "fp32");
  }
}

// compare_device against compare_elements on the same data, with planted errors: a mismatch, a
// NaN, -inf matched and unmatched, a poisoned element, skipped rows; and differing_tiles finds a
// changed byte, a tile off its fill, and nothing in identical buffers.
TEST(GpuRef, DeviceCompareIsTheHostCompare) {
  REQUIRE_GPU();
  const int64_t rows = 6, per = 1000, n = rows * per;
  std::vector<double> ref(static_cast<size_t>(n));
  std::vector<float> got(static_cast<size_t>(n));
  Rng rng(3);
  for (int64_t i = 0; i < n; ++i) {
    ref[i] = rng.normal();
    got[i] = static_cast<float>(ref[i] + 1e-3 * rng.normal());
  }
  got[1234] += 0.5f;                                        // mismatch
  got[2345] = NAN;                                          // non-finite against a finite reference
  ref[3456] = -INFINITY, got[3456] = -INFINITY;             // matched -inf
  ref[4567] = -INFINITY, got[4567] = 1.f;                   // unmatched -inf
  got[5678] = poison_f32();                                 // unwritten
  const std::vector<int32_t> row_of = {0, 1, -1, 3, 4, 5};  // row 2 skipped
  gpu::DeviceBuffer dg(got.size() * 4), dr(ref.size() * 8), drows(row_of.size() * 4);
  dg.upload(got.data(), dg.bytes());
  dr.upload(ref.data(), dr.bytes());
  drows.upload(row_of.data(), drows.bytes());
  gpu::Stream s;
  KGATE_CUDA(cudaDeviceSynchronize());
  const Tolerance tol{1e-2, 1e-2};
  auto coords = [](int64_t i) { return std::to_string(i); };
  for (bool skip : {false, true}) {
    const Correctness d = gpu::compare_device({dg.get(), false, skip ? drows.as<int32_t>() : nullptr, per, true},
                                              dr.as<double>(), n, tol, coords, s.get());
    std::vector<size_t> idx;
    for (int64_t i = 0; i < n; ++i)
      if (!skip || row_of[static_cast<size_t>(i / per)] >= 0) idx.push_back(static_cast<size_t>(i));
    const Correctness h = compare_elements(
        idx.size(), [&](size_t k) { return static_cast<double>(got[idx[k]]); }, [&](size_t k) { return ref[idx[k]]; },
        [&](size_t k) { return is_poison_f32(got[idx[k]]); }, tol, [&](size_t k) { return std::to_string(idx[k]); });
    EXPECT_EQ(d.elements, h.elements) << skip;
    EXPECT_EQ(d.mismatches, h.mismatches) << skip;
    EXPECT_EQ(d.nonfinite, h.nonfinite) << skip;
    EXPECT_EQ(d.unwritten, h.unwritten) << skip;
    EXPECT_EQ(d.max_abs_err, h.max_abs_err) << skip;
    EXPECT_EQ(d.max_rel_err, h.max_rel_err) << skip;
    EXPECT_EQ(d.worst, h.worst) << skip;
    EXPECT_FALSE(d.passed);
  }
  std::vector<unsigned char> a(4096, 7), b(4096, 7);
  gpu::DeviceBuffer da(a.size()), db(b.size());
  da.upload(a.data(), a.size());
  db.upload(b.data(), b.size());
  KGATE_CUDA(cudaDeviceSynchronize());
  int64_t first = -2;
  EXPECT_EQ(gpu::differing_tiles(da.get(), db.get(), 0, 4, 1024, nullptr, &first, s.get()), 0);
  EXPECT_EQ(first, -1);
  EXPECT_EQ(gpu::differing_tiles(da.get(), nullptr, 7, 4, 1024, nullptr, &first, s.get()), 0);
  b[2 * 1024 + 5] = 8;
  db.upload(b.data(), b.size());
  KGATE_CUDA(cudaDeviceSynchronize());
  EXPECT_EQ(gpu::differing_tiles(da.get(), db.get(), 0, 4, 1024, nullptr, &first, s.get()), 1);
  EXPECT_EQ(first, 2);
  EXPECT_EQ(gpu::differing_tiles(db.get(), nullptr, 7, 4, 1024, nullptr, &first, s.get()), 1);
}

// ag_gemm's arms against the oracle, at world size 1 (a real one-rank run: the baseline's NCCL
// all-gather on a one-rank communicator) and with 4 and 3 ranks played on the GPU (the copy
// engine moves the peers' shards): a small row under the CPU oracle (odd n and k), FP16, and a
// row above it (the cuBLAS fp32 reference). The gather arm lands every peer's shard, is refused at
// world size 1, and named as an arm that writes C it fails the oracle (C stays poisoned).
TEST(Gpu, AgGemmDeviceArmsAreCorrect) {
  REQUIRE_GPU();
  Registry& reg = Registry::instance();
  struct Run {
    int world;
    const char* rows;
  };
  const Run runs[] = {{1, R"([{"id": "s", "params": {"world_size": 1, "m": 96, "n": 136, "k": 1000}},
              {"id": "h", "params": {"world_size": 1, "m": 160, "n": 256, "k": 520, "dtype": "fp16"}},
              {"id": "g", "params": {"world_size": 1, "m": 1000, "n": 512, "k": 1024}}])"},
                      {4, R"([{"id": "s", "params": {"world_size": 4, "m": 24, "n": 136, "k": 1000}},
              {"id": "g", "params": {"world_size": 4, "m": 520, "n": 256, "k": 2048, "dtype": "fp16"}}])"},
                      {3, R"([{"id": "g", "params": {"world_size": 3, "m": 700, "n": 384, "k": 1024}}])"}};
  for (const Run& run : runs) {
    CaseTable t = parse_case_table("inline.json",
                                   std::string(R"({"table": "a", "family": "ag_gemm", "rows": )") + run.rows + "}");
    auto be =
        run.world == 1 ? gpu::make_backend("events", true) : gpu::make_simulated_backend("events", true, run.world);
    for (const CaseRow& row : t.rows) {
      auto ctx = be->prepare(reg.family("ag_gemm"), row, 9);
      for (const char* arm : {"ag_gemm.baseline", "ag_gemm.overlap", "ag_gemm.floor"}) {
        const Correctness c = ctx->check(reg.impl(arm));
        EXPECT_TRUE(c.passed) << run.world << " " << row.id << " " << arm << ": " << c.worst << " " << c.note;
        EXPECT_EQ(c.elements, run.world * row.params["m"].get<int64_t>() * row.params["n"].get<int64_t>());
      }
      const Implementation& gather = reg.impl("ag_gemm.gather");
      if (run.world == 1) {
        EXPECT_NE(gather.supports(row.params), "");
        continue;
      }
      const Correctness g = ctx->check(gather);
      EXPECT_TRUE(g.passed) << run.world << " " << row.id << " gather: " << g.worst << " " << g.note;
      static const ag_gemm::gpu::Arm as_c{ag_gemm::gpu::kGatherArm.launch,
                                          ag_gemm::gpu::kGatherArm.config,
                                          ag_gemm::gpu::kGatherArm.kernels,
                                          {.writes = ag_gemm::gpu::Writes::C}};
      Implementation fake = gather;
      fake.name = "ag_gemm.test_gather_as_gemm";
      fake.arm = &as_c;
      const Correctness f = ctx->check(fake);
      EXPECT_FALSE(f.passed) << run.world << " " << row.id;
      EXPECT_GT(f.unwritten, 0) << run.world << " " << row.id;
    }
  }
}

// A simulated row's overlap arm moves the peers' shards with the copy engine (memcpy records in
// its CUPTI signature) and runs two GEMMs: the own shard's, then the three (small) others' at once.
TEST(Gpu, AgGemmSimulatedRanksUseTheCopyEngine) {
  REQUIRE_GPU();
  Registry& reg = Registry::instance();
  CaseTable t = parse_case_table("inline.json", R"({"table": "a", "family": "ag_gemm", "rows": [
    {"id": "g", "params": {"world_size": 4, "m": 256, "n": 256, "k": 1024}}]})");
  auto be = gpu::make_simulated_backend("cupti", true, 4);
  EXPECT_TRUE(be->environment()["ranks"]["simulated"].get<bool>());
  auto ctx = be->prepare(reg.family("ag_gemm"), t.rows[0], 3);
  const Implementation& ov = reg.impl("ag_gemm.overlap");
  ASSERT_TRUE(ctx->check(ov).passed);
  EXPECT_EQ(ctx->config(ov)["shard_order"], json::array({0, 1, 2, 3}));
  EXPECT_EQ(ctx->config(ov)["gemm_shards"], json::parse("[[0, 1], [1, 3]]"));
  const Sample s = ctx->time_once(ov);
  if (!s.signature) GTEST_SKIP() << "no CUPTI signature (events timer fallback)";
  int memcpys = 0;
  for (const auto& k : s.signature->kernel_names) memcpys += k == "memcpy";
  EXPECT_EQ(memcpys, 1) << "kernel names are distinct: memcpy appears once";
  EXPECT_GE(s.signature->records,
            3 + 2);  // 3 shard copies, 2 GEMMs (the own shard; 256-row shards: the 3 others in one)
}

// The ag_gemm GPU reference against the CPU reference: both dtypes, one and three ranks, odd
// shapes. Both round an fp32 (GPU) or fp64 (CPU) sum to the dtype: at most one unit apart.
TEST(GpuRef, AgGemmMatchesTheCpuReference) {
  REQUIRE_GPU();
  const ag_gemm::Params ps[] = {{1, 37, 45, 300, false}, {3, 20, 64, 513, false}, {2, 33, 40, 257, true}};
  gpu::Stream s;
  for (const ag_gemm::Params& p : ps) {
    const std::vector<double> cpu = ag_gemm::reference(ag_gemm::make_problem(p, 21));
    gpu::DeviceBuffer d(cpu.size() * 8);
    ag_gemm::reference_device(p, 21, d.as<double>(), s.get());
    std::vector<double> g(cpu.size());
    d.download(g.data(), g.size() * 8);
    const double ulp = p.fp16 ? 0x1p-10 : 0x1p-7;
    int64_t off = 0;
    for (size_t i = 0; i < g.size(); ++i) off += std::fabs(g[i] - cpu[i]) > ulp * std::fabs(cpu[i]) + 1e-6;
    EXPECT_EQ(off, 0) << p.world_size << "x" << p.m << " fp16 " << p.fp16;
    int64_t exact = 0;
    for (size_t i = 0; i < g.size(); ++i) exact += g[i] == cpu[i];
    EXPECT_GT(exact, static_cast<int64_t>(g.size() * 9 / 10));  // mostly bit-equal: the same numbers
  }
}

// The device generator writes make_problem's inputs bit for bit (both dtypes, rank 2's shard and B).
TEST(GpuRef, AgGemmDeviceInputsAreTheHostInputs) {
  REQUIRE_GPU();
  for (bool fp16 : {false, true}) {
    const ag_gemm::Params p{3, 19, 23, 41, fp16};
    const ag_gemm::HostProblem hp = ag_gemm::make_problem(p, 5);
    gpu::Stream s;
    gpu::DeviceBuffer a(hp.A[2].size() * 2), b(hp.B.size() * 2);
    ag_gemm::fill_a_device(5, 2, static_cast<int64_t>(hp.A[2].size()), fp16, a.get(), s.get());
    ag_gemm::fill_b_device(5, static_cast<int64_t>(hp.B.size()), fp16, b.get(), s.get());
    KGATE_CUDA(cudaStreamSynchronize(s.get()));
    std::vector<uint16_t> ha(hp.A[2].size()), hb(hp.B.size());
    a.download(ha.data(), ha.size() * 2);
    b.download(hb.data(), hb.size() * 2);
    auto value = [fp16](uint16_t v) {
      return fp16 ? static_cast<float>(std::bit_cast<_Float16>(v)) : bf16_bits_to_f32(v);
    };
    for (size_t i = 0; i < ha.size(); ++i) ASSERT_EQ(value(ha[i]), hp.A[2][i]) << fp16 << " A " << i;
    for (size_t i = 0; i < hb.size(); ++i) ASSERT_EQ(value(hb[i]), hp.B[i]) << fp16 << " B " << i;
  }
}

// The lens_epoch contract (kernels/sparse_mla/abi.h) of an arm that derives state from the lengths,
// on a row of `params` (FP8, one concatenated index table): lengths rewritten under the same epoch
// give the first launch's bytes (reuse engaged), under a new epoch the new lengths' result (every
// token empty: out 0, lse -inf). `launch` runs the arm on the arguments.
static void expect_lens_epoch_contract(const char* params,
                                       const std::function<void(const sparse_mla_args&, cudaStream_t)>& launch) {
  const sparse_mla::Params p = sparse_mla::Params::from_json(json::parse(params));
  const sparse_mla::HostProblem hp = sparse_mla::make_problem(p, 21);
  const sparse_mla::Reference ref = sparse_mla::reference(hp);
  const int T = static_cast<int>(p.tokens()), H = static_cast<int>(p.heads), W = static_cast<int>(p.width());
  SparseMlaOnDevice d(hp);
  gpu::DeviceBuffer &q = d.q, &swa = d.swa, &comp = d.comp, &idx = d.idx, &lens = d.lens, &sink = d.sink;
  gpu::DeviceBuffer out(size_t(T) * H * 512 * 2), lse(size_t(T) * H * 4);
  sparse_mla_args a{q.get(),
                    swa.get(),
                    comp.get(),
                    idx.as<int32_t>(),
                    idx.as<int32_t>() + 128,
                    W,
                    W,
                    lens.as<int32_t>(),
                    0,
                    sink.as<float>(),
                    out.get(),
                    lse.as<float>(),
                    T,
                    T,
                    H,
                    static_cast<int>(p.topk),
                    p.swa_rows,
                    p.compressed_rows,
                    1,
                    static_cast<int>(p.page_block),
                    static_cast<float>(hp.sm_scale),
                    /*lens_epoch*/ 7};
  gpu::Stream s;
  auto run = [&](unsigned long long epoch, std::vector<uint16_t>& ob, std::vector<float>& lb) {
    a.lens_epoch = epoch;
    const std::vector<uint16_t> po(size_t(T) * H * 512, kPoisonBf16);
    out.upload(po.data(), po.size() * 2);
    KGATE_CUDA(cudaDeviceSynchronize());
    launch(a, s.get());
    KGATE_CUDA(cudaStreamSynchronize(s.get()));
    ob.resize(po.size());
    lb.resize(size_t(T) * H);
    out.download(ob.data(), ob.size() * 2);
    lse.download(lb.data(), lb.size() * 4);
  };
  std::vector<uint16_t> o1, o2, o3;
  std::vector<float> l1, l2, l3;
  run(7, o1, l1);
  std::vector<float> of(o1.size());
  for (size_t i = 0; i < o1.size(); ++i) of[i] = bf16_bits_to_f32(o1[i]);
  const Correctness c = sparse_mla::check_outputs(hp, ref, of, l1, Tolerance{0.1, 0.1});
  ASSERT_TRUE(c.passed) << c.worst << " " << c.note;
  const std::vector<int32_t> none(hp.lens.size(), 0);
  lens.upload(none.data(), lens.bytes());
  run(7, o2, l2);
  EXPECT_EQ(o2, o1) << "same epoch: the first launch's lengths (derived state reused)";
  EXPECT_EQ(0, std::memcmp(l2.data(), l1.data(), l1.size() * 4));
  run(8, o3, l3);
  for (size_t i = 0; i < l3.size(); ++i) ASSERT_TRUE(std::isinf(l3[i]) && l3[i] < 0) << "lse " << i << " " << l3[i];
  for (size_t i = 0; i < o3.size(); ++i) ASSERT_EQ(bf16_bits_to_f32(o3[i]), 0.0f) << "out " << i;
}

// The FlashMLA export (scripts/peers/flashmla_sparse.sh; path in KGATE_FLASHMLA_EXPORT) reuses its
// scheduler metadata and split lengths within one lens_epoch and derives them again for a new one.
TEST(GpuExport, FlashMlaReusesItsSchedulerMetadataOnlyWithinALensEpoch) {
  REQUIRE_GPU();
  const char* lib = std::getenv("KGATE_FLASHMLA_EXPORT");
  if (!lib || !*lib) GTEST_SKIP() << "KGATE_FLASHMLA_EXPORT (the FlashMLA export library) not set";
  const Implementation& im =
      load_export_arm(Registry::instance(), std::string("export:") + lib + ":sparse_mla.flashmla", "sparse_mla");
  expect_lens_epoch_contract(
      R"({"batch": 6, "q_len": 1, "heads": 64, "kv_dtype": "fp8", "swa_rows": 256, "compressed_rows": 2048, "topk": 512, "invalid_pct": 10, "empty_tokens": 0, "ragged": true, "sink": true, "page_block": 64, "index_layout": "concat", "q_pad_rows": 0, "lens_offset": 0})",
      [&](const sparse_mla_args& a, cudaStream_t st) {
        sparse_mla_args b = a;
        ASSERT_NO_THROW(export_supports(im, &b));
        export_launch(im, &b, st);
      });
}

// sparse_mla.fast's length-balanced plan (fast_ws.cuh, ws_plan.hpp) on a row the rule routes to it
// (20 tokens x 2 head groups of 18 blocks, ragged): derived on the first launch of an epoch, reused
// within it, derived again for a new one; and correct over three launches of rows that split pairs
// (both dtypes, empty tokens, the hardening forms: padding rows untouched, raw lengths plus an offset).
TEST(Gpu, SparseMlaLengthBalancedPlanIsCorrectAndKeyedByTheLensEpoch) {
  REQUIRE_GPU();
  CaseTable t = parse_case_table("inline.json", R"({"table": "p", "family": "sparse_mla", "rows": [
    {"id": "fp8-h128-ragged-1152", "params": {"batch": 4, "q_len": 5, "heads": 128, "kv_dtype": "fp8", "swa_rows": 512,
     "compressed_rows": 1024, "topk": 1024, "ragged": true, "empty_tokens": 2}},
    {"id": "fp8-h64-uniform-640", "params": {"batch": 8, "q_len": 5, "heads": 64, "kv_dtype": "fp8", "swa_rows": 1024,
     "compressed_rows": 16384, "topk": 512, "sink": true}},
    {"id": "bf16-h128-hardening", "params": {"batch": 3, "q_len": 5, "heads": 128, "kv_dtype": "bf16", "swa_rows": 384,
     "compressed_rows": 1024, "topk": 1024, "ragged": true, "index_layout": "concat", "q_pad_rows": 3, "lens_offset": 7,
     "sink": true}}]})");
  expect_ws_launches_correct(t, "sparse_mla_ws_plan_kernel");
  if (IsSkipped()) return;
  expect_lens_epoch_contract(
      R"({"batch": 4, "q_len": 5, "heads": 128, "kv_dtype": "fp8", "swa_rows": 512, "compressed_rows": 1024, "topk": 1024, "invalid_pct": 10, "empty_tokens": 0, "ragged": true, "sink": true, "page_block": 64, "index_layout": "concat", "q_pad_rows": 0, "lens_offset": 0})",
      [](const sparse_mla_args& a, cudaStream_t st) { sparse_mla::gpu::launch_fast(a, st); });
}

// The timed-call proof's device side (RowContext's input sets): every set passes its own oracle;
// an output made on set 0 is refused once set 1 is loaded (a stale or memoized output), and a
// verified call the arm never made is refused (outputs poisoned, the pool restored). On the CPU
// oracle's rows and the GPU oracle's.
static void expect_sets_proven(const char* family, const char* arm, const char* table) {
  Registry& reg = Registry::instance();
  CaseTable t = parse_case_table("inline.json", table);
  auto be = gpu::make_backend("events", true);
  const Implementation& impl = reg.impl(arm);
  for (const CaseRow& row : t.rows) {
    auto ctx = be->prepare(reg.family(family), row, 5);
    ctx->add_input_sets({11, 12});
    ASSERT_EQ(ctx->input_sets(), 3) << row.id;
    for (int k : {0, 1, 2, 0}) {
      ctx->load_input(k);
      const Correctness c = ctx->check(impl);
      EXPECT_TRUE(c.passed) << row.id << " set " << k << ": " << c.worst << " " << c.note;
    }
    ctx->load_input(0);
    ctx->prepare_verified(impl);
    ctx->warm_call_us(impl);
    ctx->load_input(1);
    EXPECT_FALSE(ctx->verify(impl).passed) << row.id << ": set 0's output accepted for set 1";
    ctx->prepare_verified(impl);
    EXPECT_FALSE(ctx->verify(impl).passed) << row.id << ": a call never made accepted";
  }
}

TEST(GpuProof, SsuInputSetsAreProvenEach) {
  REQUIRE_GPU();
  expect_sets_proven("ssu", "ssu.fast", R"({"table": "p", "family": "ssu", "rows": [
    {"id": "small", "params": {"batch": 4, "nheads": 8, "ngroups": 2, "pool_slots": 8, "state_dtype": "bf16", "has_z": true}},
    {"id": "big", "params": {"batch": 40, "nheads": 64, "ngroups": 4, "pool_slots": 48, "state_dtype": "bf16", "pad_slots": 3}}]})");
}

TEST(GpuProof, SparseMlaInputSetsAreProvenEach) {
  REQUIRE_GPU();
  expect_sets_proven("sparse_mla", "sparse_mla.baseline", R"({"table": "p", "family": "sparse_mla", "rows": [
    {"id": "small", "params": {"batch": 2, "q_len": 3, "heads": 16, "kv_dtype": "fp8", "swa_rows": 256, "compressed_rows": 512,
     "topk": 64, "ragged": true, "sink": true, "q_pad_rows": 3, "index_layout": "concat", "lens_offset": -4}},
    {"id": "big", "params": {"batch": 8, "q_len": 1, "heads": 128, "kv_dtype": "fp8", "swa_rows": 1024, "compressed_rows": 4096,
     "topk": 512}}]})");
}
