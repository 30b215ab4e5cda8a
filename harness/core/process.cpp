#include "harness/core/process.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

namespace kgate {

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
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(fds[1]);
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
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
