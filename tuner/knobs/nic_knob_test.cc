// The nic knobs against tests/support's fake ethtool netlink, which behaves like the
// kernel's LINKMODES_SET (advertised modes rebuilt from speed/duplex filters) and
// records every SET, with a link partner that only links at some speeds and drivers
// that lie. Time is a FakeClock: waiting for a link takes no time.
#include <doctest/doctest.h>

#include "base/clock.h"
#include "tests/support/fake_netlink.h"
#include "tuner/knobs/knob.h"
#include "tuner/knobs/nic_knob.h"
#include "tuner/knobs/nic_value.h"

namespace tuner {

namespace {

using testing::FakeNetlink;

struct Fixture {
  FakeNetlink nl;
  FakeClock clock;
  KnobContext ctx{Root::live()};
  Fixture() {
    ctx.ethtool = &nl;
    ctx.clock = &clock;
    ctx.link_timeout_ms = 50;
  }
  // "lo" exists on every machine, so make_knob's existence check passes.
  std::unique_ptr<Knob> knob(const std::string& attr) {
    auto k = make_knob("nic:lo:" + attr, ctx);
    REQUIRE_MESSAGE(k.ok(), (k.ok() ? "" : k.error().message()));
    return std::move(k).value();
  }
};

}  // namespace

TEST_CASE("nic knob: ids are validated before anything else") {
  Fixture f;
  for (const char* bad : {"nic:../x:link", "nic:lo:bogus", "nic:lo/..:link"})
    CHECK_MESSAGE(!make_knob(bad, f.ctx).ok(), bad);
  auto missing = make_knob("nic:tuner-nope0:link", f.ctx);
  REQUIRE(!missing.ok());
  CHECK(missing.error().what.find("no such network interface") != std::string::npos);
  CHECK(f.nl.link_sets.empty());
}

TEST_CASE("nic knob: link read and canonical forms") {
  Fixture f;
  auto k = f.knob("link");
  CHECK(*k->read() == "autoneg=on");
  CHECK(*k->canonical("duplex=full,autoneg=on,speed=1000") == "autoneg=on,speed=1000,duplex=full");
  // 1000 Mb/s only exists at full duplex here: the filters mean the same modes.
  CHECK(*k->canonical("autoneg=on,speed=1000") == "autoneg=on,speed=1000,duplex=full");
  CHECK(*k->canonical("autoneg=on,speed=100") == "autoneg=on,speed=100");
  auto no = k->canonical("autoneg=off,speed=25000,duplex=full");
  REQUIRE(!no.ok());
  CHECK(no.error().what.find("1000baseT/Full") != std::string::npos);  // lists what exists
  CHECK(!k->canonical("autoneg=on,speed=1000,duplex=half").ok());
}

TEST_CASE("nic knob: restricting the advertised modes and rolling back") {
  Fixture f;
  auto k = f.knob("link");
  REQUIRE(k->write("autoneg=on,speed=100,duplex=full").ok());
  CHECK(*k->read() == "autoneg=on,speed=100,duplex=full");
  CHECK(*f.nl.link.speed_mbps == 100);
  REQUIRE(f.nl.link_sets.size() == 1);
  CHECK(*f.nl.link_sets[0].speed_mbps == 100);
  // Back to everything: with full and half modes supported no speed/duplex filter
  // describes "all", so the knob names the supported modes (OURS bitset).
  REQUIRE(k->write("autoneg=on").ok());
  CHECK(*k->read() == "autoneg=on");
  CHECK(f.nl.link_sets.back().advertise == f.nl.link.supported_modes);
  CHECK(f.nl.link.advertised_modes == f.nl.link.supported_modes);
  CHECK(*f.nl.link.speed_mbps == 1000);
  // An advertised set that only a list describes is written back as that list.
  auto listed = k->write("autoneg=on,advertise=1000baseT/Full+10baseT/Full");
  std::string why = listed.ok() ? std::string() : listed.error().message();
  INFO(why);
  REQUIRE(listed.ok());
  CHECK(*k->read() == "autoneg=on,advertise=1000baseT/Full+10baseT/Full");
}

TEST_CASE("nic knob: a forced speed that works is kept") {
  Fixture f;
  auto k = f.knob("link");
  REQUIRE(k->write("autoneg=off,speed=100,duplex=full").ok());
  CHECK(*k->read() == "autoneg=off,speed=100,duplex=full");
  CHECK(f.nl.link_sets.size() == 1);
}

TEST_CASE("nic knob: link that does not come back is reverted") {
  Fixture f;
  f.nl.partner_speeds = {1000};
  auto k = f.knob("link");
  auto st = k->write("autoneg=off,speed=100,duplex=full");
  REQUIRE(!st.ok());
  CHECK(st.error().where == "nic:lo:link");
  CHECK(st.error().what.find("link did not come back within 50 ms") != std::string::npos);
  CHECK(st.error().what.find("; reverted") != std::string::npos);
  REQUIRE(f.nl.link_sets.size() == 2);  // the change, then the revert
  CHECK(*f.nl.link_sets[1].autoneg);
  CHECK(*k->read() == "autoneg=on");
  CHECK(*f.nl.link.up);
  // It waited the whole timeout for the change, then briefly for the revert.
  CHECK(f.clock.slept() >= std::chrono::milliseconds(50));
  CHECK(f.clock.slept() < std::chrono::milliseconds(100));
}

TEST_CASE("nic knob: a link that was down is not waited for") {
  Fixture f;
  f.nl.partner_speeds = {};
  f.nl.update_state();
  auto k = f.knob("link");
  REQUIRE(k->write("autoneg=off,speed=10,duplex=half").ok());
  CHECK(*k->read() == "autoneg=off,speed=10,duplex=half");
  CHECK(f.clock.slept() == Clock::duration::zero());
}

TEST_CASE("nic knob: a driver that reports something else is reverted") {
  Fixture f;
  f.nl.driver_reports_full_duplex = true;
  f.nl.partner_speeds = {100, 1000};
  auto k = f.knob("link");
  auto st = k->write("autoneg=off,speed=100,duplex=half");
  REQUIRE(!st.ok());
  CHECK(st.error().what.find("the driver reports 'autoneg=off,speed=100,duplex=full'") !=
        std::string::npos);
  CHECK(st.error().what.find("; reverted") != std::string::npos);
  CHECK(f.nl.link_sets.size() == 2);
  CHECK(*k->read() == "autoneg=on");
}

TEST_CASE("nic knob: a kernel refusal carries its text and changes nothing") {
  Fixture f;
  f.nl.refuse = errno_error(
      "link settings cannot be changed (extack: \"forced speed not supported\")", "lo", EOPNOTSUPP);
  auto k = f.knob("link");
  auto st = k->write("autoneg=off,speed=1000,duplex=full");
  REQUIRE(!st.ok());
  CHECK(st.error().err == EOPNOTSUPP);
  CHECK(st.error().message().find("forced speed not supported") != std::string::npos);
  CHECK(st.error().message().find("nic:lo:link") != std::string::npos);
  CHECK(f.nl.link_sets.size() == 1);  // no revert needed: nothing moved
  CHECK(*k->read() == "autoneg=on");
}

TEST_CASE("nic knob: channels merge, check maxima, set and read back") {
  Fixture f;
  auto k = f.knob("channels");
  CHECK(*k->read() == "other=1,combined=4");
  CHECK(*k->canonical("combined=8") == "other=1,combined=8");
  auto over = k->canonical("combined=9");
  REQUIRE(!over.ok());
  CHECK(over.error().what.find("maximum of 8") != std::string::npos);
  CHECK(!k->canonical("rx=4,tx=4").ok());  // this device has combined queues only
  REQUIRE(k->write("combined=8").ok());
  CHECK(*k->read() == "other=1,combined=8");
  REQUIRE(f.nl.channel_sets.size() == 1);
  CHECK(*f.nl.channel_sets[0].combined == 8);
  CHECK(f.nl.link_sets.empty());
}

TEST_CASE("nic knob: rings that the driver rounds are reverted") {
  Fixture f;
  auto k = f.knob("rings");
  CHECK(*k->read() == "rx=256,tx=256");
  REQUIRE(k->write("rx=4096,tx=4096").ok());
  CHECK(*k->read() == "rx=4096,tx=4096");
  CHECK(!k->canonical("rx=8192").ok());
  // A driver that rounds 1000 up to a power of two, 1024, did not do what was asked.
  struct Rounding : FakeNetlink {
    Status set_rings(const std::string& n, const Rings& r) override {
      Rings up = r;
      if (up.rx) {
        uint32_t p2 = 1;
        while (p2 < *up.rx) p2 *= 2;
        up.rx = p2;
      }
      return FakeNetlink::set_rings(n, up);
    }
  } rounding;
  f.ctx.ethtool = &rounding;
  auto k2 = f.knob("rings");
  auto st = k2->write("rx=1000");
  REQUIRE(!st.ok());
  CHECK(st.error().what.find("reports 'rx=1024,tx=256'") != std::string::npos);
  CHECK(*k2->read() == "rx=256,tx=256");
}

TEST_CASE("nic knob: coalesce fills what the value leaves out and sends only what changes") {
  Fixture f;
  auto k = f.knob("coalesce");
  CHECK(*k->read() == "rx-usecs=50,tx-usecs=50,adaptive-rx=on");
  CHECK(*k->canonical("adaptive-rx=off,rx-usecs=8") == "rx-usecs=8,tx-usecs=50,adaptive-rx=off");
  REQUIRE(k->write("rx-usecs=8,adaptive-rx=off").ok());
  CHECK(*k->read() == "rx-usecs=8,tx-usecs=50,adaptive-rx=off");
  REQUIRE(f.nl.coalesce_sets.size() == 1);
  const Coalesce& sent = f.nl.coalesce_sets[0];
  CHECK(sent.rx_usecs == 8u);
  CHECK(sent.adaptive_rx == false);
  CHECK_FALSE(sent.tx_usecs.has_value());  // unchanged: not sent
  REQUIRE(k->write("rx-usecs=8").ok());    // nothing differs: nothing sent
  CHECK(f.nl.coalesce_sets.size() == 1);
  // Rollback's write of the before value puts every field back.
  REQUIRE(k->write("rx-usecs=50,tx-usecs=50,adaptive-rx=on").ok());
  CHECK(*k->read() == "rx-usecs=50,tx-usecs=50,adaptive-rx=on");
  CHECK(f.nl.link_sets.empty());
}

TEST_CASE("nic knob: a coalesce field the driver does not support is refused, named") {
  Fixture f;
  auto k = f.knob("coalesce");
  auto no = k->canonical("rx-usecs=8,rx-frames=32");
  REQUIRE_FALSE(no.ok());
  CHECK(no.error().is(ErrorKind::unsupported));
  CHECK(no.error().what.find("rx-frames: the driver of lo does not support it") == 0);
  auto tx = k->write("tx-frames=1");
  REQUIRE_FALSE(tx.ok());
  CHECK(tx.error().what.find("tx-frames") != std::string::npos);
  CHECK(f.nl.coalesce_sets.empty());
  // The kernel's refusal of one field (EINVAL, naming it) reaches the error, and the
  // value before stays.
  f.nl.coalesce.rx_frames = 1;
  f.nl.refuse = errno_error("rx-frames: cannot modify an unsupported parameter",
                            "lo: ethtool COALESCE_SET", EINVAL);
  auto st = k->write("rx-frames=64");
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().what.find("cannot set coalesce to 'rx-usecs=50,tx-usecs=50,rx-frames=64,"
                             "adaptive-rx=on': rx-frames: cannot modify") == 0);
  CHECK(st.error().message().find("nic:lo:coalesce") != std::string::npos);
  CHECK(*k->read() == "rx-usecs=50,tx-usecs=50,rx-frames=1,adaptive-rx=on");
  // No coalescing at all: reading says so, with the kernel's errno.
  f.nl.fail["COALESCE_GET"] = EOPNOTSUPP;
  auto none = k->read();
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().what.find("cannot read coalesce") == 0);
  CHECK(none.error().err == EOPNOTSUPP);
}

