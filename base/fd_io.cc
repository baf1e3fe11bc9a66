#include "base/fd_io.h"

#include <unistd.h>

#include <cerrno>

namespace tuner {

Result<std::string> read_all_and_close(int fd, const std::string& where) {
  std::string out;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      return errno_error("cannot read", where, e);
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

}  // namespace tuner
