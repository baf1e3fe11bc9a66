// Runner: the one seam through which tuner starts child processes (STYLE.md "one seam
// per OS surface"). A command is an argument vector, never shell text: nothing a
// profile says can be interpreted by /bin/sh. Every run is bounded: its output is
// capped, and at its timeout its whole process group gets SIGTERM, then SIGKILL.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace tuner {

/// What to run and within which bounds.
struct RunSpec {
  /// argv[0] is a path, or a bare name searched in $PATH (find_executable).
  std::vector<std::string> argv;
  /// Wall time after which the child's process group is sent SIGTERM.
  std::chrono::milliseconds timeout{30'000};
  /// After SIGTERM, how long the group has to exit before SIGKILL.
  std::chrono::milliseconds kill_grace{2'000};
  /// Bytes kept of stdout and of stderr, each; the rest is read and dropped.
  std::size_t max_output = 16u << 20;
  /// Which max_output bytes are kept: the first, or the last (a bounded ring: a
  /// benchmark prints its summary, and an error its reason, at the end).
  enum class Keep { head, tail };
  Keep keep = Keep::head;
  /// A benchmark: when tuner is interrupted (base/interrupt.h), its process group gets
  /// SIGTERM at once, then SIGKILL after kill_grace, and the result says `interrupted`.
  /// Off for the commands a rollback itself runs (systemctl), which must finish.
  bool stop_on_interrupt = false;
};

/// How a run ended. A command that ran and failed is a RunResult, not an Error: the
/// caller decides what a non-zero status means.
struct RunResult {
  int exit_code = -1;        // exit status when it exited, else -1
  int signal = 0;            // signal that killed it, else 0
  bool timed_out = false;    // killed by us at the timeout
  bool interrupted = false;  // killed by us because tuner got a signal (stop_on_interrupt)
  std::string out, err;      // captured stdout and stderr (max_output bytes each, spec.keep)
  bool out_truncated = false, err_truncated = false;
  std::chrono::nanoseconds elapsed{0};

  /// Exited on its own with status 0.
  bool success() const { return exit_code == 0 && signal == 0 && !timed_out; }
  /// "exited with status 3", "was killed by signal 9 (Killed)", "timed out after 30 s
  /// and was killed": a phrase for messages that name the command first.
  std::string describe(const RunSpec& spec) const;
  /// The last `lines` non-empty lines of stderr (at most 1 KiB), for error messages.
  std::string stderr_tail(std::size_t lines = 5) const;
};

class Runner {
 public:
  virtual ~Runner() = default;
  /// Runs spec.argv to completion (or to its timeout). An Error only when the command
  /// could not be started at all (not found, not executable, no pipes).
  virtual Result<RunResult> run(const RunSpec& spec) = 0;
};

/// The real thing: posix_spawn, stdin from /dev/null, no inherited descriptors beyond
/// 0-2, default signal dispositions, its own process group.
class ProcessRunner : public Runner {
 public:
  Result<RunResult> run(const RunSpec& spec) override;
};

/// The path that running `name` would execute: `name` itself when it contains a '/',
/// else the first executable regular file named so in $PATH (default
/// "/usr/local/bin:/usr/bin:/bin" when $PATH is unset). Errors say which and why.
Result<std::string> find_executable(std::string_view name);

/// Marks every descriptor of this process from 3 up close-on-exec (read from
/// /proc/self/fd): what a spawn does where glibc has no posix_spawn closefrom action.
void mark_inherited_cloexec();

}  // namespace tuner
