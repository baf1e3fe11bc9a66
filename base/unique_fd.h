// UniqueFd: the one owner of a file descriptor (STYLE.md 14). Every descriptor tuner
// opens is held by one of these from the moment it exists, so an early return cannot
// leak it and no path closes it twice.
#pragma once

#include <unistd.h>

namespace tuner {

/// Owns one descriptor (or none, -1) and closes it on destruction. Move-only: the
/// moved-from object owns nothing.
class UniqueFd {
 public:
  UniqueFd() = default;
  /// Takes ownership of fd; a negative fd (a failed open) means "none".
  explicit UniqueFd(int fd) noexcept : fd_(fd < 0 ? -1 : fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  /// The descriptor, still owned here; -1 when none.
  int get() const noexcept { return fd_; }
  bool valid() const noexcept { return fd_ >= 0; }
  explicit operator bool() const noexcept { return valid(); }

  /// Gives the descriptor up without closing it: the caller owns it now.
  int release() noexcept {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  /// Closes what is owned (if anything) and takes fd instead. close() is not retried
  /// on EINTR: on Linux the descriptor is gone either way, and a retry could close a
  /// descriptor another thread has just been given.
  void reset(int fd = -1) noexcept {
    int old = fd_;
    fd_ = fd < 0 ? -1 : fd;
    if (old >= 0 && old != fd_) ::close(old);
  }

 private:
  int fd_ = -1;
};

}  // namespace tuner
