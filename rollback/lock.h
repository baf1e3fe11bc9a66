// Lock: one tuner at a time changes the machine. A non-blocking flock on
// <state-dir>/lock, held for the life of the object (the kernel drops it if we die);
// the holder's pid is written into the file so the loser can name it.
#pragma once

#include "base/result.h"
#include "rollback/state_dir.h"

namespace tuner {

class Lock {
 public:
  Lock() = default;
  Lock(Lock&&) noexcept;
  Lock& operator=(Lock&&) noexcept;
  Lock(const Lock&) = delete;
  ~Lock();

  /// Takes the lock or fails at once: "another tuner (pid N) is changing this machine".
  static Result<Lock> acquire(const StateDir& dir);
  bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

}  // namespace tuner
