// StateDir: the directory that holds tuner's durable state (DESIGN.md "Durable state"):
// runs/<run-id>.journal, state.json and the lock file. It is opened once, by fd, and
// never through a symlink, so a hostile link cannot redirect where tuner writes.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"
#include "base/unique_fd.h"

namespace tuner {

class StateDir {
 public:
  /// Opens DIR (O_DIRECTORY|O_NOFOLLOW). With create, a missing DIR is made with its
  /// parents (parents 0755, DIR itself 0700) together with DIR/runs. Refuses a symlink,
  /// a directory owned by another user (without create, root's is accepted too: a
  /// non-root reader of a state dir made readable to it), or one that is
  /// group/world-writable.
  static Result<StateDir> open(const std::string& dir, bool create);

  int fd() const;
  /// DIR/runs, opened the same careful way.
  int runs_fd() const;
  const std::string& path() const { return path_; }
  /// For messages: DIR/rel.
  std::string path_of(std::string_view rel) const;

 private:
  struct Fds;
  std::shared_ptr<Fds> fds_;
  std::string path_;
};

/// Opens name under dirfd as a directory without following a symlink and checks owner
/// and mode; `shown` names it in errors. *created says whether it was made now.
Result<UniqueFd> open_private_dir(int dirfd, const std::string& name, const std::string& shown,
                                  bool create, bool* created = nullptr);

/// fsync on a directory fd, so a created or renamed entry survives a crash.
Status sync_dir(int dirfd, const std::string& shown);

}  // namespace tuner
