// Error handling policy (after bpftrace's coding guidelines):
//  - Anything recoverable returns Result<T>: a value, or an Error naming what failed,
//    where (a path, a profile file:line:col, a knob id) and the errno when there is one.
//  - Only fatal user or environment errors throw FatalError; main() catches it once
//    and maps it to an exit code (2 bad input, 1 runtime failure).
#pragma once

#include <cerrno>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace tuner {

/// A recoverable failure: what went wrong, where, and the errno if a syscall failed.
struct Error {
  std::string what;
  std::string where;
  int err = 0;
  /// The kernel refused a write it is entitled to refuse (a managed IRQ): the change
  /// is skipped and reported, not fatal.
  bool refused = false;

  /// "where: what: strerror(err)" with empty parts left out.
  std::string message() const;
};

/// Builds an Error from the current errno.
Error errno_error(std::string what, std::string where, int err = errno);

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error error) : v_(std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }
  T value_or(T fallback) const { return ok() ? value() : std::move(fallback); }

 private:
  std::variant<T, Error> v_;
};

/// Result for operations that return nothing on success.
struct Ok {};
using Status = Result<Ok>;

enum class ExitCode : int { success = 0, failure = 1, bad_input = 2, changes_pending = 3 };

/// Thrown for fatal conditions only; caught in main().
class FatalError : public std::runtime_error {
 public:
  FatalError(ExitCode code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

/// Bad input or usage: exit 2, nothing was changed.
[[noreturn]] inline void fail_input(const std::string& message) {
  throw FatalError(ExitCode::bad_input, message);
}
/// Runtime failure: exit 1.
[[noreturn]] inline void fail_runtime(const std::string& message) {
  throw FatalError(ExitCode::failure, message);
}

}  // namespace tuner
