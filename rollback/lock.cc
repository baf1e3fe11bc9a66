#include "rollback/lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/core.h>

#include "base/strings.h"

namespace tuner {

Lock::Lock(Lock&& o) noexcept { *this = std::move(o); }
Lock& Lock::operator=(Lock&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}
Lock::~Lock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last fd releases the flock
}

Result<Lock> Lock::acquire(const StateDir& dir) {
  std::string path = dir.path_of("lock");
  int fd = ::openat(dir.fd(), "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return errno_error("cannot open lock file", path);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int e = errno;
    if (e != EWOULDBLOCK) {
      ::close(fd);
      return errno_error("cannot lock", path, e);
    }
    char buf[32] = {};
    ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    ::close(fd);
    auto pid = parse_u64(trim(std::string_view(buf, n > 0 ? static_cast<size_t>(n) : 0)));
    std::string who = pid ? fmt::format("another tuner (pid {})", *pid) : "another tuner";
    return Error::invalid(who + " is changing this machine; try again when it has finished", path);
  }
  std::string pid = fmt::format("{}\n", ::getpid());
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
    int e = errno;
    ::close(fd);
    return errno_error("cannot write pid to lock file", path, e);
  }
  Lock l;
  l.fd_ = fd;
  return l;
}

}  // namespace tuner
