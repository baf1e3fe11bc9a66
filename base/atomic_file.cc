#include "base/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <random>

#include <fmt/core.h>

#include "base/fd_io.h"
#include "base/unique_fd.h"

namespace tuner {

namespace {

bool same_file(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

Status write_all(int fd, const std::string& text, const std::string& path) {
  std::size_t off = 0;
  while (off < text.size()) {
    ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return errno_error("cannot write", path, n < 0 ? errno : ENOSPC);
    off += static_cast<std::size_t>(n);
  }
  return Ok{};
}

}  // namespace

Result<OutputTarget> check_output_target(const std::string& path) {
  if (path.empty()) return Error::invalid("empty file name", "");
  struct stat own {};
  if (::lstat(path.c_str(), &own) != 0) {
    if (errno == ENOENT) return OutputTarget{};
    return errno_error("cannot look at", path);
  }
  if (S_ISREG(own.st_mode)) return OutputTarget{};
  // What the name leads to (stat follows /dev/stdout -> /proc/self/fd/1 -> the pipe,
  // terminal or file fd 1 is); a FIFO is not opened, so nothing waits here.
  struct stat led {};
  if (::stat(path.c_str(), &led) == 0) {
    for (int fd : {1, 2}) {
      struct stat st {};
      if (::fstat(fd, &st) == 0 && same_file(st, led)) return OutputTarget{fd};
    }
  }
  if (S_ISLNK(own.st_mode))
    return Error::invalid(
        "is a symlink; tuner neither follows nor replaces one here (name the file itself)", path);
  return Error::invalid(
      fmt::format("is {}, not a regular file; refusing to replace it", file_type_name(own.st_mode)),
      path);
}

Status write_file_atomic(const std::string& path, const std::string& text, unsigned mode) {
  auto target = check_output_target(path);
  if (!target.ok()) return target.error();
  if (target->stream_fd >= 0) return write_all(target->stream_fd, text, path);
  std::size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (base.empty() || base == "." || base == "..") return Error::invalid("not a file name", path);
  UniqueFd dirfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dirfd) return errno_error("cannot open the directory of", path, errno);
  std::random_device rd;
  std::string tmp;
  UniqueFd fd;
  for (int attempt = 0; attempt < 8 && !fd; ++attempt) {
    tmp = "." + base + ".tmp" + std::to_string(rd() % 1000000);
    fd.reset(::openat(dirfd.get(), tmp.c_str(),
                      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
    if (!fd && errno != EEXIST) return errno_error("cannot create a file beside", path, errno);
  }
  if (!fd) return errno_error("cannot create a file beside", path, EEXIST);
  auto fail = [&](const char* what, int err) {
    ::unlinkat(dirfd.get(), tmp.c_str(), 0);
    return errno_error(what, path, err);
  };
  if (Status w = write_all(fd.get(), text, path); !w.ok()) {
    ::unlinkat(dirfd.get(), tmp.c_str(), 0);
    return w;
  }
  // The mode asked for, whatever the umask took away.
  if (::fchmod(fd.get(), mode) != 0) return fail("cannot set the mode of", errno);
  if (::fsync(fd.get()) != 0) return fail("cannot write (fsync)", errno);
  if (::close(fd.release()) != 0) return fail("cannot write (close)", errno);
  if (::renameat(dirfd.get(), tmp.c_str(), dirfd.get(), base.c_str()) != 0)
    return fail("cannot replace", errno);
  ::fsync(dirfd.get());
  return Ok{};
}

}  // namespace tuner
