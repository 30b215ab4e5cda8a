#include "harness/core/process.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <stdexcept>

namespace kgate {

namespace {

// In the child: argv as the program's arguments, looked up on PATH; 127 when it cannot start.
[[noreturn]] void exec_argv(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  _exit(127);
}

// The child's exit status; 128 when a signal ended it or it could not be waited for.
int wait_exit(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 128;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

}  // namespace

bool run_capture(const std::vector<std::string>& argv, std::string& out) {
  out.clear();
  if (argv.empty()) return false;
  int fds[2];
  if (pipe(fds) != 0) return false;
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return false;
  }
  if (pid == 0) {
    dup2(fds[1], 1);
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 2);
    close(fds[0]);
    close(fds[1]);
    exec_argv(argv);
  }
  close(fds[1]);
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  return wait_exit(pid) == 0;
}

int run_logged(const std::vector<std::string>& argv, const std::string& log) {
  if (argv.empty()) return 127;
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed running " + argv[0]);
  if (pid == 0) {
    if (FILE* f = std::freopen(log.c_str(), "a", stdout)) dup2(fileno(f), 2);
    exec_argv(argv);
  }
  return wait_exit(pid);
}

std::string git_state(const std::string& dir) {
  auto git = [&](std::vector<std::string> args, bool& ok) {
    args.insert(args.begin(), {"git", "-C", dir});
    std::string out;
    ok = run_capture(args, out);
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    return out;
  };
  bool ok = false;
  const std::string head = git({"rev-parse", "HEAD"}, ok);
  if (!ok || head.empty()) return "unknown";
  const std::string changes = git({"status", "--porcelain", "--untracked-files=no"}, ok);
  return head + (ok && changes.empty() ? "" : "-dirty");
}

}  // namespace kgate
