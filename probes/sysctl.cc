#include "probes/sysctl.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include "base/fd_io.h"
#include "base/strings.h"

namespace tuner {

namespace {

bool is_key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

/// The key as it may be printed: non-printable bytes escaped, long keys cut.
std::string printable(std::string_view key) {
  std::string out = "sysctl ";
  for (std::size_t i = 0; i < key.size() && i < 80; ++i) {
    auto c = static_cast<unsigned char>(key[i]);
    if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (key.size() > 80) out += "...";
  return out;
}

std::string shown(const Root& root, const std::string& rel) {
  return root.dir() == "/" ? "/" + rel : root.dir() + "/" + rel;
}

Error key_error(std::string_view key, std::string what, int err = EINVAL) {
  return errno_error(std::move(what), printable(key), err);
}

std::string describe(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u < 0x20 || u >= 0x7f) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", u);
    return buf;
  }
  return std::string("'") + c + "'";
}

/// Path components under proc/sys: segments, with '/' in a segment meaning '.'.
std::vector<std::string> components(std::string_view key) {
  std::vector<std::string> out = {"proc", "sys"};
  for (std::string_view seg : split(key, '.')) {
    std::string c(seg);
    for (char& ch : c)
      if (ch == '/') ch = '.';
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

Status check_sysctl_key_syntax(std::string_view key) {
  if (key.empty()) return key_error(key, "empty key");
  if (key.size() > kMaxSysctlKey)
    return key_error(key, "key longer than " + std::to_string(kMaxSysctlKey) + " characters");
  std::size_t col = 1, segments = 0;
  for (std::string_view seg : split(key, '.')) {
    ++segments;
    if (seg.empty())
      return key_error(key, "empty segment at column " + std::to_string(col) +
                                " (leading, trailing or double dot)");
    if (seg.size() > kMaxSysctlSegment)
      return key_error(key, "segment at column " + std::to_string(col) + " longer than " +
                                std::to_string(kMaxSysctlSegment) + " characters");
    for (std::size_t i = 0; i < seg.size(); ++i) {
      char c = seg[i];
      if (is_key_char(c)) continue;
      if (c == '/' && segments > 1 && i > 0 && i + 1 < seg.size() && seg[i + 1] != '/')
        continue;  // "eth0/100": the '.' of a VLAN name, never an empty part
      return key_error(key, "character " + describe(c) + " at column " + std::to_string(col + i) +
                                " is not allowed");
    }
    col += seg.size() + 1;
  }
  if (segments < 2) return key_error(key, "a key has at least two dotted segments");
  return Ok{};
}

Result<UniqueFd> open_sysctl(const Root& root, std::string_view key, int flags) {
  if (auto ok = check_sysctl_key_syntax(key); !ok.ok()) return ok.error();
  std::vector<std::string> parts = components(key);
  std::string rel;
  UniqueFd dir(::dup(root.fd()));
  if (!dir) return errno_error("dup", root.dir());
  for (std::size_t i = 0; i < parts.size(); ++i) {
    rel += (i ? "/" : "") + parts[i];
    const bool last = i + 1 == parts.size();
    UniqueFd fd(::openat(dir.get(), parts[i].c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!fd) {
      int e = errno;
      return errno_error(
          (e == ENOENT ? "no such sysctl " : "cannot open sysctl ") + std::string(key),
          shown(root, rel), e);
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return errno_error("cannot stat", shown(root, rel));
    std::string bad;
    if (S_ISLNK(st.st_mode)) bad = "symlink in sysctl path refused";
    else if (!last && !S_ISDIR(st.st_mode)) bad = "not a directory";
    else if (last && !S_ISREG(st.st_mode))
      bad = S_ISDIR(st.st_mode) ? "is a directory, not a sysctl" : "not a regular file";
    if (!bad.empty())
      return errno_error(bad, shown(root, rel),
                         S_ISLNK(st.st_mode) ? ELOOP : (S_ISDIR(st.st_mode) ? EISDIR : ENOTDIR));
    if (last) {
      // Reopen the checked leaf for real I/O, still without following links.
      UniqueFd io(::openat(dir.get(), parts[i].c_str(), flags | O_NOFOLLOW | O_CLOEXEC));
      int e = errno;
      if (!io)
        return errno_error(e == EACCES ? "cannot open sysctl " + std::string(key) +
                                             " (write-only or read-only key)"
                                       : "cannot open sysctl " + std::string(key),
                           shown(root, rel), e);
      return io;
    }
    dir = std::move(fd);
  }
  return errno_error("empty key", printable(key), EINVAL);  // unreachable: syntax needs 2 segments
}

Result<std::string> sysctl_path(const Root& root, std::string_view key) {
  auto fd = open_sysctl(root, key, O_PATH);
  if (!fd.ok()) return fd.error();
  std::string rel;
  for (const std::string& c : components(key)) rel += (rel.empty() ? "" : "/") + c;
  return rel;
}

Result<std::string> read_sysctl(const Root& root, std::string_view key) {
  auto fd = open_sysctl(root, key, O_RDONLY | O_NONBLOCK);
  if (!fd.ok()) return fd.error();
  auto text = read_fd(fd->get(), printable(key), {.regular_only = true});
  if (!text.ok()) return text.error();
  return normalize_ws(*text);
}

}  // namespace tuner
