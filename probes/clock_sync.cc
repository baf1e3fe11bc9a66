#include "probes/clock_sync.h"

#include <sys/timex.h>

#include <cerrno>

namespace tuner {

bool ClockSync::status_unsync() const { return (status & STA_UNSYNC) != 0; }
bool ClockSync::time_error() const { return state == TIME_ERROR; }

Result<ClockSync> read_clock_sync() {
  struct timex tx {};
  tx.modes = 0;  // read only: an unprivileged process may ask too
  int state = ::ntp_adjtime(&tx);
  if (state < 0) return errno_error("ntp_adjtime(modes=0)", "adjtimex");
  ClockSync c;
  c.state = state;
  c.status = tx.status;
  c.offset_ns = (tx.status & STA_NANO) ? tx.offset : tx.offset * 1000;
  c.maxerror_us = tx.maxerror;
  c.esterror_us = tx.esterror;
  return c;
}

std::string clock_state_name(int state) {
  switch (state) {
    case TIME_OK: return "TIME_OK";
    case TIME_INS: return "TIME_INS";
    case TIME_DEL: return "TIME_DEL";
    case TIME_OOP: return "TIME_OOP";
    case TIME_WAIT: return "TIME_WAIT";
    case TIME_ERROR: return "TIME_ERROR";
  }
  return std::to_string(state);
}

std::string clock_status_names(int status) {
  static constexpr struct {
    int bit;
    const char* name;
  } kBits[] = {{STA_PLL, "PLL"},
               {STA_PPSFREQ, "PPSFREQ"},
               {STA_PPSTIME, "PPSTIME"},
               {STA_FLL, "FLL"},
               {STA_INS, "INS"},
               {STA_DEL, "DEL"},
               {STA_UNSYNC, "UNSYNC"},
               {STA_FREQHOLD, "FREQHOLD"},
               {STA_PPSSIGNAL, "PPSSIGNAL"},
               {STA_PPSJITTER, "PPSJITTER"},
               {STA_PPSWANDER, "PPSWANDER"},
               {STA_PPSERROR, "PPSERROR"},
               {STA_CLOCKERR, "CLOCKERR"},
               {STA_NANO, "NANO"},
               {STA_MODE, "MODE"},
               {STA_CLK, "CLK"}};
  std::string out;
  for (const auto& b : kBits)
    if (status & b.bit) out += (out.empty() ? "" : "|") + std::string(b.name);
  return out.empty() ? "none" : out;
}

}  // namespace tuner
