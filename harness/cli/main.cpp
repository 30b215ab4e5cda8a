// kgate: one binary, thin subcommands over the library. The one try/catch here maps typed
// errors to exit codes: 0 ok, 1 gate/audit failure, 2 usage or input, 3 device/runtime.
#include <cstdio>

#include "harness/cli/common.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/registry.hpp"

int main(int argc, char** argv) {
  using namespace kgate;
  register_bundled_families(Registry::instance());
  CLI::App app{"kgate: time, check and seal GPU kernel comparisons, row by row over canonical case tables.\n"
               "Exit codes: 0 ok, 1 gate/audit failure, 2 usage or input error, 3 device/runtime failure."};
  app.require_subcommand(1);
  cli::Action action;
  cli::add_list(app, action);
  cli::add_env(app, action);
  cli::add_run(app, action);
  cli::add_audit(app, action);
  cli::add_gate(app, action);
  cli::add_compare(app, action);
  cli::add_report(app, action);
  cli::add_keygen(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  try {
    return action ? action() : kExitUsage;
  } catch (const InputError& e) {
    std::fprintf(stderr, "kgate: error: %s\n", e.what());
    return kExitUsage;
  } catch (const AuditError& e) {
    std::fprintf(stderr, "kgate: %s\n", e.what());
    return kExitFail;
  } catch (const DeviceError& e) {
    std::fprintf(stderr, "kgate: device error: %s\n", e.what());
    return kExitDevice;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kgate: runtime error: %s\n", e.what());
    return kExitDevice;
  }
}
