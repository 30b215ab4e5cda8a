// export: builds bundled arms as an export library (the CMake target kgate_export_<family>, in
// a build tree of its own), so the same kernel can be measured through both routes, and two
// commits' exports against each other. What it does, in order: check every flag, the family,
// the arms and the source tree; configure and build (log in the build tree); copy the library;
// load it back through the export loader and check its table; write the manifest beside it.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "harness/cli/common.hpp"
#include "harness/core/artifacts.hpp"
#include "harness/core/crypto.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/process.hpp"
#include "harness/core/suggest.hpp"
#include "harness/core/text.hpp"
#include "harness/export/loader.hpp"

namespace kgate::cli {
namespace {

namespace fs = std::filesystem;

struct Opts {
  std::string family, out, source, build_dir;
  std::vector<std::string> arms;
  int jobs = 0;
  bool force = false, json = false;
};

// The arms this binary can export from its own source: bundled GPU arms of `family`.
void check_arms(const Opts& o, const Registry& reg) {
  std::vector<std::string> exportable;
  for (const auto& i : reg.impls())
    if (i.family == o.family && i.backend == "cuda" && !i.exported) exportable.push_back(i.name);
  for (const auto& a : o.arms) {
    const Implementation* i = reg.find_impl(a);
    if (i && i->family != o.family)
      throw InputError("export: --arms: " + quoted(a) + " is a " + i->family + " arm, not " + o.family);
    if (i && i->exported) throw InputError("export: --arms: " + quoted(a) + " is already an export arm");
    if (i && i->backend != "cuda")
      throw InputError("export: --arms: " + quoted(a) + " is a " + i->backend +
                       " arm; an export library carries GPU arms (" + join(exportable, ", ") + ")");
    if (!i)
      throw InputError("export: --arms: no " + o.family + " arm " + quoted(a) + did_you_mean(a, exportable) +
                       (exportable.empty() ? " (this kgate was built without CUDA: it has no GPU arms)" : ""));
  }
}

std::string log_tail(const std::string& log, size_t lines) {
  std::ifstream in(log);
  std::vector<std::string> all;
  for (std::string l; std::getline(in, l);) all.push_back(l);
  std::string out;
  for (size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) out += "  " + all[i] + "\n";
  return out;
}

// What an export needs before it builds: the arms, the family, the source tree and the output.
struct ExportPlan {
  Opts o;
  fs::path src, out, bdir;
  std::string log, target, arms_csv;
};

ExportPlan plan_export(const Opts& o0, Registry& reg) {
  ExportPlan p{o0, {}, {}, {}, {}, {}, {}};
  Opts& o = p.o;
  o.arms.clear();
  for (const auto& w : o0.arms)
    for (auto& a : split_commas(w)) o.arms.push_back(std::move(a));
  if (o.arms.empty()) throw InputError("export: --arms: name at least one arm");
  std::vector<std::string> families;
  for (const auto& f : reg.families()) families.push_back(f.name);
  if (!reg.find_family(o.family))
    throw InputError("export: --family: no family " + quoted(o.family) + did_you_mean(o.family, families));
  const bool own_source = o.source.empty();
  if (own_source) o.source = data_root();
  p.src = fs::absolute(o.source);
  const fs::path family_cmake = p.src / "kernels" / o.family / "CMakeLists.txt";
  if (!fs::exists(p.src / "CMakeLists.txt"))
    throw InputError("export: --source: " + p.src.string() + " is not a kgate source tree (no CMakeLists.txt)");
  std::ifstream in(family_cmake);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.find("EXPORT_SOURCES") == std::string::npos)
    throw InputError("export: family " + quoted(o.family) + " has no export sources in " + family_cmake.string() +
                     " (kgate_add_family EXPORT_SOURCES)");
  // This binary's registry describes its own source; another tree's arms are checked once its
  // library is built (its table must name exactly the arms asked for).
  if (own_source) check_arms(o, reg);
  p.out = fs::absolute(o.out);
  if (fs::exists(p.out) && !o.force)
    throw InputError("export: --out: " + p.out.string() + " exists (--force replaces it)");
  if (!fs::is_directory(p.out.parent_path()))
    throw InputError("export: --out: no directory " + p.out.parent_path().string());
  p.bdir = fs::absolute(o.build_dir.empty() ? p.out.string() + ".build" : o.build_dir);
  p.log = (p.bdir / "export.log").string();
  p.target = "kgate_export_" + o.family;
  p.arms_csv = join(o.arms, ",");
  return p;
}

std::vector<std::string> configure_command(const ExportPlan& p) {
  std::vector<std::string> configure = {KGATE_CMAKE_COMMAND,
                                        "-S",
                                        p.src.string(),
                                        "-B",
                                        p.bdir.string(),
                                        "-DCMAKE_BUILD_TYPE=Release",
                                        "-DKGATE_BUILD_TESTS=OFF",
                                        "-DKGATE_BUILD_BENCH=OFF",
                                        "-DKGATE_WITH_CUDA=ON",
                                        "-DKGATE_EXPORT_ARMS=" + p.arms_csv};
  if (!fs::exists(p.bdir / "CMakeCache.txt") && !std::string(KGATE_CMAKE_GENERATOR).empty())
    configure.insert(configure.begin() + 1, {"-G", KGATE_CMAKE_GENERATOR});
  if (!std::string(KGATE_CUDA_COMPILER).empty())
    configure.push_back(std::string("-DCMAKE_CUDA_COMPILER=") + KGATE_CUDA_COMPILER);
  return configure;
}

// Configures and builds the export target, then moves the library to --out.
void build_export(const ExportPlan& p, const std::vector<std::string>& configure) {
  fs::create_directories(p.bdir);
  std::remove(p.log.c_str());
  std::vector<std::string> build = {KGATE_CMAKE_COMMAND, "--build", p.bdir.string(), "--target", p.target};
  if (p.o.jobs > 0) build.insert(build.end(), {"-j", std::to_string(p.o.jobs)});
  std::fprintf(stderr, "kgate export: configuring %s in %s (log: %s)\n", p.src.c_str(), p.bdir.c_str(), p.log.c_str());
  if (run_logged(configure, p.log) != 0)
    throw std::runtime_error("export: configuring " + p.src.string() + " failed; the end of " + p.log + ":\n" +
                             log_tail(p.log, 15));
  std::fprintf(stderr, "kgate export: building %s (arms %s)\n", p.target.c_str(), p.arms_csv.c_str());
  if (run_logged(build, p.log) != 0)
    throw std::runtime_error("export: building " + p.target + " failed; the end of " + p.log + ":\n" +
                             log_tail(p.log, 25));
  const fs::path built = p.bdir / "kernels" / p.o.family / ("lib" + p.target + ".so");
  if (!fs::exists(built)) throw std::runtime_error("export: the build made no " + built.string());
  const fs::path tmp = p.out.string() + ".tmp";
  fs::copy_file(built, tmp, fs::copy_options::overwrite_existing);
  fs::rename(tmp, p.out);
}

// No machine path in a manifest: the library by its file name, the folders in the configure
// command by placeholders.
json export_manifest(const ExportPlan& p, const std::vector<std::string>& configure, const Implementation& first) {
  std::vector<std::string> configure_portable;
  for (std::string a : configure) {
    for (const auto& [dir, name] : {std::pair{p.bdir.string(), "$BUILD"}, std::pair{p.src.string(), "$SRC"}})
      for (size_t at = a.find(dir); at != std::string::npos; at = a.find(dir, at + std::strlen(name)))
        a.replace(at, dir.size(), name);
    configure_portable.push_back(std::move(a));
  }
  return {{"schema", "kgate.export/1"},
          {"family", p.o.family},
          {"arms", p.o.arms},
          {"library",
           {{"file", p.out.filename().string()}, {"sha256", first.library->sha256}, {"size", first.library->size}}},
          {"source", {{"commit", git_state(p.src.string())}}},
          {"built_by", {{"kgate_commit", built_git_commit()}, {"cmake", configure_portable}, {"target", p.target}}}};
}

int run_export(const Opts& o0) {
  Registry& reg = Registry::instance();
  const ExportPlan p = plan_export(o0, reg);
  const std::vector<std::string> configure = configure_command(p);
  build_export(p, configure);
  // Load it back: the family, the ABI version and exactly the arms asked for.
  const std::vector<std::string> names = load_export_library(reg, p.out.string(), p.o.family);
  std::vector<std::string> got;
  for (const auto& n : names) got.push_back(reg.impl(n).library->arm);
  if (got != p.o.arms)
    throw std::runtime_error("export: " + p.out.string() + " carries arms " + join(got, ",") + ", asked for " +
                             p.arms_csv);
  const Implementation& first = reg.impl(names.front());
  const json manifest = export_manifest(p, configure, first);
  const std::string manifest_path = p.out.string() + ".json";
  std::ofstream(manifest_path) << manifest.dump(2) << "\n";
  if (p.o.json) {
    print_json(manifest);
  } else {
    std::printf("%s: %s export of %s (sha256 %s, %lld bytes), from %s at %s\nmanifest: %s\n", p.out.c_str(),
                p.o.family.c_str(), p.arms_csv.c_str(), first.library->sha256.c_str(),
                static_cast<long long>(first.library->size), p.src.c_str(),
                manifest["source"]["commit"].get<std::string>().c_str(), manifest_path.c_str());
    for (const auto& n : names) std::printf("  %s\n", n.c_str());
  }
  return kExitOk;
}

}  // namespace

