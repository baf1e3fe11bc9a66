#include "rollback/lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/core.h>

#include "base/strings.h"

namespace tuner {

Result<Lock> Lock::acquire(const StateDir& dir) {
  std::string path = dir.path_of("lock");
  UniqueFd fd(::openat(dir.fd(), "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) return errno_error("cannot open lock file", path);
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK) return errno_error("cannot lock", path);
    char buf[32] = {};
    ssize_t n = ::pread(fd.get(), buf, sizeof buf - 1, 0);
    auto pid = parse_u64(trim(std::string_view(buf, n > 0 ? static_cast<size_t>(n) : 0)));
    std::string who = pid ? fmt::format("another tuner (pid {})", *pid) : "another tuner";
    return Error::invalid(who + " is changing this machine; try again when it has finished", path);
  }
  std::string pid = fmt::format("{}\n", ::getpid());
  if (::ftruncate(fd.get(), 0) != 0 || ::pwrite(fd.get(), pid.data(), pid.size(), 0) < 0)
    return errno_error("cannot write pid to lock file", path);
  Lock l;
  l.fd_ = std::move(fd);
  return l;
}

}  // namespace tuner