TEST_CASE("nic knob: timeouts print in words") {
  CHECK(format_timeout(10000) == "10 s");
  CHECK(format_timeout(1500) == "1.5 s");
  CHECK(format_timeout(50) == "50 ms");
}

TEST_CASE("nic knob: a SET the driver does not support (EOPNOTSUPP) is a refusal") {
  // Whichever backend sends it: apply then skips the change and the run goes on.
  Fixture f;
  f.nl.fail["CHANNELS_SET"] = EOPNOTSUPP;
  f.nl.fail["LINKMODES_SET"] = EOPNOTSUPP;
  auto ch = f.knob("channels");
  auto st = ch->write("combined=2");
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().is(ErrorKind::refused));
  CHECK(st.error().err == EOPNOTSUPP);
  CHECK(*ch->read() == "other=1,combined=4");
  auto link = f.knob("link");
  auto forced = link->write("autoneg=off,speed=100,duplex=full");
  REQUIRE_FALSE(forced.ok());
  CHECK(forced.error().is(ErrorKind::refused));
  // Another errno is not: the driver took the request and failed it.
  f.nl.fail["CHANNELS_SET"] = EIO;
  auto io = ch->write("combined=2");
  REQUIRE_FALSE(io.ok());
  CHECK(io.error().is(ErrorKind::io));
}

}  // namespace tuner
