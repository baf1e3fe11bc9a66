#include "base/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <random>

#include "base/unique_fd.h"

namespace tuner {

Status write_file_atomic(const std::string& path, const std::string& text, unsigned mode) {
  if (path.empty()) return Error::invalid("empty file name", "");
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
  std::size_t off = 0;
  while (off < text.size()) {
    ssize_t n = ::write(fd.get(), text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail("cannot write", n < 0 ? errno : ENOSPC);
    off += static_cast<std::size_t>(n);
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
