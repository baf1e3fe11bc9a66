// Interrupt: SIGINT, SIGTERM and SIGHUP while tuner changes the machine. Ctrl-C,
// `systemctl stop`, a unit's start timeout and a dropped SSH session all send one of
// these; dying at once would leave a group at its candidate values and a benchmark's
// process group running. Once catch_interrupts() is called, a signal is only recorded:
// the code that waits (ProcessRunner with RunSpec::stop_on_interrupt, SteadyClock's
// sleeps, the verify loop between trials) notices, stops what it runs, and the caller
// puts back what the run changed and exits 128 + the signal. Further signals are
// recorded too and change nothing: they cannot interrupt that rollback (STYLE.md: one
// seam per OS surface; DESIGN.md "Exit codes").
#pragma once

#include <chrono>
#include <string>

#include "base/result.h"

namespace tuner {

/// Installs the handlers (once; later calls do nothing). `what` is said on stderr when
/// the first signal arrives, after "tuner: SIGINT received: ", e.g. "stopping the
/// benchmark and putting back what this run changed".
void catch_interrupts(const char* what);

/// The first signal received since catch_interrupts(), or 0.
int interrupt_signal();

/// A descriptor that polls readable once a signal was received (and stays so), or -1
/// when catch_interrupts() was never called.
int interrupt_fd();

/// "interrupted by SIGTERM" as an Error, when a signal was received; else Ok.
Status check_interrupt();

/// "SIGINT", "SIGTERM", "SIGHUP", or "signal N".
std::string signal_name(int signal);

/// Sleeps for d, or until a signal is received, whichever is first.
void sleep_unless_interrupted(std::chrono::nanoseconds d);

/// Test hook: the default dispositions back, the descriptor closed, a received signal
/// forgotten; catch_interrupts() may be called again.
void release_interrupts_for_test();

}  // namespace tuner
