// Test support: runs a function in a forked child inside a private network and mount
// namespace (with its own /sys, so sysfs shows the namespace's interfaces). The child
// reports back "key=value" lines through a pipe; the parent asserts on them. Nothing of
// the host's network is touched, and the namespace dies with the child.
#pragma once

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/fd_io.h"
#include "base/runner.h"
#include "base/strings.h"
#include "base/unique_fd.h"

namespace tuner::testing {

using Report = std::map<std::string, std::string>;

/// Runs argv (an argument vector, no shell) through the Runner, within 10 s: "" on
/// success, else the command and what went wrong. For `ip` and `nft` set-up in tests.
inline std::string run_command(const std::vector<std::string>& argv) {
  ProcessRunner runner;
  RunSpec spec;
  spec.argv = argv;
  spec.timeout = std::chrono::seconds(10);
  auto r = runner.run(spec);
  std::string cmd;
  for (const std::string& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  if (!r.ok()) return cmd + ": " + r.error().message();
  if (!r->success()) return cmd + " " + r->describe(spec) + ": " + r->stderr_tail();
  return "";
}

/// run_command on each in turn, up to the first that fails: "" when all succeed.
inline std::string run_commands(const std::vector<std::vector<std::string>>& commands) {
  for (const std::vector<std::string>& argv : commands)
    if (std::string e = run_command(argv); !e.empty()) return e;
  return "";
}

/// Why a namespace test cannot run here ("" when it can).
inline std::string netns_unavailable() {
  if (::geteuid() != 0) return "not root";
  return "";
}

/// Runs `body` in a child in fresh net+mount namespaces. Returns the child's report, or
/// a report with "skip" (namespaces unavailable) or "error" set.
inline Report run_in_netns(const std::function<Report()>& body) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return {{"error", "pipe failed"}};
  UniqueFd read_end(fds[0]), write_end(fds[1]);
  pid_t pid = ::fork();
  if (pid < 0) return {{"error", "fork failed"}};
  if (pid == 0) {
    read_end.reset();
    Report r;
    if (::unshare(CLONE_NEWNET | CLONE_NEWNS) != 0) {
      r["skip"] = std::string("unshare(CLONE_NEWNET|CLONE_NEWNS): ") + std::strerror(errno);
    } else if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
               ::mount("sysfs", "/sys", "sysfs", 0, nullptr) != 0) {
      r["skip"] = std::string("remounting /sys in the namespace: ") + std::strerror(errno);
    } else {
      r = body();
    }
    std::string out;
    for (auto& [k, v] : r) out += k + "=" + v + "\n";
    size_t off = 0;
    while (off < out.size()) {
      ssize_t n = ::write(write_end.get(), out.data() + off, out.size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    ::_exit(0);
  }
  write_end.reset();
  auto text = read_fd(read_end.get(), "namespace child's report", {.regular_only = false});
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  Report r;
  if (!text) r["error"] = text.error().message();
  const std::string lines = text.value_or("");
  for (std::string_view line : split(lines, '\n')) {
    size_t eq = line.find('=');
    if (eq != std::string_view::npos)
      r[std::string(line.substr(0, eq))] = std::string(line.substr(eq + 1));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) r["error"] = "namespace child crashed";
  return r;
}

}  // namespace tuner::testing
