#include "base/openat2.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

// 437 on every architecture (the unified syscall table, Linux 5.6); glibc defines
// SYS_openat2 from 2.32 on.
#ifndef SYS_openat2
#define SYS_openat2 437
#endif

namespace tuner {

namespace {

// struct open_how of <linux/openat2.h> (Linux 5.6), which older kernel headers lack.
struct OpenHow {
  std::uint64_t flags;
  std::uint64_t mode;
  std::uint64_t resolve;
};
static_assert(sizeof(OpenHow) == 24, "OPEN_HOW_SIZE_VER0");

int raw_openat2(int dirfd, const char* path, int flags, std::uint64_t resolve) {
  OpenHow how{static_cast<std::uint64_t>(static_cast<unsigned>(flags)), 0, resolve};
  return static_cast<int>(::syscall(SYS_openat2, dirfd, path, &how, sizeof how));
}

}  // namespace

int openat2_fd(int dirfd, const char* path, int flags, std::uint64_t resolve) {
  int fd = raw_openat2(dirfd, path, flags, resolve);
  if (fd >= 0 || errno != EPERM) return fd;
  // Nothing about "/" opened O_PATH can be refused with EPERM but the syscall itself.
  int probe = raw_openat2(AT_FDCWD, "/", O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
  if (probe >= 0) {
    ::close(probe);
    errno = EPERM;
    return -1;
  }
  errno = (errno == EPERM || errno == ENOSYS) ? ENOSYS : EPERM;
  return -1;
}

}  // namespace tuner
