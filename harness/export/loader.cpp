#include "harness/export/loader.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>

#include "harness/core/crypto.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/json_io.hpp"
#include "harness/core/suggest.hpp"
#include "harness/core/text.hpp"
#include "harness/export/kgate_export.h"

namespace kgate {
namespace {

// Bounds on what a table may declare: a corrupt table fails with a message, not a huge loop.
constexpr size_t kMaxArms = 1024, kMaxListed = 256, kMaxNameBytes = 256;
constexpr size_t kMessageBytes = 512;

struct Loaded {
  std::vector<std::string> arms;  // registered names, table order
  std::string family;
  std::string sha256;
};

// Libraries loaded by this process, by path as given; never unloaded (the registry points into them).
std::map<std::string, Loaded>& loaded() {
  static std::map<std::string, Loaded> m;
  return m;
}
std::mutex& loader_mutex() {
  static std::mutex m;
  return m;
}

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw InputError("export library " + quoted(path) + ": " + what);
}

// A string the table gives: non-null, bounded, printable.
std::string table_string(const std::string& path, const char* s, const std::string& what) {
  if (!s) fail(path, what + " is NULL");
  const size_t n = strnlen(s, kMaxNameBytes + 1);
  if (n == 0) fail(path, what + " is empty");
  if (n > kMaxNameBytes) fail(path, what + " is longer than " + std::to_string(kMaxNameBytes) + " bytes");
  return std::string(s, n);
}

std::vector<std::string> table_list(const std::string& path, const char* const* v, size_t n, const std::string& what) {
  if (n > kMaxListed)
    fail(path, what + ": " + std::to_string(n) + " entries (at most " + std::to_string(kMaxListed) + ")");
  if (n && !v) fail(path, what + " is NULL with a count of " + std::to_string(n));
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) out.push_back(table_string(path, v[i], what + "[" + std::to_string(i) + "]"));
  return out;
}

// The family must be registered and take export arms; `expected`, when given, must be it.
const Family& check_family(const Registry& r, const std::string& path, const std::string& family,
                           const std::string& expected) {
  if (!expected.empty() && family != expected)
    fail(path, "family " + quoted(family) + ", expected " + quoted(expected));
  const Family* f = r.find_family(family);
  if (!f) {
    std::vector<std::string> names;
    for (const auto& x : r.families()) names.push_back(x.name);
    fail(path, "family " + quoted(family) + " is not a family of this kgate" + did_you_mean(family, names));
  }
  if (f->export_sources.empty()) fail(path, "family " + quoted(family) + " takes no export arms yet");
  return *f;
}

void check_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) fail(path, "no such file");
  if (!std::filesystem::is_regular_file(path, ec)) fail(path, "not a regular file");
}

const kgate_export_table_t* open_table(const std::string& path) {
  // A path without a slash would make dlopen search the library path: name the file itself.
  const std::string open_as = path.find('/') == std::string::npos ? "./" + path : path;
  void* h = ::dlopen(open_as.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = ::dlerror();
    fail(path, std::string("cannot load: ") + (e ? printable(e) : "dlopen failed"));
  }
  ::dlerror();
  void* sym = ::dlsym(h, KGATE_EXPORT_ENTRY);
  if (!sym) fail(path, "missing symbol " KGATE_EXPORT_ENTRY " (not a kgate export library)");
  auto entry = reinterpret_cast<kgate_export_table_fn>(sym);
  const kgate_export_table_t* t = entry();
  if (!t) fail(path, KGATE_EXPORT_ENTRY "() returned NULL");
  if (t->abi_version != KGATE_EXPORT_ABI_VERSION)
    fail(path,
         "ABI version " + std::to_string(t->abi_version) + ", expected " + std::to_string(KGATE_EXPORT_ABI_VERSION));
  return t;
}

