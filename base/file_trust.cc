#include "base/file_trust.h"

#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <fmt/core.h>

#include "base/unique_fd.h"

namespace tuner {

namespace {

std::string resolved(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

std::string fd_path(int fd) {
  char buf[PATH_MAX];
  std::string link = fmt::format("/proc/self/fd/{}", fd);
  ssize_t n = ::readlink(link.c_str(), buf, sizeof buf - 1);
  if (n <= 0) return {};
  return {buf, static_cast<std::size_t>(n)};
}

}  // namespace

std::string describe_uid(uid_t uid) {
  struct passwd pw {};
  struct passwd* found = nullptr;
  char buf[4096];
  if (::getpwuid_r(uid, &pw, buf, sizeof buf, &found) == 0 && found)
    return fmt::format("uid {} ({})", uid, found->pw_name);
  return fmt::format("uid {}", uid);
}

std::string untrusted_because(const struct stat& st, const std::vector<uid_t>& owners,
                              bool sticky_ok) {
  if (std::find(owners.begin(), owners.end(), st.st_uid) == owners.end())
    return "is owned by " + describe_uid(st.st_uid);
  bool sticky = S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX);
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(sticky_ok && sticky))
    return fmt::format("is group- or world-writable (mode {:04o})", st.st_mode & 07777);
  return {};
}

long build_tree_owner() {
  static const long owner = [] {
    std::string exe = resolved("/proc/self/exe");
    std::string dir = resolved(TUNER_BUILD_DIR);
    if (exe.empty() || dir.empty() || dir == "/" || !exe.starts_with(dir + "/")) return -1L;
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) return -1L;
    return static_cast<long>(st.st_uid);
  }();
  return owner;
}

std::vector<uid_t> trusted_owners() {
  std::vector<uid_t> out = {0};
  if (long b = build_tree_owner(); b > 0) out.push_back(static_cast<uid_t>(b));
  return out;
}

Status check_trusted_fd(int fd, const std::string& shown, const std::string& what) {
  if (::geteuid() != 0) return Ok{};
  const std::vector<uid_t> owners = trusted_owners();
  auto refuse = [&](const std::string& why) {
    return Error::invalid(
        fmt::format("{}; root uses no {} another user could have written", why, what), shown);
  };
  struct stat st {};
  if (::fstat(fd, &st) != 0) return errno_error("cannot stat", shown);
  if (std::string why = untrusted_because(st, owners, false); !why.empty())
    return refuse(what + " " + why);
  std::string real = fd_path(fd);
  if (real.empty() || real.front() != '/')
    return Error::invalid(fmt::format("cannot tell where the {} lies (/proc/self/fd)", what),
                          shown);
  // Every directory above it, nearest first, up to and including /.
  std::string dir = real;
  while (dir != "/") {
    auto slash = dir.rfind('/');
    dir = slash == 0 ? "/" : dir.substr(0, slash);
    if (::stat(dir.c_str(), &st) != 0) return errno_error("cannot stat", dir);
    if (std::string why = untrusted_because(st, owners, true); !why.empty())
      return refuse(fmt::format("directory {} above the {} {}", dir, what, why));
  }
  return Ok{};
}

Status check_trusted_path(const std::string& path, const std::string& what) {
  if (::geteuid() != 0) return Ok{};
  UniqueFd fd(::open(path.c_str(), O_PATH | O_CLOEXEC));
  if (!fd) return errno_error("cannot open", path);
  return check_trusted_fd(fd.get(), path, what);
}

}  // namespace tuner
