#include "tuner/knobs/proc_file.h"

#include "base/fd_io.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace tuner {

namespace {

int open_beneath(const Root& root, const std::string& rel, int flags) {
  struct open_how how {};
  how.flags = static_cast<unsigned>(flags) | O_CLOEXEC | O_NOFOLLOW;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
                (root.is_live() ? RESOLVE_BENEATH : RESOLVE_IN_ROOT);
  int fd = static_cast<int>(::syscall(SYS_openat2, root.fd(), rel.c_str(), &how, sizeof how));
  if (fd < 0 && errno == ENOSYS)  // kernels before 5.6: ids are validated, no '..' or '/'
    fd = ::openat(root.fd(), rel.c_str(), flags | O_CLOEXEC | O_NOFOLLOW);
  return fd;
}

std::string shown(const Root& root, const std::string& rel) {
  return root.dir() == "/" ? "/" + rel : root.dir() + "/" + rel;
}

}  // namespace

Result<std::string> read_proc_file(const Root& root, const std::string& rel) {
  int fd = open_beneath(root, rel, O_RDONLY);
  if (fd < 0) return errno_error("cannot open", shown(root, rel));
  return read_all_and_close(fd, shown(root, rel));
}

Status write_proc_file(const Root& root, const std::string& rel, const std::string& text) {
  if (!root.is_live())
    return Error::invalid("refusing to write outside the live machine (--root " + root.dir() + ")",
                 shown(root, rel));
  int fd = open_beneath(root, rel, O_WRONLY);
  if (fd < 0) return errno_error("cannot open for writing", shown(root, rel));
  ssize_t n;
  do {
    n = ::write(fd, text.data(), text.size());
  } while (n < 0 && errno == EINTR);
  int e = errno;
  ::close(fd);
  if (n < 0) return errno_error("the kernel rejected '" + text + "'", shown(root, rel), e);
  if (static_cast<size_t>(n) != text.size())
    return Error::invalid("short write of '" + text + "'", shown(root, rel));
  return Ok{};
}

}  // namespace tuner
