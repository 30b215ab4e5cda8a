#pragma once
// Child processes without a shell: every argument reaches the program as one argv element, so a
// path holding quotes, `$(...)` or `;` is data, never a command.
#include <string>
#include <vector>

namespace kgate {

// Runs argv (argv[0] looked up on PATH), stdout captured, stderr discarded. Returns false when it
// could not start or exited non-zero; `out` holds what it printed either way.
bool run_capture(const std::vector<std::string>& argv, std::string& out);

// Runs argv with stdout and stderr appended to `log`; its exit status (127: could not start, 128:
// ended by a signal). Throws std::runtime_error when it cannot fork.
int run_logged(const std::vector<std::string>& argv, const std::string& log);

// The git commit of the work tree at `dir` ("<sha>", "<sha>-dirty" with uncommitted changes to
// tracked files), or "unknown" where `dir` is not in a git work tree or git is absent.
std::string git_state(const std::string& dir);

}  // namespace kgate
