#include "rollback/state_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vector>

#include <fmt/core.h>

#include "base/file_trust.h"

namespace tuner {

struct StateDir::Fds {
  UniqueFd dir, runs;
};

namespace {

// mkdir -p for the parents only; each one that exists is left as it is.
Status make_parents(const std::string& dir) {
  for (std::size_t pos = dir.find('/', 1); pos != std::string::npos; pos = dir.find('/', pos + 1)) {
    std::string parent = dir.substr(0, pos);
    if (::mkdir(parent.c_str(), 0755) != 0 && errno != EEXIST)
      return errno_error("cannot create directory", parent);
  }
  return Ok{};
}

}  // namespace

Result<UniqueFd> open_private_dir(int dirfd, const std::string& name, const std::string& shown,
                                  bool create, bool* created) {
  struct stat st {};
  if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
    return Error::invalid("is a symlink; refusing to use it as tuner's state directory", shown);
  if (create && ::mkdirat(dirfd, name.c_str(), 0700) == 0) {
    if (created) *created = true;
    // mkdirat obeys the umask; make the mode exact.
    if (::fchmodat(dirfd, name.c_str(), 0700, AT_SYMLINK_NOFOLLOW) != 0 && errno != ENOTSUP)
      return errno_error("cannot set mode 0700", shown);
  } else if (create && errno != EEXIST) {
    return errno_error("cannot create directory", shown);
  }
  UniqueFd fd(::openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) {
    if (errno == ELOOP)
      return Error::invalid("is a symlink; refusing to use it as tuner's state directory", shown);
    return errno_error("cannot open state directory", shown);
  }
  if (::fstat(fd.get(), &st) != 0) return errno_error("cannot stat", shown);
  // A reader (status, history as a monitoring user) may trust a directory root owns:
  // nobody else could have written it. Whoever writes must own it. The same rule as
  // for profiles (base/file_trust.h), without the sticky exception: nobody else writes.
  std::vector<uid_t> owners = {::geteuid()};
  if (!create) owners.push_back(0);
  std::string problem = untrusted_because(st, owners, false);
  if (problem.starts_with("is owned"))
    problem += fmt::format(", not by uid {} that runs tuner", ::geteuid());
  else if (!problem.empty()) problem += "; expected 0700";
  if (!problem.empty()) return Error::invalid(problem + "; refusing to use it", shown);
  return fd;
}

Status sync_dir(int dirfd, const std::string& shown) {
  if (::fsync(dirfd) != 0) return errno_error("cannot fsync directory", shown);
  return Ok{};
}

Result<StateDir> StateDir::open(const std::string& dir_in, bool create) {
  if (dir_in.empty()) return Error::invalid("empty state directory path", "--state-dir");
  std::string dir = dir_in;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (dir.find("/../") != std::string::npos || dir.ends_with("/..") || dir == "..")
    return Error::invalid("must not contain '..'", dir);
  std::string parent = ".", leaf = dir;
  if (auto slash = dir.rfind('/'); slash != std::string::npos) {
    parent = slash == 0 ? "/" : dir.substr(0, slash);
    leaf = dir.substr(slash + 1);
  }
  if (leaf.empty() || leaf == "." || leaf == "/")
    return Error::invalid("not a usable state directory", dir);
  if (create && dir[0] == '/') {
    if (auto s = make_parents(dir); !s.ok()) return s.error();
  }
  UniqueFd pfd(::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!pfd) return errno_error("cannot open", parent);
  bool created = false;
  auto fd = open_private_dir(pfd.get(), leaf, dir, create, &created);
  if (!fd.ok()) return fd.error();
  if (created) (void)sync_dir(pfd.get(), parent);  // the new entry itself
  StateDir sd;
  sd.fds_ = std::make_shared<Fds>();
  sd.fds_->dir = std::move(*fd);
  sd.path_ = dir;
  created = false;
  auto runs = open_private_dir(sd.fd(), "runs", sd.path_of("runs"), create, &created);
  if (!runs.ok()) {
    // A read-only user of a fresh directory (no runs yet) gets an empty runs view.
    if (create || runs.error().err != ENOENT) return runs.error();
  } else {
    sd.fds_->runs = std::move(*runs);
    if (created) (void)sync_dir(sd.fd(), dir);
  }
  return sd;
}

int StateDir::fd() const { return fds_ ? fds_->dir.get() : -1; }
int StateDir::runs_fd() const { return fds_ ? fds_->runs.get() : -1; }
std::string StateDir::path_of(std::string_view rel) const { return path_ + "/" + std::string(rel); }

}  // namespace tuner
