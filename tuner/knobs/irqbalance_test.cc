#include <algorithm>
#include <filesystem>

#include <doctest/doctest.h>

#include "tests/support/fake_systemctl.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"
#include "tuner/knobs/knob.h"

namespace tuner {

using testing::FakeSystemctl;
using testing::slurp;
using testing::TempDir;

namespace {

// Debian 12's irqbalance.service next to the drop-ins, as in /etc/systemd/system.
void install_debian_unit(const std::string& dir) {
  std::filesystem::copy_file(std::string(TUNER_TEST_DATA) + "/knobs/irqbalance.service",
                             dir + "/irqbalance.service");
}

}  // namespace

TEST_CASE("irqbalance knob: unknown ids and values are refused") {
  KnobContext ctx{Root::live()};
  CHECK(!make_knob("irqbalance:bogus", ctx).ok());
  CHECK(!make_knob("irqbalance:", ctx).ok());
  auto k = make_knob("irqbalance:banned", ctx);
  REQUIRE(k.ok());
  for (const char* bad : {"57,x", "-1", "57;58", "1e3", "99999999"})
    CHECK_MESSAGE(!(*k)->canonical(bad).ok(), bad);
  // IRQs must exist on the live machine.
  auto missing = (*k)->canonical("1048575");
  REQUIRE(!missing.ok());
  CHECK(missing.error().what.find("/proc/irq/1048575") != std::string::npos);
  auto s = make_knob("irqbalance:service", ctx);
  REQUIRE(s.ok());
  CHECK(!(*s)->canonical("running").ok());
}

TEST_CASE("irqbalance banned: drop-in keeps IRQBALANCE_ARGS and restarts only if active") {
  TempDir tmp;
  install_debian_unit(tmp.path);
  FakeSystemctl sc;
  KnobContext ctx{Root::live()};
  ctx.systemctl = &sc;
  ctx.systemd_dir = tmp.path;
  auto k = make_knob("irqbalance:banned", ctx);
  REQUIRE(k.ok());
  CHECK(*(*k)->read() == "none");
  // Canonical: sorted, without repeats (only IRQs this machine has).
  std::vector<std::string> irqs;
  for (const auto& e : std::filesystem::directory_iterator("/proc/irq"))
    if (e.is_directory()) irqs.push_back(e.path().filename());
  if (irqs.size() < 2) {
    MESSAGE("skipped: needs two IRQs in /proc/irq");
    return;
  }
  std::sort(irqs.begin(), irqs.end(),
            [](auto& a, auto& b) { return std::stoul(a) < std::stoul(b); });
  std::string a = irqs[0], b = irqs[1];
  std::string want = a + "," + b;
  CHECK(*(*k)->canonical(b + "," + a + "," + b) == want);
  REQUIRE((*k)->write(b + "," + a).ok());
  std::string text = slurp(tmp.path + "/irqbalance.service.d/tuner-ban.conf");
  CHECK(text.find("Environment=\"TUNER_IRQBALANCE_BANNED=--banirq=" + a + " --banirq=" + b +
                  "\"\n") != std::string::npos);
  CHECK(text.find("ExecStart=\nExecStart=/usr/sbin/irqbalance --foreground $IRQBALANCE_ARGS "
                  "$TUNER_IRQBALANCE_BANNED\n") != std::string::npos);
  CHECK(*(*k)->read() == want);
  CHECK(sc.calls == std::vector<std::string>{"is-active irqbalance.service", "daemon-reload",
                                             "restart irqbalance.service"});
  // An admin's drop-in that changes ExecStart is built on, not lost.
  {
    std::ofstream(tmp.path + "/irqbalance.service.d/10-admin.conf")
        << "[Service]\nExecStart=\nExecStart=/usr/sbin/irqbalance --foreground --policyscript=/x "
           "$IRQBALANCE_ARGS\n";
  }
  sc.calls.clear();
  sc.active = "inactive";
  REQUIRE((*k)->write(a).ok());
  CHECK(slurp(tmp.path + "/irqbalance.service.d/tuner-ban.conf")
            .find("ExecStart=/usr/sbin/irqbalance --foreground --policyscript=/x $IRQBALANCE_ARGS "
                  "$TUNER_IRQBALANCE_BANNED\n") != std::string::npos);
  CHECK(sc.calls == std::vector<std::string>{"is-active irqbalance.service", "daemon-reload"});
  REQUIRE((*k)->write("none").ok());
  CHECK(!std::filesystem::exists(tmp.path + "/irqbalance.service.d/tuner-ban.conf"));
  CHECK(*(*k)->read() == "none");
}

TEST_CASE("irqbalance banned: no unit installed is an error that writes nothing") {
  TempDir tmp;
  FakeSystemctl sc;
  KnobContext ctx{Root::live()};
  ctx.systemctl = &sc;
  ctx.systemd_dir = tmp.path;
  auto k = make_knob("irqbalance:banned", ctx);
  REQUIRE(k.ok());
  if (std::filesystem::exists("/lib/systemd/system/irqbalance.service") ||
      std::filesystem::exists("/usr/lib/systemd/system/irqbalance.service")) {
    MESSAGE("skipped: irqbalance is installed on this machine");
    return;
  }
  std::string irq;
  for (const auto& e : std::filesystem::directory_iterator("/proc/irq"))
    if (e.is_directory()) irq = e.path().filename();
  REQUIRE(!irq.empty());
  auto st = (*k)->write(irq);
  REQUIRE(!st.ok());
  CHECK(st.error().what.find("irqbalance.service is not installed") != std::string::npos);
  CHECK(std::filesystem::is_empty(tmp.path));
  CHECK(sc.calls.empty());
}

TEST_CASE("irqbalance service: start and stop through systemctl, refused without systemd") {
  FakeSystemctl sc;
  KnobContext ctx{Root::live()};
  ctx.systemctl = &sc;
  auto k = make_knob("irqbalance:service", ctx);
  REQUIRE(k.ok());
  sc.active = "failed";
  CHECK(*(*k)->read() == "inactive");
  REQUIRE((*k)->write("active").ok());
  CHECK(*(*k)->read() == "active");
  REQUIRE((*k)->write("inactive").ok());
  // Each write reads the state before, asks, and reads it back.
  CHECK(std::find(sc.calls.begin(), sc.calls.end(), "start irqbalance.service") != sc.calls.end());
  CHECK(std::find(sc.calls.begin(), sc.calls.end(), "stop irqbalance.service") != sc.calls.end());
  sc.is_running = false;
  sc.calls.clear();
  auto st = (*k)->write("active");
  REQUIRE(!st.ok());
  CHECK(st.error().what == "irqbalance is not managed by systemd here");
  CHECK(sc.calls.empty());
}

}  // namespace tuner
