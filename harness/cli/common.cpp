#include "harness/cli/common.hpp"

#include <cstdio>
#include <filesystem>

#include "harness/core/errors.hpp"
#ifdef KGATE_HAVE_CUDA
#include "harness/gpu/gpu.hpp"
#endif

namespace kgate::cli {

std::string source_root() {
  if (const char* e = std::getenv("KGATE_SOURCE_DIR")) return e;
  return KGATE_SOURCE_DIR;
}

std::string portable_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path abs = fs::weakly_canonical(fs::absolute(path), ec);
  fs::path root = fs::weakly_canonical(source_root(), ec);
  auto rel = abs.lexically_relative(root);
  if (!rel.empty() && *rel.begin() != "..") return rel.string();
  return path;
}

bool gpu_available(std::string* why) {
#ifdef KGATE_HAVE_CUDA
  return gpu::device_present(why);
#else
  if (why) *why = "kgate was built without CUDA";
  return false;
#endif
}

std::unique_ptr<Backend> select_backend(const std::string& which, const std::string& timer, bool warm,
                                        bool announce) {
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
  return gpu::make_backend(timer, warm);
#else
  (void)timer;
  (void)warm;
  return make_cpu_backend();
#endif
}

}  // namespace kgate::cli
