#include "tuner/knobs/knob_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>

#include "base/fd_io.h"
#include "base/openat2.h"
#include "base/unique_fd.h"

namespace tuner {

namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

std::string_view relative(std::string_view p) {
  while (!p.empty() && p.front() == '/') p.remove_prefix(1);
  return p;
}

UniqueFd open_beneath(const Root& root, const std::string& rel, int flags) {
  std::uint64_t resolve = kResolveNoSymlinks | kResolveNoMagiclinks |
                          (root.is_live() ? kResolveBeneath : kResolveInRoot);
  int fd = openat2_fd(root.fd(), rel.c_str(), flags | O_CLOEXEC | O_NOFOLLOW, resolve);
  // No openat2 (before Linux 5.6, or refused by a seccomp filter: base/openat2.h): knob
  // ids are validated, no '..' or '/'.
  if (fd < 0 && errno == ENOSYS)
    fd = ::openat(root.fd(), rel.c_str(), flags | O_CLOEXEC | O_NOFOLLOW);
  return UniqueFd(fd);
}

Status write_all(int fd, const std::string& data, const std::string& where) {
  std::size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error("cannot write", where);
    off += static_cast<std::size_t>(n);
  }
  return Ok{};
}

/// DIR under root, as a directory fd; an ENOENT error when it does not exist.
Result<UniqueFd> open_dir(const Root& root, const std::string& dir) {
  return root.open_fd(std::string(relative(dir)), O_DIRECTORY);
}

}  // namespace

std::string shown_path(const Root& root, std::string_view rel) {
  rel = relative(rel);
  return root.dir() == "/" ? "/" + std::string(rel) : root.dir() + "/" + std::string(rel);
}

Result<std::string> read_proc_file(const Root& root, const std::string& rel) {
  // O_NONBLOCK: a FIFO planted in a capture cannot hang the open (read_fd refuses it).
  UniqueFd fd = open_beneath(root, rel, O_RDONLY | O_NONBLOCK);
  if (!fd) return errno_error("cannot open", shown_path(root, rel));
  return read_fd(fd.get(), shown_path(root, rel));
}

Status write_proc_file(const Root& root, const std::string& rel, const std::string& text,
                       const FakeKernel* fake) {
  std::string stored = text;
  if (fake && *fake)
    if (int err = (*fake)(rel, stored))
      return errno_error("the kernel rejected '" + text + "'", shown_path(root, rel), err);
  // O_TRUNC as a shell's '>' does: /proc and /sys ignore it, a fake machine's plain file
  // would otherwise keep the tail of a longer old value.
  UniqueFd fd = open_beneath(root, rel, O_WRONLY | O_TRUNC);
  if (!fd) return errno_error("cannot open for writing", shown_path(root, rel));
  ssize_t n;
  do {
    n = ::write(fd.get(), stored.data(), stored.size());
  } while (n < 0 && errno == EINTR);
  if (n < 0) return errno_error("the kernel rejected '" + text + "'", shown_path(root, rel));
  if (static_cast<size_t>(n) != stored.size())
    return Error::io("short write of '" + text + "'", shown_path(root, rel));
  return Ok{};
}

std::string Dropin::shown(const Root& root) const {
  return shown_path(root, std::string(relative(dir)) + "/" + subdir + "/" + name);
}

Result<std::optional<std::string>> read_dropin(const Root& root, const Dropin& d) {
  auto top = open_dir(root, d.dir);
  if (!top.ok()) {
    if (top.error().err == ENOENT) return std::optional<std::string>();
    return top.error();
  }
  UniqueFd sub(::openat(top->get(), d.subdir.c_str(), kDirFlags));
  if (!sub) {
    if (errno == ENOENT) return std::optional<std::string>();
    return errno_error("cannot open directory", shown_path(root, d.dir + "/" + d.subdir));
  }
  UniqueFd f(::openat(sub.get(), d.name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (!f) {
    if (errno == ENOENT) return std::optional<std::string>();
    return errno_error("cannot open", d.shown(root));
  }
  ReadLimits limits;
  limits.regular_only = true;
  limits.max_bytes = 1 << 20;
  auto text = read_fd(f.get(), d.shown(root), limits);
  if (!text.ok()) return text.error();
  return std::optional<std::string>(std::move(text).value());
}

Status write_dropin(const Root& root, const Dropin& d, const std::string& content) {
  auto top = open_dir(root, d.dir);
  if (!top.ok()) return top.error();
  std::string sub_path = shown_path(root, d.dir + "/" + d.subdir);
  bool created = false;
  if (::mkdirat(top->get(), d.subdir.c_str(), 0755) == 0) created = true;
  else if (errno != EEXIST) return errno_error("cannot create directory", sub_path);
  UniqueFd sub(::openat(top->get(), d.subdir.c_str(), kDirFlags));
  if (!sub) return errno_error("cannot open directory", sub_path);
  std::string path = d.shown(root);
  std::string tmp = "." + d.name + ".tmp";
  UniqueFd f(::openat(sub.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
                      0644));
  if (!f) return errno_error("cannot create", sub_path + "/" + tmp);
  Status st = write_all(f.get(), content, path);
  if (st.ok() && ::fsync(f.get()) != 0) st = errno_error("cannot fsync", path);
  if (st.ok() && ::renameat(sub.get(), tmp.c_str(), sub.get(), d.name.c_str()) != 0)
    st = errno_error("cannot rename into place", path);
  if (!st.ok()) {
    ::unlinkat(sub.get(), tmp.c_str(), 0);
    return st;
  }
  if (::fsync(sub.get()) != 0) return errno_error("cannot fsync directory", sub_path);
  if (created && ::fsync(top->get()) != 0)
    return errno_error("cannot fsync directory", shown_path(root, d.dir));
  return Ok{};
}

Status remove_dropin(const Root& root, const Dropin& d) {
  auto top = open_dir(root, d.dir);
  if (!top.ok()) return top.error().err == ENOENT ? Status(Ok{}) : Status(top.error());
  std::string sub_path = shown_path(root, d.dir + "/" + d.subdir);
  UniqueFd sub(::openat(top->get(), d.subdir.c_str(), kDirFlags));
  if (!sub) {
    if (errno == ENOENT) return Ok{};
    return errno_error("cannot open directory", sub_path);
  }
  if (::unlinkat(sub.get(), d.name.c_str(), 0) != 0 && errno != ENOENT)
    return errno_error("cannot remove", d.shown(root));
  if (::fsync(sub.get()) != 0) return errno_error("cannot fsync directory", sub_path);
  // Only an empty directory goes; one holding the admin's own drop-ins stays.
  if (::unlinkat(top->get(), d.subdir.c_str(), AT_REMOVEDIR) == 0) ::fsync(top->get());
  else if (errno != ENOTEMPTY && errno != EEXIST)
    return errno_error("cannot remove directory", sub_path);
  return Ok{};
}

std::string dropin_mismatch(const Root& root, const Dropin& d, const std::string& now,
                            const std::string& want) {
  return "read back '" + now + "' from " + d.shown(root) + " after writing '" + want + "'";
}

Status systemctl_after_dropin(Systemctl& sc, const Root& root, const Dropin& d,
                              const std::string& knob_id, const std::vector<std::string>& args) {
  if (auto r = sc.run(args); !r.ok())
    return Error{r.error().kind, "wrote " + d.shown(root) + " but " + r.error().message(), knob_id,
                 r.error().err};
  return Ok{};
}

}  // namespace tuner
