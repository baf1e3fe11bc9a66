// Test support: run the built tuner binary (TUNER_BINARY) and keep its exit code, stdout
// and stderr, as a user at a prompt would see them.
#pragma once

#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "base/runner.h"

namespace tuner::testing {

struct CliRun {
  int code = -1;  // exit status; -1 when killed by a signal
  std::string out, err;
  bool timed_out = false;  // killed at the timeout: it hung
};

/// Bounds for a run that must not hang or fill memory.
struct CliLimits {
  std::chrono::milliseconds timeout = std::chrono::minutes(2);
  /// RLIMIT_AS of the run in MiB (ulimit -v), 0 for none. Not applied under
  /// AddressSanitizer, which reserves terabytes of address space up front.
  std::size_t max_memory_mib = 0;
};

/// Whether this build runs under AddressSanitizer (and so cannot take RLIMIT_AS).
inline constexpr bool kAddressSanitizer =
#if defined(__SANITIZE_ADDRESS__)
    true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    true;
#else
    false;
#endif
#else
    false;
#endif

/// s as one word of shell text, whatever bytes it holds (but NUL).
inline std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// Runs "TUNER_BINARY ARGS" through /bin/sh (ARGS is shell text: quote what needs it,
/// shell_quote does; the binary's own path is passed as $0, so it needs no quoting).
/// stdin is /dev/null; a run past limits.timeout is killed and reported with code -1
/// and timed_out.
inline CliRun run_tuner(const std::string& args, const CliLimits& limits = {}) {
  RunSpec spec;
  std::string ulimit;
  if (limits.max_memory_mib && !kAddressSanitizer)
    ulimit = "ulimit -v " + std::to_string(limits.max_memory_mib * 1024) + " && ";
  spec.argv = {"/bin/sh", "-c", ulimit + "exec \"$0\" " + args, TUNER_BINARY};
  spec.timeout = limits.timeout;
  spec.kill_grace = std::chrono::milliseconds(500);
  ProcessRunner runner;
  auto r = runner.run(spec);
  if (!r) throw std::runtime_error("cannot run tuner: " + r.error().message());
  CliRun out;
  out.code = r->signal == 0 && !r->timed_out ? r->exit_code : -1;
  out.timed_out = r->timed_out;
  out.out = std::move(r->out);
  out.err = std::move(r->err);
  return out;
}

}  // namespace tuner::testing
