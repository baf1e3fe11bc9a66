#include "base/fd_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <fmt/core.h>

namespace tuner {

const char* file_type_name(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symlink";
  return "not a file";
}

namespace {

Error too_large(const std::string& where, std::size_t max) {
  return Error::invalid(fmt::format("larger than {} bytes", max), where);
}

// The bounded read loop, on a descriptor that passed check_readable.
Result<std::string> read_checked(int fd, const std::string& where, std::size_t max) {
  std::string out;
  char buf[65536];
  for (;;) {
    // Ask for one byte beyond the limit: a file of exactly max bytes is fine.
    std::size_t room = max - out.size();
    std::size_t want = room < sizeof buf ? room + 1 : sizeof buf;
    ssize_t n = ::read(fd, buf, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return errno_error("nothing to read without waiting", where, errno);
    if (n < 0) return errno_error("cannot read", where);
    if (n == 0) return out;
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > max) return too_large(where, max);
  }
}

}  // namespace

Status check_readable(int fd, const std::string& where, const ReadLimits& limits) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return errno_error("cannot stat", where);
  if (S_ISDIR(st.st_mode))
    return Error{ErrorKind::invalid, "is a directory, not a file", where, EISDIR};
  if (!S_ISREG(st.st_mode)) {
    if (limits.regular_only)
      return Error::invalid(fmt::format("not a regular file ({})", file_type_name(st.st_mode)),
                            where);
    return Ok{};  // stays non-blocking: a FIFO or device with nothing to give fails
  }
  if (st.st_size > 0 && static_cast<std::size_t>(st.st_size) > limits.max_bytes)
    return too_large(where, limits.max_bytes);
  int fl = ::fcntl(fd, F_GETFL);
  if (fl >= 0 && (fl & O_NONBLOCK)) ::fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  return Ok{};
}

Result<UniqueFd> open_for_read(int dirfd, const std::string& path, const std::string& where,
                               const ReadLimits& limits, int flags) {
  UniqueFd fd(::openat(dirfd, path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | flags));
  if (!fd) return errno_error("cannot open", where);
  if (auto ok = check_readable(fd.get(), where, limits); !ok) return ok.error();
  return fd;
}

Result<std::string> read_fd(int fd, const std::string& where, const ReadLimits& limits) {
  if (auto ok = check_readable(fd, where, limits); !ok) return ok.error();
  return read_checked(fd, where, limits.max_bytes);
}

Result<std::string> read_file_at(int dirfd, const std::string& path, const std::string& where,
                                 const ReadLimits& limits, int flags) {
  auto fd = open_for_read(dirfd, path, where, limits, flags);
  if (!fd) return fd.error();
  return read_checked(fd->get(), where, limits.max_bytes);
}

Result<std::string> read_file(const std::string& path, const ReadLimits& limits) {
  return read_file_at(AT_FDCWD, path, path, limits);
}

Result<std::string> read_all_and_close(int fd, const std::string& where) {
  UniqueFd owned(fd);
  return read_fd(owned.get(), where);
}

}  // namespace tuner
