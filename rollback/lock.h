// Lock: one tuner at a time changes the machine. A non-blocking flock on
// <state-dir>/lock, held for the life of the object (the kernel drops it if we die);
// the holder's pid is written into the file so the loser can name it.
#pragma once

#include "base/result.h"
#include "base/unique_fd.h"
#include "rollback/state_dir.h"

namespace tuner {

/// Move-only; destroying the holder closes the last fd, which releases the flock.
class Lock {
 public:
  /// Takes the lock or fails at once: "another tuner (pid N) is changing this machine".
  static Result<Lock> acquire(const StateDir& dir);
  bool held() const { return fd_.valid(); }

 private:
  UniqueFd fd_;
};

}  // namespace tuner