void add_export(CLI::App& app, Action& action) {
  auto o = std::make_shared<Opts>();
  auto* sc = app.add_subcommand("export",
                                "Build bundled GPU arms as an export library (the C ABI of "
                                "harness/export/kgate_export.h), to run as export:LIB:ARM.");
  sc->add_option("--family", o->family, "the family whose arms to export (kgate list)")->required();
  sc->add_option("--arms", o->arms,
                 "arms to carry, comma-separated or repeated, in table order (ssu.fast,ssu.baseline)")
      ->required();
  sc->add_option("--out", o->out, "the library to write (LIB.so; its manifest goes to LIB.so.json)")->required();
  sc->add_option("--source", o->source,
                 "kgate source tree to build from (default: this binary's own; another commit's checkout builds "
                 "that commit's arms)");
  sc->add_option("--build-dir", o->build_dir, "build tree, kept for the next export (default: LIB.so.build)");
  sc->add_option("--jobs,-j", o->jobs, "parallel build jobs (default: the generator's)");
  sc->add_flag("--force", o->force, "replace an existing --out");
  sc->add_flag("--json", o->json, "print the manifest as one JSON document on stdout");
  sc->footer(help_footer(
      "0 built and loaded back, 2 usage error (unknown family or arm, a CPU arm, --out exists), 3 the configure "
      "or build failed (the end of its log is printed) or the library does not carry the arms asked for.",
      "  kgate export --family ssu --arms ssu.fast --out /tmp/ssu_fast.so\n"
      "  kgate run --cases cases/ssu.json --candidate ssu.fast --baseline export:/tmp/ssu_fast.so:ssu.fast \\\n"
      "            --policy 'correct,parity,fallback,limit(0.045)'\n"
      "  git worktree add /tmp/prev HEAD~1 && kgate export --source /tmp/prev --family ssu --arms ssu.fast "
      "--out /tmp/prev.so\n"));
  sc->callback([o, &action] { action = [o] { return run_export(*o); }; });
}

}  // namespace kgate::cli
