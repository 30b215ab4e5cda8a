// list, env, keygen: small informational subcommands.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>

#include "harness/cli/common.hpp"
#include "harness/core/artifacts.hpp"
#include "harness/core/cases.hpp"
#include "harness/core/crypto.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/text.hpp"
#include "harness/export/loader.hpp"
#ifdef KGATE_HAVE_CUDA
#include "harness/gpu/gpu.hpp"
#endif

namespace kgate::cli {

namespace {

json families_json(const Registry& reg) {
  json families = json::array();
  for (const auto& f : reg.families()) {
    json params = json::array();
    for (const auto& p : f.params)
      params.push_back({{"name", p.name},
                        {"help", p.help},
                        {"required", p.required},
                        {"default", p.required ? json(nullptr) : p.fallback}});
    families.push_back({{"name", f.name}, {"summary", f.summary}, {"params", params}});
  }
  return families;
}

// Every registered implementation, or those named in `only`.
json implementations_json(const Registry& reg, const std::set<std::string>* only = nullptr) {
  json impls = json::array();
  for (const auto& i : reg.impls()) {
    if (only && !only->count(i.name)) continue;
    json j = {{"name", i.name},
              {"family", i.family},
              {"backend", i.backend},
              {"role", i.role},
              {"archs", i.archs},
              {"kernel_names", i.kernel_names},
              {"description", i.description},
              {"sources", i.sources}};  // the tree files its receipts name (compiler dependency output)
    if (i.library) j["library"] = {{"path", i.library->path}, {"sha256", i.library->sha256}, {"size", i.library->size}};
    impls.push_back(std::move(j));
  }
  return impls;
}

// Every table under dir; one that does not load is listed with its error, not skipped.
json case_tables_json(const std::string& dir) {
  json tables = json::array();
  for (const auto& f : find_case_tables(dir)) {
    try {
      CaseTable t = load_case_table(f);
      tables.push_back({{"path", portable_path(f)},
                        {"table", t.name},
                        {"family", t.family},
                        {"rows", t.rows.size()},
                        {"description", t.description}});
    } catch (const InputError& e) {
      tables.push_back({{"path", portable_path(f)}, {"error", e.what()}});
    }
  }
  return tables;
}

// A listed string as the terminal shows it: a case table's or an export's text escaped.
std::string shown(const json& j) { return terminal(j.get<std::string>()); }

void print_implementations(const json& impls) {
  for (const auto& i : impls) {
    const std::string names = join(i["kernel_names"].get<std::vector<std::string>>(), ",");
    const std::string archs = join(i["archs"].get<std::vector<std::string>>(), ",");
    std::printf("  %-28s %-5s %-20s %-9s %s%s\n", shown(i["name"]).c_str(), shown(i["backend"]).c_str(),
                terminal(archs).c_str(), shown(i["role"]).c_str(), shown(i["description"]).c_str(),
                names.empty() ? "" : (" [kernels: " + terminal(names) + "]").c_str());
  }
}

// The arms a --export value names: a library (PATH or export:PATH), or one of its arms
// (export:PATH:NAME), loaded and registered.
std::vector<std::string> export_arms(Registry& reg, const std::string& value) {
  if (!is_export_name(value)) return load_export_library(reg, value);
  const std::string rest = value.substr(std::string(kExportPrefix).size());
  std::error_code ec;
  if (std::filesystem::is_regular_file(rest, ec)) return load_export_library(reg, rest);
  return {load_export_arm(reg, value).name};
}

void print_listing(const json& doc) {
  std::printf("families:\n");
  for (const auto& f : doc["families"]) {
    std::printf("  %-12s %s\n", shown(f["name"]).c_str(), shown(f["summary"]).c_str());
    for (const auto& p : f["params"])
      std::printf("      %-16s %s%s\n", shown(p["name"]).c_str(), shown(p["help"]).c_str(),
                  p["required"] ? "" : (" (default " + terminal(p["default"].dump()) + ")").c_str());
  }
  std::printf("implementations:\n");
  print_implementations(doc["implementations"]);
  std::printf("case tables (%s):\n", shown(doc["case_tables_dir"]).c_str());
  for (const auto& t : doc["case_tables"]) {
    if (t.contains("error"))
      std::printf("  %-40s INVALID: %s\n", shown(t["path"]).c_str(), shown(t["error"]).c_str());
    else
      std::printf("  %-40s %-10s %3zu rows  %s\n", shown(t["path"]).c_str(), shown(t["family"]).c_str(),
                  t["rows"].get<size_t>(), shown(t["description"]).c_str());
  }
  std::printf("this machine: %s\n", shown(doc["machine"]["description"]).c_str());
}

}  // namespace

void add_list(CLI::App& app, Action& action) {
  struct Opts {
    std::string dir;
    std::vector<std::string> exports;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  auto* sc =
      app.add_subcommand("list",
                         "Families, implementations (with backend, architectures, role, kernel names), case tables, "
                         "and this machine's architecture.");
  sc->add_option("--cases-dir", o->dir, "where to look for case tables (default: <source>/cases)");
  sc->add_option("--export", o->exports,
                 "list only the arms of this export library (PATH, export:PATH, or one arm: export:PATH:NAME; "
                 "repeatable)");
  sc->add_flag("--json", o->json, "one JSON document on stdout");
  sc->footer(help_footer("0 listed, 2 usage error or an export library that does not load.",
                         "  kgate list\n  kgate list --json | jq '.implementations[].name'\n"
                         "  kgate list --export build/libmy_ssu.so\n"
                         "  kgate list --export export:build/libmy_ssu.so:ssu.mine\n"));
  sc->callback([o, &action] {
    action = [o]() -> int {
      Registry& reg = Registry::instance();
      if (!o->exports.empty()) {
        std::set<std::string> arms;
        for (const auto& e : o->exports)
          for (auto& name : export_arms(reg, e)) arms.insert(std::move(name));
        const json doc = {{"implementations", implementations_json(reg, &arms)}};
        if (o->json)
          print_json(doc);
        else
          print_implementations(doc["implementations"]);
        return kExitOk;
      }
      const std::string dir = o->dir.empty() ? cases_dir() : o->dir;
      std::string why;
      const bool gpu = gpu_available(&why);
      std::string arch = "CPU backend only: " + why;
#ifdef KGATE_HAVE_CUDA
      if (gpu) arch = "GPU backend, " + gpu::describe_device();
#endif
      const json doc = {{"families", families_json(reg)},
                        {"implementations", implementations_json(reg)},
                        {"case_tables_dir", dir},
                        {"case_tables", case_tables_json(dir)},
                        {"machine", {{"backend", gpu ? "cuda" : "cpu"}, {"description", arch}}}};
      if (o->json)
        print_json(doc);
      else
        print_listing(doc);
      return kExitOk;
    };
  });
}

void add_env(CLI::App& app, Action& action) {
  auto backend = std::make_shared<std::string>("auto");
  auto* sc = app.add_subcommand("env", "This machine's identity as recorded in receipts (JSON on stdout).");
  sc->add_option("--backend", *backend, "auto | cpu | cuda")->capture_default_str()->check(CLI::IsMember(kBackends));
  sc->footer(help_footer("0 printed, 2 usage error, 3 device error (--backend cuda without a usable GPU).",
                         "  kgate env\n  kgate env --backend cpu | jq .kgate\n"));
  sc->callback([backend, &action] {
    action = [backend]() -> int {
      auto b = select_backend(*backend, "cupti", false, true);
      json e = b->environment();
      e["kgate"] = {
          {"version", KGATE_VERSION}, {"git_commit", built_git_commit()}, {"binary_sha256", self_binary_sha256()}};
      std::printf("%s\n", e.dump(2).c_str());
      return kExitOk;
    };
  });
}

void add_keygen(CLI::App& app, Action& action) {
  auto prefix = std::make_shared<std::string>();
  auto* sc =
      app.add_subcommand("keygen", "Make an Ed25519 key pair for --sign / audit --pubkey: PREFIX.key, PREFIX.pub.");
  sc->add_option("prefix", *prefix, "path prefix")->required();
  sc->footer(help_footer(
      "0 written, 2 usage error or PREFIX.key exists (never overwritten).",
      "  kgate keygen ci/kgate\n  kgate run ... --sign ci/kgate.key && kgate audit R --pubkey ci/kgate.pub\n"));
  sc->callback([prefix, &action] {
    action = [prefix]() -> int {
      if (std::filesystem::exists(*prefix + ".key")) throw InputError(*prefix + ".key exists; not overwriting a key");
      ed25519_keygen(*prefix + ".key", *prefix + ".pub");
      std::printf("wrote %s.key (private) and %s.pub (public)\n", prefix->c_str(), prefix->c_str());
      return kExitOk;
    };
  });
}

}  // namespace kgate::cli
