#include "probes/capture_check.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "base/fd_io.h"
#include "base/openat2.h"
#include "base/unique_fd.h"

namespace tuner {

namespace {

class CaptureWalk {
 public:
  explicit CaptureWalk(const Root& root) : root_(root) {}

  Status run() {
    // Iterative: a hostile tree can be deeper than the stack.
    std::vector<std::string> pending = {""};
    while (!pending.empty()) {
      std::string dir = std::move(pending.back());
      pending.pop_back();
      if (Status s = walk_dir(dir, pending); !s.ok()) return s;
    }
    return Ok{};
  }

 private:
  Status walk_dir(const std::string& rel, std::vector<std::string>& pending) {
    UniqueFd fd(::openat(root_.fd(), rel.empty() ? "." : rel.c_str(),
                         O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd) return errno_error("cannot list", shown(rel));
    DIR* d = ::fdopendir(fd.get());
    if (!d) return errno_error("cannot list", shown(rel));
    fd.release();  // closedir closes it
    Status result = Ok{};
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      if (++entries_ > kMaxCaptureEntries) {
        result = Error::invalid(
            fmt::format("more than {} files: not a capture of /proc and /sys", kMaxCaptureEntries),
            root_.dir());
        break;
      }
      std::string path = rel.empty() ? name : rel + "/" + name;
      struct stat st {};
      if (::fstatat(::dirfd(d), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        result = errno_error("cannot stat", shown(path));
        break;
      }
      if (S_ISDIR(st.st_mode)) {
        pending.push_back(path);
      } else if (S_ISREG(st.st_mode)) {
        result = check_size(path, st);
      } else if (S_ISLNK(st.st_mode)) {
        result = check_link(path);
      } else {
        result = refuse(path, file_type_name(st.st_mode));  // a FIFO, a device, a socket
      }
      if (!result.ok()) break;
    }
    ::closedir(d);
    return result;
  }

  // Resolves the link from the root as hwloc's openat would, but beneath it only.
  Status check_link(const std::string& path) {
    UniqueFd fd(openat2_fd(root_.fd(), path.c_str(), O_PATH | O_CLOEXEC,
                           kResolveBeneath | kResolveNoMagiclinks));
    if (!fd) {
      if (errno == EXDEV)
        return Error::invalid("a link that leads out of the capture (hwloc would follow it)",
                              shown(path));
      // Without openat2 (before Linux 5.6, or refused by a seccomp filter) the kernel
      // cannot say; a link hwloc cannot open either is fine.
      return Ok{};
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return errno_error("cannot stat", shown(path));
    if (S_ISREG(st.st_mode)) return check_size(path, st);
    if (S_ISDIR(st.st_mode)) return Ok{};
    return refuse(path, fmt::format("a link to {}", file_type_name(st.st_mode)));
  }

  // hwloc reads a file to its end: a sparse file of terabytes would take hours.
  Status check_size(const std::string& path, const struct stat& st) const {
    if (st.st_size >= 0 && static_cast<std::size_t>(st.st_size) <= kMaxFileBytes) return Ok{};
    return Error::invalid(
        fmt::format("larger than {} bytes: not a /proc or /sys file", kMaxFileBytes), shown(path));
  }

  Error refuse(const std::string& path, const std::string& kind) const {
    return Error::invalid(
        fmt::format("{}, not a file: a capture holds files, directories and links", kind),
        shown(path));
  }

  std::string shown(const std::string& rel) const {
    return rel.empty() ? root_.dir() : root_.dir() + "/" + rel;
  }

  const Root& root_;
  std::size_t entries_ = 0;
};

}  // namespace

Status check_capture(const Root& root) {
  if (root.is_live()) return Ok{};
  return CaptureWalk(root).run();
}

}  // namespace tuner
