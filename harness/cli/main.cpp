// kgate: one binary, thin subcommands over the library. The one try/catch here maps typed
// errors to exit codes: 0 ok, 1 gate/audit failure, 2 usage or input, 3 device/runtime.
#include <algorithm>
#include <cctype>
#include <cstdio>

#include "harness/cli/common.hpp"
#include "harness/core/artifacts.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/registry.hpp"
#include "harness/core/suggest.hpp"
#include "harness/core/text.hpp"

namespace {

using namespace kgate;

// What `kgate --version` says: the build's identity, from the build system (CMakeLists.txt).
std::string version_text() {
  return std::string("kgate ") + KGATE_VERSION + "\n" + "git commit: " + built_git_commit() + "\n" +
         "build type: " + KGATE_BUILD_TYPE + "\n" + "compiler: " + KGATE_CXX_COMPILER + "\n" +
         "CUDA: " + KGATE_CUDA_BUILD + "\n" +
         "sanitizers: " + (std::string(KGATE_SANITIZERS).empty() ? "none" : KGATE_SANITIZERS);
}

std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options()) {
    for (const auto& l : o->get_lnames()) names.push_back("--" + l);
    for (const auto& s : o->get_snames()) names.push_back("-" + s);
  }
  return names;
}

// A word on the command line that `app` has no flag for ("--candiate", "-x"), or "".
std::string unknown_flag(const CLI::App& app, const std::vector<std::string>& words) {
  const std::vector<std::string> known = option_names(app);
  for (const auto& w : words) {
    if (w == "--") break;
    const bool long_flag = w.size() > 2 && w.compare(0, 2, "--") == 0;
    const bool short_flag = w.size() == 2 && w[0] == '-' && std::isalpha(static_cast<unsigned char>(w[1]));
    if (!long_flag && !short_flag) continue;
    const std::string name = w.substr(0, w.find('='));
    if (std::find(known.begin(), known.end(), name) == known.end()) return name;
  }
  return "";
}

// The one line for a usage error CLI11 found; a word it did not know (a subcommand, a flag)
// comes with the nearest known ones.
std::string usage_error(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  std::vector<std::string> words(argv + 1, argv + argc);
  std::vector<std::string> subcommands;
  for (const CLI::App* sc : app.get_subcommands(std::function<bool(const CLI::App*)>{}))
    subcommands.push_back(sc->get_name());
  size_t i = 0;
  while (i < words.size() && !words[i].empty() && words[i][0] == '-' && words[i] != "--") ++i;
  const std::vector<std::string> before(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(i));
  if (std::string flag = unknown_flag(app, before); !flag.empty())
    return "unknown flag " + quoted(flag) + did_you_mean(flag, option_names(app)) + " (kgate --help)";
  if (i == words.size()) return "a subcommand is required: " + join(subcommands, ", ") + " (kgate --help)";
  const std::string& word = words[i];
  if (std::find(subcommands.begin(), subcommands.end(), word) == subcommands.end())
    return "unknown subcommand " + quoted(word) + did_you_mean(word, subcommands) + " (kgate --help lists them)";
  const CLI::App* sc = app.get_subcommand(word);
  const std::vector<std::string> after(words.begin() + static_cast<std::ptrdiff_t>(i) + 1, words.end());
  const std::string help = " (kgate " + word + " --help)";
  if (std::string flag = unknown_flag(*sc, after); !flag.empty())
    return word + ": unknown flag " + quoted(flag) + did_you_mean(flag, option_names(*sc)) + help;
  std::string what = e.what();
  for (char& c : what)
    if (c == '\n') c = ' ';
  return word + ": " + printable(what) + help;
}

}  // namespace

// `kgate help [SUBCOMMAND]`, `kgate version` and `kgate -V`: the words people type for --help and
// --version, rewritten to them before parsing (`help WORD` that names no subcommand is left to the
// parser, which says so).
static std::vector<std::string> with_help_words(const CLI::App& app, int argc, char** argv) {
  std::vector<std::string> a(argv, argv + argc);
  if (a.size() >= 2 && a[1] == "help") {
    a.erase(a.begin() + 1);
    bool known = a.size() < 2;
    for (const CLI::App* sc : app.get_subcommands([](const CLI::App*) { return true; }))
      known = known || sc->get_name() == a[1];
    if (known) a.insert(a.size() >= 2 ? a.begin() + 2 : a.end(), "--help");
  } else if (a.size() == 2 && (a[1] == "version" || a[1] == "-V")) {
    a[1] = "--version";
  }
  return a;
}

int main(int argc, char** argv) {
  register_bundled_families(Registry::instance());
  CLI::App app{
      "kgate: time, check and seal GPU kernel comparisons, row by row over canonical case tables.\n"
      "Exit codes: 0 ok, 1 gate/audit failure, 2 usage or input error, 3 device/runtime failure."};
  app.set_version_flag("-V,--version", version_text(),
                       "the version, git commit, build type, compiler, CUDA and "
                       "sanitizer settings of this binary");
  app.require_subcommand(1);
  app.footer(
      "Typical: kgate list; kgate run --cases T --candidate I --baseline I; kgate audit R; kgate gate R --policy P.\n"
      "kgate SUBCOMMAND --help (or kgate help SUBCOMMAND) shows its flags, exit codes and examples; kgate version "
      "(-V) the build.");
  std::string data_dir;
  app.add_option("--data-dir", data_dir,
                 "kgate's data (a folder holding cases/): default an installed kgate's <prefix>/share/kgate, or the "
                 "source tree its build folder sits in; $KGATE_DATA_DIR overrides the default")
      ->type_name("DIR");
  cli::Action action;
  cli::add_list(app, action);
  cli::add_env(app, action);
  cli::add_run(app, action);
  cli::add_audit(app, action);
  cli::add_gate(app, action);
  cli::add_compare(app, action);
  cli::add_report(app, action);
  cli::add_carryover(app, action);
  cli::add_index(app, action);
  cli::add_keygen(app, action);
  cli::add_export(app, action);
  cli::add_rerun(app, action);
  cli::add_sanitize(app, action);
  cli::add_accept(app, action);
  std::vector<std::string> words = with_help_words(app, argc, argv);
  std::vector<char*> args;
  for (auto& w : words) args.push_back(w.data());
  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::Success& e) {  // --help, --help-all, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "kgate: error: %s\n", usage_error(app, e, static_cast<int>(args.size()), args.data()).c_str());
    return kExitUsage;
  }
  try {
    if (!data_dir.empty()) cli::set_data_dir(data_dir);
    return action ? action() : kExitUsage;
  } catch (const InputError& e) {
    std::fprintf(stderr, "kgate: error: %s\n", terminal(e.what()).c_str());
    return kExitUsage;
  } catch (const AuditError& e) {
    std::fprintf(stderr, "kgate: %s\n", terminal(e.what()).c_str());
    return kExitFail;
  } catch (const DeviceError& e) {
    std::fprintf(stderr, "kgate: device error: %s\n", terminal(e.what()).c_str());
    return kExitDevice;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kgate: runtime error: %s\n", terminal(e.what()).c_str());
    return kExitDevice;
  }
}