// The name of the build manifest beside the library, when one describes these very bytes: a kgate
// export's LIB.json ("family") or a peer build's build.json ("peer"), its recorded sha256 equal to
// the library's. "" otherwise: a manifest about other bytes names nothing.
std::string manifest_name(const std::string& path, const std::string& sha) {
  namespace fs = std::filesystem;
  const fs::path lib(path);
  for (const fs::path& m : {fs::path(path + ".json"), lib.parent_path() / "build.json"}) {
    std::error_code ec;
    if (!fs::is_regular_file(m, ec) || fs::file_size(m, ec) > (1u << 20)) continue;
    try {
      const json j = parse_json_bounded(read_file(m.string()), m.string());
      const std::string recorded = j.contains("library") && j["library"].is_object()
                                       ? j["library"].value("sha256", std::string())
                                       : j.value("sha256", j.value("library_sha256", std::string()));
      if (recorded != sha) continue;
      if (j.contains("peer") && j["peer"].is_string()) return j["peer"].get<std::string>();
      if (j.contains("family") && j["family"].is_string()) return "kgate_export_" + j["family"].get<std::string>();
    } catch (const std::exception&) {
      continue;  // not a manifest
    }
  }
  return "";
}

std::string message(const char* buf, const char* fallback) {
  const size_t n = strnlen(buf, kMessageBytes);
  return n ? printable(std::string_view(buf, n)) : fallback;
}

}  // namespace

bool is_export_name(const std::string& arm) { return arm.rfind(kExportPrefix, 0) == 0; }

std::string portable_export_name(const std::string& arm) {
  if (!is_export_name(arm)) return arm;
  const std::string rest = arm.substr(std::string(kExportPrefix).size());
  const size_t colon = rest.rfind(':');
  if (colon == std::string::npos) return arm;
  return kExportPrefix + std::filesystem::path(rest.substr(0, colon)).filename().string() + rest.substr(colon);
}

std::vector<std::string> load_export_library(Registry& r, const std::string& path, const std::string& expected_family) {
  std::lock_guard<std::mutex> lock(loader_mutex());
  if (auto it = loaded().find(path); it != loaded().end()) {
    check_family(r, path, it->second.family, expected_family);
    return it->second.arms;
  }
  // Hashed before it is opened: the digest names the bytes this process maps.
  check_file(path);
  const std::string sha = sha256_file_hex(path);
  const std::string file = std::filesystem::path(path).filename().string();
  for (const auto& [other, o] : loaded())
    if (std::filesystem::path(other).filename() == file) {
      if (o.sha256 == sha) {  // the same bytes by another path
        check_family(r, path, o.family, expected_family);
        return o.arms;
      }
      fail(path, "another library of the same file name is loaded (" + quoted(other) +
                     "): receipts name an export by its file name, so rename one");
    }
  const kgate_export_table_t* t = open_table(path);
  const std::string family = table_string(path, t->family, "family");
  const Family& fam = check_family(r, path, family, expected_family);
  if (t->arm_count == 0 || !t->arms) fail(path, "declares no arms");
  if (t->arm_count > kMaxArms)
    fail(path, std::to_string(t->arm_count) + " arms (at most " + std::to_string(kMaxArms) + ")");
  std::error_code ec;
  const auto size = static_cast<uint64_t>(std::filesystem::file_size(path, ec));
  const std::string manifest = manifest_name(path, sha);
  Loaded l{{}, family, sha};
  std::set<std::string> seen;
  std::vector<Implementation> arms;
  for (size_t i = 0; i < t->arm_count; ++i) {
    const kgate_export_arm_t& a = t->arms[i];
    const std::string at = "arm " + std::to_string(i);
    const std::string name = table_string(path, a.name, at + " name");
    if (name.find(':') != std::string::npos) fail(path, at + " name " + quoted(name) + " contains ':'");
    if (!seen.insert(name).second) fail(path, "arm " + quoted(name) + " declared twice");
    if (!a.launch) fail(path, "arm " + quoted(name) + ": launch is NULL");
    Implementation im;
    im.name = kExportPrefix + file + ":" + name;
    im.family = family;
    im.archs = table_list(path, a.archs, a.arch_count, "arm " + quoted(name) + " archs");
    if (im.archs.empty()) fail(path, "arm " + quoted(name) + " declares no archs");
    // Host code (host pointers, no stream) is a cpu arm: a family whose CPU context runs exports
    // (Family::host_exports) takes it; any other family's cpu run refuses it before opening it.
    const bool host = im.archs == std::vector<std::string>{"host"};
    if (!host && std::find(im.archs.begin(), im.archs.end(), "host") != im.archs.end())
      fail(path, "arm " + quoted(name) + ": archs name \"host\" beside device architectures (one or the other)");
    im.backend = host ? "cpu" : "cuda";
    im.role = "export";
    im.kernel_names = table_list(path, a.kernel_names, a.kernel_count, "arm " + quoted(name) + " kernel_names");
    im.sources = fam.export_sources;
    im.description = (a.description ? printable(std::string_view(a.description, strnlen(a.description, kMaxNameBytes)))
                                    : std::string("export arm")) +
                     " (" + file + ", sha256 " + sha.substr(0, 12) + ")";
    im.exported = &a;
    im.library = ExportLibrary{path, sha, size, name, file, manifest};
    arms.push_back(std::move(im));
  }
  for (auto& im : arms) {
    l.arms.push_back(im.name);
    if (!r.find_impl(im.name)) r.add(std::move(im));
  }
  return loaded().emplace(path, std::move(l)).first->second.arms;
}

