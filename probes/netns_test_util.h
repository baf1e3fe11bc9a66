// Test helper: runs a function in a forked child inside a private network and mount
// namespace (with its own /sys, so sysfs shows the namespace's interfaces). The child
// reports back "key=value" lines through a pipe; the parent asserts on them. Nothing of
// the host's network is touched, and the namespace dies with the child.
#pragma once

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <map>
#include <string>

namespace tuner::testing {

using Report = std::map<std::string, std::string>;

/// Why a namespace test cannot run here ("" when it can).
inline std::string netns_unavailable() {
  if (::geteuid() != 0) return "not root";
  return "";
}

/// Runs `body` in a child in fresh net+mount namespaces. Returns the child's report, or
/// a report with "skip" (namespaces unavailable) or "error" set.
inline Report run_in_netns(const std::function<Report()>& body) {
  int fds[2];
  if (::pipe(fds) != 0) return {{"error", "pipe failed"}};
  pid_t pid = ::fork();
  if (pid < 0) return {{"error", "fork failed"}};
  if (pid == 0) {
    ::close(fds[0]);
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
      ssize_t n = ::write(fds[1], out.data() + off, out.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  Report r;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(pos, nl - pos);
    size_t eq = line.find('=');
    if (eq != std::string::npos) r[line.substr(0, eq)] = line.substr(eq + 1);
    pos = nl + 1;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) r["error"] = "namespace child crashed";
  return r;
}

/// Reads a small file; "" when unreadable.
inline std::string slurp(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string s;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) s.append(buf, static_cast<size_t>(n));
  ::close(fd);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace tuner::testing
