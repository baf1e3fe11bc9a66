#include "base/openat2.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "tests/support/seccomp_child.h"

using tuner::openat2_fd;

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

TEST_CASE("openat2_fd resolves beneath a directory, and says ENOSYS where a filter refuses it") {
  int fd = openat2_fd(AT_FDCWD, "/proc/self/status", O_RDONLY | O_CLOEXEC, 0);
  REQUIRE(fd >= 0);  // the host's kernel (5.6 or later) has openat2
  ::close(fd);
  int dir = ::open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(dir >= 0);
  // The flags reach the kernel: ".." cannot leave the directory beneath it.
  CHECK(openat2_fd(dir, "../self/status", O_RDONLY | O_CLOEXEC, tuner::kResolveBeneath) == -1);
  CHECK(errno == EXDEV);
  ::close(dir);

  // A seccomp filter's EPERM is "no openat2 here", which callers fall back from.
  int rc = tuner::testing::run_with_syscall_refused(SYS_openat2, [] {
    errno = 0;
    int got = openat2_fd(AT_FDCWD, "/proc/self/status", O_RDONLY | O_CLOEXEC, 0);
    if (got >= 0) return 1;
    return errno == ENOSYS ? 0 : 2;
  });
  CHECK(rc == 0);
}
