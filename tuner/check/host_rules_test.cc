// The host rules: CPU vulnerabilities on the R910 capture with the build VM's real
// vulnerabilities directory laid over it (tests/fixtures/host/vulnerabilities), and the
// clock through the adjtimex seam (GatherOptions::read_clock) and for real.
#include <doctest/doctest.h>
#include <sys/timex.h>

#include "tests/support/check_node.h"

namespace tuner {

using testing::check_one;
using testing::findings;
using testing::skipped;
using testing::unreadable;
using Node = testing::CheckNode;

TEST_CASE("check: CPU vulnerabilities the kernel reports, named with the microcode") {
  SUBCASE("captured: retbleed and spec_store_bypass say Vulnerable, a warning each") {
    Node node{"host/vulnerabilities/captured"};
    CheckReport r = node.check();
    auto got = findings(r, Rule::cpu_vulnerable);
    REQUIRE(got.size() == 2);
    CHECK(got[0]->subject == "retbleed");
    CHECK(got[1]->subject == "spec_store_bypass");
    for (const Finding* f : got) {
      CHECK(f->severity == Severity::warning);
      REQUIRE(f->evidence.size() == 3);
      CHECK(f->evidence[0].what == "sys/devices/system/cpu/vulnerabilities/" + f->subject);
      CHECK(f->evidence[0].value == "Vulnerable");
      CHECK(f->evidence[1].what == "proc/cpuinfo microcode");
      CHECK(f->evidence[1].value == "unknown");  // the R910's 2.6 kernel printed none
    }
    CHECK(r.findings.size() == 2);  // "Mitigation: ..." and "Not affected" are fine
  }
  SUBCASE("mitigated: nothing") {
    Node node{"host/vulnerabilities/mitigated"};
    CheckReport r = node.check();
    CHECK(findings(r, Rule::cpu_vulnerable).empty());
    CHECK_FALSE(skipped(r, Rule::cpu_vulnerable));
  }
  SUBCASE("the microcode revision is named where cpuinfo has one") {
    Node node{"host/vulnerabilities/captured"};
    CheckReport r =
        node.check({}, [](CheckInput& in) { in.inventory.host.microcode = "0x2b0004b1"; });
    CHECK(findings(r, Rule::cpu_vulnerable)[0]->summary.find("(microcode 0x2b0004b1)") !=
          std::string::npos);
  }
  SUBCASE("a kernel without the directory: skipped, and not for want of reading") {
    Node node;
    CheckReport r = node.check();
    CHECK(skipped(r, Rule::cpu_vulnerable));
    CHECK_FALSE(unreadable(r, Rule::cpu_vulnerable));
  }
}

namespace {

/// The live machine's target with an empty inventory: only the clock is read.
CheckReport check_clock_with(const std::function<Result<ClockSync>()>& read_clock,
                             int* calls = nullptr) {
  Target live{Root::live(), {}};
  GatherOptions opt;
  opt.read_clock = [&]() {
    if (calls) ++*calls;
    return read_clock();
  };
  return run_checks(gather_check_input(live, Inventory{}, opt));
}

ClockSync synced(int64_t offset_ns) {
  ClockSync c;
  c.status = STA_PLL | STA_NANO;
  c.offset_ns = offset_ns;
  c.maxerror_us = 12000;
  c.esterror_us = 300;
  return c;
}

}  // namespace

TEST_CASE("check: the clock, through the adjtimex seam") {
  SUBCASE("synchronised, 20 ms off: nothing") {
    CheckReport r = check_clock_with([] { return Result<ClockSync>(synced(20'000'000)); });
    CHECK(findings(r, Rule::clock_unsynchronised).empty());
    CHECK_FALSE(skipped(r, Rule::clock_unsynchronised));
  }
  SUBCASE("STA_UNSYNC: a warning with the kernel's words") {
    ClockSync c;
    c.state = TIME_ERROR;
    c.status = STA_UNSYNC;
    c.maxerror_us = 16000000;
    CheckReport r = check_clock_with([&] { return Result<ClockSync>(c); });
    check_one(r, Rule::clock_unsynchronised, "clock", Severity::warning);
    const Finding& f = *findings(r, Rule::clock_unsynchronised)[0];
    CHECK(f.summary.starts_with("the clock is not synchronised"));
    CHECK(f.evidence[0].value == "TIME_ERROR");
    CHECK(f.evidence[1].value == "UNSYNC");
  }
  SUBCASE("synchronised but 250 ms off, either way: a warning with the offset") {
    for (int64_t off : {250'000'000LL, -250'000'000LL}) {
      CheckReport r = check_clock_with([&] { return Result<ClockSync>(synced(off)); });
      check_one(r, Rule::clock_unsynchronised, "clock", Severity::warning);
      const Finding& f = *findings(r, Rule::clock_unsynchronised)[0];
      CHECK(f.summary.find(off > 0 ? "250.000 ms off" : "-250.000 ms off") != std::string::npos);
    }
  }
  SUBCASE("the call fails: skipped as unreadable") {
    CheckReport r = check_clock_with(
        [] { return Result<ClockSync>(errno_error("ntp_adjtime(modes=0)", "adjtimex", EPERM)); });
    CHECK(unreadable(r, Rule::clock_unsynchronised));
    CHECK(findings(r, Rule::clock_unsynchronised).empty());
  }
  SUBCASE("a capture: skipped, and adjtimex is not asked about this machine") {
    Node node;
    int calls = 0;
    GatherOptions opt;
    opt.read_clock = [&] {
      ++calls;
      return Result<ClockSync>(synced(0));
    };
    CheckReport r = node.check(opt);
    CHECK(calls == 0);
    CHECK(skipped(r, Rule::clock_unsynchronised));
    CHECK_FALSE(unreadable(r, Rule::clock_unsynchronised));
  }
}

TEST_CASE("check: the clock of this machine, for real") {
  // Whatever this machine's clock says is a valid answer; the call must work.
  Target live{Root::live(), {}};
  CheckReport r = run_checks(gather_check_input(live, Inventory{}, GatherOptions{}));
  CHECK_FALSE(skipped(r, Rule::clock_unsynchronised));
  auto got = findings(r, Rule::clock_unsynchronised);
  CHECK(got.size() <= 1);
  for (const Finding* f : got) CHECK(f->evidence[0].what == "adjtimex state");
}

}  // namespace tuner
