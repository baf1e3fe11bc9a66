// adjtimex on this machine: the call must work (read only, no privilege needed) and say
// something the kernel can say; whether this machine is synchronised is its own business.
#include "probes/clock_sync.h"

#include <doctest/doctest.h>
#include <sys/timex.h>

namespace tuner {

TEST_CASE("clock sync: the live call reads the kernel's state") {
  auto c = read_clock_sync();
  REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().message()));
  CHECK(c->state >= TIME_OK);
  CHECK(c->state <= TIME_ERROR);
  CHECK(clock_state_name(c->state).starts_with("TIME_"));
  CHECK(c->maxerror_us >= 0);
  CHECK_FALSE(clock_status_names(c->status).empty());
  // The kernel reports TIME_ERROR whenever STA_UNSYNC is set (kernel/time/ntp.c).
  if (c->status_unsync()) CHECK(c->time_error());
}

TEST_CASE("clock sync: states and status bits by name") {
  CHECK(clock_state_name(TIME_OK) == "TIME_OK");
  CHECK(clock_state_name(TIME_ERROR) == "TIME_ERROR");
  CHECK(clock_state_name(42) == "42");
  CHECK(clock_status_names(0) == "none");
  CHECK(clock_status_names(STA_PLL | STA_NANO) == "PLL|NANO");
  ClockSync c;
  CHECK_FALSE(c.unsynchronised());
  c.status = STA_UNSYNC;
  CHECK(c.status_unsync());
  CHECK(c.unsynchronised());
  c = ClockSync{};
  c.state = TIME_ERROR;
  CHECK(c.unsynchronised());
}

}  // namespace tuner
