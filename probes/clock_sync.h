// The kernel's clock discipline as adjtimex(2) reads it: whether an NTP daemon (chronyd,
// ntpd, systemd-timesyncd) has told the kernel the clock is synchronised, and the offset
// it last handed the kernel's PLL. Read with modes = 0, which sets nothing. Only the
// machine we run on has one: a capture's files do not hold it.
#pragma once

#include <cstdint>
#include <string>

#include "base/result.h"

namespace tuner {

/// What ntp_adjtime(3) said.
struct ClockSync {
  int state = 0;            // the call's value: TIME_OK (0) .. TIME_ERROR (5)
  int status = 0;           // STA_* bits; STA_UNSYNC: no daemon says the clock is right
  int64_t offset_ns = 0;    // the PLL's offset (timex.offset: ns with STA_NANO, else us)
  int64_t maxerror_us = 0;  // the kernel's bound on the error; grows 500 ppm while unsynced
  int64_t esterror_us = 0;  // the daemon's estimate of it

  /// STA_UNSYNC: no daemon has said the clock is right (set at boot, and by the kernel
  /// when maxerror passes 16 s).
  bool status_unsync() const;
  /// The call returned TIME_ERROR (STA_UNSYNC, or a PPS signal the kernel distrusts).
  bool time_error() const;
  bool unsynchronised() const { return status_unsync() || time_error(); }
};

/// ntp_adjtime with modes = 0 on this machine; an Error names the call and errno.
Result<ClockSync> read_clock_sync();

/// "TIME_OK", "TIME_INS", "TIME_DEL", "TIME_OOP", "TIME_WAIT", "TIME_ERROR", else the number.
std::string clock_state_name(int state);
/// The STA_* bits set, "PLL|NANO", or "none".
std::string clock_status_names(int status);

}  // namespace tuner
