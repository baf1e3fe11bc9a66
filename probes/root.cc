#include "probes/root.h"

#include <algorithm>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fd_io.h"
#include "base/openat2.h"
#include "base/unique_fd.h"

namespace tuner {

namespace {

std::string_view relative(std::string_view path) {
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  return path.empty() ? std::string_view(".") : path;
}

}  // namespace

Result<Root> Root::open(const std::string& dir) {
  auto fd = std::make_shared<UniqueFd>(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!*fd) return errno_error("cannot open root directory", dir);
  Root r;
  r.fd_ = std::move(fd);
  r.dir_ = dir;
  struct stat a {
  }, b{};
  r.live_ = ::fstat(r.fd(), &a) == 0 && ::stat("/", &b) == 0 && a.st_dev == b.st_dev &&
            a.st_ino == b.st_ino;
  return r;
}

Root Root::live() {
  auto r = open("/");
  if (!r.ok()) throw FatalError(ExitCode::failure, r.error().message());
  return std::move(r).value();
}

int Root::fd() const { return fd_ ? fd_->get() : AT_FDCWD; }

Result<UniqueFd> Root::open_fd(std::string_view path, int flags) const {
  std::string rel(relative(path));
  int fd;
  if (live_) {
    fd = ::openat(this->fd(), rel.c_str(), O_RDONLY | O_CLOEXEC | flags);
  } else {
    fd = openat2_fd(this->fd(), rel.c_str(), O_RDONLY | O_CLOEXEC | flags, kResolveInRoot);
    if (fd < 0 && errno == ENOSYS)  // no openat2 here (base/openat2.h)
      fd = ::openat(this->fd(), rel.c_str(), O_RDONLY | O_CLOEXEC | flags);
  }
  if (fd < 0) return errno_error("cannot open", dir_ == "/" ? "/" + rel : dir_ + "/" + rel);
  return UniqueFd(fd);
}

Result<std::string> Root::read(std::string_view path) const {
  // O_NONBLOCK: a FIFO planted in a capture cannot hang the open or the read.
  auto fd = open_fd(path, O_NONBLOCK);
  if (!fd.ok()) return fd.error();
  return read_fd(fd->get(), std::string(path));
}

Result<std::vector<std::string>> Root::list(std::string_view path) const {
  auto fd = open_fd(path, O_DIRECTORY);
  if (!fd.ok()) return fd.error();
  UniqueFd owned = std::move(fd).value();
  DIR* d = ::fdopendir(owned.get());
  if (!d) return errno_error("cannot list", std::string(path));
  owned.release();  // closedir closes it
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    std::string_view n = e->d_name;
    if (n != "." && n != "..") names.emplace_back(n);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

Result<std::string> Root::readlink(std::string_view path) const {
  // Resolve the parent inside the root, then read the link itself.
  std::string rel(relative(path));
  std::string parent = ".", leaf = rel;
  if (auto slash = rel.rfind('/'); slash != std::string::npos) {
    parent = rel.substr(0, slash);
    leaf = rel.substr(slash + 1);
  }
  auto dir = open_fd(parent, O_DIRECTORY | O_PATH);
  if (!dir.ok()) return dir.error();
  char buf[4096];
  ssize_t n = ::readlinkat(dir->get(), leaf.c_str(), buf, sizeof buf - 1);
  if (n < 0) return errno_error("cannot read link", std::string(path));
  return std::string(buf, static_cast<size_t>(n));
}

Result<std::string> Root::link_name(std::string_view path) const {
  auto target = readlink(path);
  if (!target.ok()) return target.error();
  std::string t = *target;
  auto slash = t.rfind('/');
  return slash == std::string::npos ? t : t.substr(slash + 1);
}

bool Root::exists(std::string_view path) const { return open_fd(path, O_PATH).ok(); }

}  // namespace tuner
