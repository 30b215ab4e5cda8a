#include "harness/run/cpu_backend.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <memory>
#include <thread>

#include "harness/core/compare.hpp"
#include "harness/core/errors.hpp"

namespace kgate {

Correctness compare_outputs(const std::vector<double>& out, const std::vector<double>& ref,
                            const std::vector<bool>& unwritten, const Tolerance& tol,
                            const std::function<std::string(size_t)>& coords) {
  return compare_elements(
      out.size(), [&](size_t i) { return out[i]; }, [&](size_t i) { return ref[i]; },
      [&](size_t i) { return !unwritten.empty() && unwritten[i]; }, tol, coords);
}

void merge_check(Correctness& into, const Correctness& o, const std::string& what) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s%s: max_abs %.3g, mismatches %lld%s", into.note.empty() ? "" : "; ", what.c_str(),
                o.max_abs_err, static_cast<long long>(o.mismatches + o.nonfinite + o.unwritten),
                o.note.empty() ? "" : (" (" + o.note + ")").c_str());
  into.note += buf;
  if (o.max_abs_err > into.max_abs_err && o.mismatches + o.nonfinite > 0 && into.mismatches + into.nonfinite == 0) {
    into.worst = what + o.worst;
    into.worst_out = o.worst_out;
    into.worst_ref = o.worst_ref;
  }
  into.max_abs_err = std::max(into.max_abs_err, o.max_abs_err);
  into.max_rel_err = std::max(into.max_rel_err, o.max_rel_err);
  into.elements += o.elements;
  into.mismatches += o.mismatches;
  into.nonfinite += o.nonfinite;
  into.unwritten += o.unwritten;
  into.passed = into.passed && o.passed;
}

json cpu_peaks() {
  // Measured once per process (the first environment built), then reused: a receipt records
  // one number per process, and rows never pay for it.
  static const json peaks = [] {
    constexpr size_t kBytes = size_t{256} << 20;
    constexpr int kReps = 5;
    std::unique_ptr<char[]> src(new char[kBytes]), dst(new char[kBytes]);
    // Touch every page of both buffers first (first-touch faults are not bandwidth), with a
    // non-zero pattern.
    std::memset(src.get(), 0xA5, kBytes);
    std::memset(dst.get(), 0x5A, kBytes);
    double best_us = 0;
    for (int i = 0; i < kReps; ++i) {
      const double us = host_time_us([&] {
        std::memcpy(dst.get(), src.get(), kBytes);
        // The copy's result is never read: keep the compiler from dropping it.
        asm volatile("" : : "r"(dst.get()) : "memory");
      });
      if (i == 0 || us < best_us) best_us = us;
    }
    return json{{"copy_bytes_per_s", best_us > 0 ? json(2.0 * kBytes / (best_us * 1e-6)) : json(nullptr)},
                {"gemm_bf16_flops_per_s", nullptr},
                {"copy_method",
                 "memcpy of a 256 MiB host buffer (pages touched first), best of 5; "
                 "rate = 2 x 256 MiB (read + write) / time"},
                {"gemm_method", "none on the CPU backend"}};
  }();
  return peaks;
}

namespace {

class CpuBackend final : public Backend {
 public:
  std::string name() const override { return "cpu"; }
  std::string timer() const override { return "host"; }
  std::string arch() const override { return "host"; }
  json environment() const override {
    json e;
    std::string model = "unknown";
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("model name", 0) == 0) {
        model = line.substr(line.find(':') + 2);
        break;
      }
    utsname u{};
    uname(&u);
    e["backend"] = "cpu";
    e["cpu"] = model;
    e["logical_cpus"] = std::thread::hardware_concurrency();
    e["os"] = std::string(u.sysname) + " " + u.release + " " + u.machine;
    e["compiler"] = __VERSION__;
    e["gpus"] = json::array();
    e["peaks"] = g_measure_peaks ? cpu_peaks() : unmeasured_peaks();
    return e;
  }
  json protocol() const override {
    return json{{"cold_l2", false},
                {"flush_bytes", 0},
                {"launch", "direct"},
                {"note", "CPU backend: host steady_clock around each call; caches are not flushed"}};
  }
  std::unique_ptr<RowContext> prepare(const Family& fam, const CaseRow& row, uint64_t seed) override {
    if (!fam.make_cpu_context) throw InputError("family '" + fam.name + "' has no CPU context");
    return fam.make_cpu_context(row, seed);
  }
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() {
  if (g_launch_mode != "direct")
    throw InputError("--launch " + g_launch_mode + ": the CPU backend launches every call directly (no CUDA graphs)");
  return std::make_unique<CpuBackend>();
}

}  // namespace kgate
