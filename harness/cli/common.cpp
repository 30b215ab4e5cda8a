#include "harness/cli/common.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include "harness/core/artifacts.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/policy.hpp"
#include "harness/core/suggest.hpp"
#include "harness/core/text.hpp"
#include "harness/export/loader.hpp"
#ifdef KGATE_HAVE_CUDA
#include "harness/gpu/gpu.hpp"
#endif

namespace kgate::cli {

namespace {
std::string& data_dir_flag() {
  static std::string dir;
  return dir;
}
}  // namespace

void set_data_dir(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(std::filesystem::path(dir) / "cases", ec))
    throw InputError("--data-dir " + quoted(dir) + ": no cases/ folder in it (kgate's data: an installed kgate's " +
                     "<prefix>/share/kgate, or a kgate source tree)");
  data_dir_flag() = dir;
}

std::string data_root() {
  namespace fs = std::filesystem;
  if (!data_dir_flag().empty()) return data_dir_flag();
  if (const char* e = std::getenv("KGATE_DATA_DIR"); e && *e) return e;
  static const std::string found = [] {
    std::error_code ec;
    const fs::path bin = fs::path(self_binary_path()).parent_path();
    if (bin.empty()) return std::string(".");
    if (fs::is_regular_file(bin.parent_path() / "share/kgate/cases/suites.json", ec))
      return (bin.parent_path() / "share/kgate").string();
    for (fs::path d = bin; !d.empty(); d = d.parent_path()) {
      if (fs::is_regular_file(d / "cases/suites.json", ec)) return d.string();
      if (d == d.parent_path()) break;
    }
    return std::string(".");
  }();
  return found;
}

std::string portable_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path abs = fs::weakly_canonical(fs::absolute(path), ec);
  fs::path root = fs::weakly_canonical(data_root(), ec);
  auto rel = abs.lexically_relative(root);
  if (!rel.empty() && *rel.begin() != "..") return rel.string();
  return path;
}

std::string cases_dir() { return data_root() + "/cases"; }

void portable_by_baseline(Policy& p) {
  std::map<std::string, GateSet> by_baseline;
  for (auto& [name, g] : p.by_baseline) by_baseline[portable_export_name(name)] = std::move(g);
  p.by_baseline = std::move(by_baseline);
}

std::string help_footer(const std::string& exit_codes, const std::string& examples) {
  return "Exit codes: " + exit_codes + "\nExamples:\n" + examples;
}

void print_json(const json& j) { std::printf("%s\n", j.dump(2).c_str()); }

void emit_text(const std::string& text, const std::string& out) {
  if (out.empty())
    std::fputs(text.c_str(), stdout);
  else
    write_file_atomic(out, text);
}

bool gpu_available(std::string* why) {
#ifdef KGATE_HAVE_CUDA
  return gpu::device_present(why);
#else
  if (why) *why = "kgate was built without CUDA";
  return false;
#endif
}

std::string backend_name_for(const std::string& which, bool isolate) {
  if (which == "cpu" || which == "cuda") return which;
  if (which != "auto") throw InputError("--backend: " + quoted(which) + " is not auto|cpu|cuda");
  if (isolate) return std::filesystem::exists("/dev/nvidiactl") ? "cuda" : "cpu";
  return gpu_available(nullptr) ? "cuda" : "cpu";
}

std::unique_ptr<Backend> select_backend(const std::string& which, const std::string& timer, bool warm, bool announce,
                                        int simulate_ranks) {
  std::string why;
  if (which == "cpu") return make_cpu_backend();
  bool have = gpu_available(&why);
  if (which == "cuda" && !have) throw DeviceError("--backend cuda: no usable GPU (" + why + ")");
  if (which != "auto" && which != "cuda") throw InputError("--backend: '" + which + "' is not auto|cpu|cuda");
  if (!have) {
    if (announce) std::fprintf(stderr, "kgate: no GPU (%s): using the CPU backend (host timer)\n", why.c_str());
    return make_cpu_backend();
  }
#ifdef KGATE_HAVE_CUDA
  if (simulate_ranks) return gpu::make_simulated_backend(timer, warm, simulate_ranks);
  return gpu::make_backend(timer, warm);
#else
  (void)simulate_ranks;
  (void)timer;
  (void)warm;
  return make_cpu_backend();
#endif
}

}  // namespace kgate::cli