const Implementation& load_export_arm(Registry& r, const std::string& arm, const std::string& expected_family) {
  const std::string rest = arm.substr(std::string(kExportPrefix).size());
  const size_t colon = rest.rfind(':');
  if (!is_export_name(arm) || colon == std::string::npos || colon == 0 || colon + 1 == rest.size())
    throw InputError("export arm " + quoted(arm) + ": expected export:PATH:NAME");
  const std::string path = rest.substr(0, colon), name = rest.substr(colon + 1);
  const std::string portable = portable_export_name(arm);
  if (const Implementation* im = r.find_impl(portable); im && im->library) {
    // Named again, by its portable name or by a path: the same bytes, or an error.
    std::error_code ec;
    if (path != im->library->file && path != im->library->path &&
        (!std::filesystem::is_regular_file(path, ec) || sha256_file_hex(path) != im->library->sha256))
      fail(path, "another library named " + quoted(im->library->file) + " is loaded from " + quoted(im->library->path));
    check_family(r, im->library->path, im->family, expected_family);
    return *im;
  }
  load_export_library(r, path, expected_family);
  if (const Implementation* im = r.find_impl(portable)) return *im;
  std::vector<std::string> names;
  for (const auto& n : loaded().at(path).arms) names.push_back(n.substr(n.rfind(':') + 1));
  fail(path, "no arm " + quoted(name) + " in it (arms: " + join(names, ", ") + ")" + did_you_mean(name, names));
}

void export_supports(const Implementation& impl, const void* args) {
  if (const std::string why = export_refusal(impl, args); !why.empty()) throw InputError(impl.name + ": " + why);
}

std::string export_refusal(const Implementation& impl, const void* args) {
  if (!impl.exported || !impl.exported->supports) return "";
  char why[kMessageBytes] = {};
  if (impl.exported->supports(args, why, sizeof why) == 0) return "";
  return message(why, "not supported (the library gave no reason)");
}

void export_launch(const Implementation& impl, const void* args, void* stream) {
  char err[kMessageBytes] = {};
  const int rc = impl.exported->launch(args, stream, err, sizeof err);
  if (rc != 0)
    throw DeviceError(impl.name + ": launch returned " + std::to_string(rc) + ": " + message(err, "no message"));
}

}  // namespace kgate
