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

/// What kind of failure, so callers decide without reading the text (STYLE.md 13).
enum class ErrorKind {
  io,           // a syscall or I/O failed for a reason not below (EIO, ENOSPC, ...)
  invalid,      // bad input: a profile value, a knob id, a malformed file or record
  missing,      // the thing does not exist: no such file, key, interface, IRQ, unit
  denied,       // permission: EACCES, EPERM, EROFS
  refused,      // the kernel refused a write it is entitled to refuse (a managed IRQ):
                // the change is skipped and reported, not fatal
  unsupported,  // the kernel or device does not support it: EOPNOTSUPP, ENOSYS
  busy,         // held by someone else: EBUSY, EAGAIN, a lock
};

/// "io", "invalid", ... for JSON and the journal.
const char* error_kind_name(ErrorKind kind);

/// A recoverable failure: what went wrong, where, the errno if a syscall failed, and
/// its kind. Every Error says its kind: build one with a named constructor (or the
/// constructor, which takes the kind first); errno_error() derives the kind from the
/// errno. There is no default kind, so the compiler finds every place that builds one.
struct Error {
  Error(ErrorKind kind, std::string what, std::string where = {}, int err = 0)
      : what(std::move(what)), where(std::move(where)), err(err), kind(kind) {}

  std::string what;
  std::string where;
  int err = 0;
  ErrorKind kind;

  static Error invalid(std::string what, std::string where = {});
  static Error missing(std::string what, std::string where = {}, int err = 0);
  static Error denied(std::string what, std::string where = {}, int err = 0);
  static Error refused(std::string what, std::string where = {}, int err = 0);
  static Error unsupported(std::string what, std::string where = {}, int err = 0);
  static Error busy(std::string what, std::string where = {}, int err = 0);
  static Error io(std::string what, std::string where = {}, int err = 0);

  bool is(ErrorKind k) const { return kind == k; }
  /// The same failure seen from further out: `outer` goes in front of where, kind and
  /// errno are kept. ("nic:eth0:link" + "eth0: ETHTOOL_MSG_LINKMODES_SET").
  Error context(const std::string& outer) const;
  /// The same failure named by a label, the one form for it: where becomes
  /// "label (where)", or the label alone when where is empty ("sysctl:vm.swappiness
  /// (proc/sys/vm/swappiness)"). Kind and errno are kept.
  Error labelled(const std::string& label) const;
  /// "where: what: strerror(err)" with empty parts left out.
  std::string message() const;
};

/// Builds an Error from an errno; the kind follows from it (ENOENT -> missing, EACCES
/// -> denied, EOPNOTSUPP -> unsupported, EBUSY -> busy, else io).
Error errno_error(std::string what, std::string where, int err = errno);
/// The kind an errno stands for.
ErrorKind kind_of_errno(int err);

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
