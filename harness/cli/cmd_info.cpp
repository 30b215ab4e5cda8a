// list, env, keygen: small informational subcommands.
#include <cstdio>
#include <filesystem>

#include "harness/cli/common.hpp"
#include "harness/core/artifacts.hpp"
#include "harness/core/cases.hpp"
#include "harness/core/crypto.hpp"
#include "harness/core/errors.hpp"
#ifdef KGATE_HAVE_CUDA
#include "harness/gpu/gpu.hpp"
#endif

namespace kgate::cli {

void add_list(CLI::App& app, Action& action) {
  auto dir = std::make_shared<std::string>();
  auto* sc = app.add_subcommand("list", "Families, implementations (with backend, role, kernel names), case tables, "
                                        "and this machine's architecture.");
  sc->add_option("--cases-dir", *dir, "where to look for case tables (default: <source>/cases)");
  sc->callback([dir, &action] {
    action = [dir]() -> int {
      Registry& reg = Registry::instance();
      std::printf("families:\n");
      for (const auto& f : reg.families()) {
        std::printf("  %-12s %s\n", f.name.c_str(), f.summary.c_str());
        for (const auto& p : f.params)
          std::printf("      %-16s %s%s\n", p.name.c_str(), p.help.c_str(),
                      p.required ? "" : (" (default " + p.fallback.dump() + ")").c_str());
      }
      std::printf("implementations:\n");
      for (const auto& i : reg.impls()) {
        std::string names;
        for (const auto& n : i.kernel_names) names += (names.empty() ? "" : ",") + n;
        std::printf("  %-28s %-5s %-9s %s%s\n", i.name.c_str(), i.backend.c_str(), i.role.c_str(), i.description.c_str(),
                    names.empty() ? "" : (" [kernels: " + names + "]").c_str());
      }
      std::string d = dir->empty() ? source_root() + "/cases" : *dir;
      std::printf("case tables (%s):\n", d.c_str());
      if (std::filesystem::is_directory(d)) {
        std::vector<std::string> files;
        for (const auto& e : std::filesystem::recursive_directory_iterator(d))
          if (e.path().extension() == ".json" && e.path().filename() != "suites.json" &&
              e.path().parent_path().filename() != "policies")
            files.push_back(e.path().string());
        std::sort(files.begin(), files.end());
        for (const auto& f : files) {
          try {
            CaseTable t = load_case_table(f);
            std::printf("  %-40s %-10s %3zu rows  %s\n", portable_path(f).c_str(), t.family.c_str(), t.rows.size(),
                        t.description.c_str());
          } catch (const InputError& e) {
            std::printf("  %-40s INVALID: %s\n", f.c_str(), e.what());
          }
        }
      }
      std::string why;
      bool gpu = gpu_available(&why);
      std::string arch = "CPU backend only: " + why;
#ifdef KGATE_HAVE_CUDA
      if (gpu) arch = "GPU backend, " + gpu::describe_device();
#endif
      std::printf("this machine: %s\n", arch.c_str());
      return kExitOk;
    };
  });
}

void add_env(CLI::App& app, Action& action) {
  auto backend = std::make_shared<std::string>("auto");
  auto* sc = app.add_subcommand("env", "This machine's identity as recorded in receipts (JSON).");
  sc->add_option("--backend", *backend, "auto | cpu | cuda")->capture_default_str();
  sc->callback([backend, &action] {
    action = [backend]() -> int {
      auto b = select_backend(*backend, "cupti", false, true);
      json e = b->environment();
      e["kgate"] = {{"version", KGATE_VERSION}, {"git_commit", built_git_commit()}, {"binary_sha256", self_binary_sha256()}};
      std::printf("%s\n", e.dump(2).c_str());
      return kExitOk;
    };
  });
}

void add_keygen(CLI::App& app, Action& action) {
  auto prefix = std::make_shared<std::string>();
  auto* sc = app.add_subcommand("keygen", "Make an Ed25519 key pair for --sign / audit --pubkey: PREFIX.key, PREFIX.pub.");
  sc->add_option("prefix", *prefix, "path prefix")->required();
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
