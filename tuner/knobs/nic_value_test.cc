#include "tuner/knobs/nic_value.h"

#include <doctest/doctest.h>

#include "tests/support/fake_netlink.h"

namespace tuner {

TEST_CASE("nic value: link settings parse and print canonically") {
  auto s = parse_link_setting(" duplex=full, speed=25000 ,autoneg=off", "nic:x:link");
  REQUIRE(s.ok());
  CHECK(format_link_setting(*s) == "autoneg=off,speed=25000,duplex=full");
  CHECK(format_link_setting(*parse_link_setting("autoneg=on", "k")) == "autoneg=on");
  CHECK(format_link_setting(*parse_link_setting("autoneg=on,speed=1000", "k")) ==
        "autoneg=on,speed=1000");
  for (const char* bad :
       {"", "autoneg=off", "autoneg=off,speed=1000", "speed=1000,duplex=full", "autoneg=yes",
        "autoneg=on,speed=0", "autoneg=on,speed=fast", "autoneg=on,duplex=quarter",
        "autoneg=on,autoneg=off", "autoneg=on,,speed=10", "autoneg=on,mtu=9000", "autoneg"}) {
    auto r = parse_link_setting(bad, "nic:eth0:link");
    CHECK_MESSAGE(!r.ok(), bad);
    if (!r.ok()) CHECK(r.error().where == "nic:eth0:link");
  }
}

TEST_CASE("nic value: link mode names give speed and duplex") {
  CHECK(parse_link_mode("25000baseSR/Full")->speed_mbps == 25000);
  CHECK(parse_link_mode("10baseT/Half")->duplex == Duplex::half);
  CHECK(parse_link_mode("10baseT1S_P2MP/Half")->speed_mbps == 10);
  CHECK(!parse_link_mode("Autoneg"));
  CHECK(!parse_link_mode("FEC_RS"));
  CHECK(!parse_link_mode("Asym_Pause"));
  // A special mode for the kernel too (SPEED_UNKNOWN): no speed the knob could force.
  CHECK(!parse_link_mode("10000baseR_FEC"));
}

TEST_CASE("nic value: describe_link finds the filter behind the advertised modes") {
  LinkInfo info;
  info.autoneg = true;
  info.supported_modes = testing::copper_link_modes();
  info.advertised_modes = info.supported_modes;
  CHECK(format_link_setting(describe_link(info)) == "autoneg=on");
  info.advertised_modes = {"1000baseT/Full", "Autoneg", "TP"};
  CHECK(format_link_setting(describe_link(info)) == "autoneg=on,speed=1000,duplex=full");
  info.advertised_modes = {"100baseT/Half", "100baseT/Full"};
  CHECK(format_link_setting(describe_link(info)) == "autoneg=on,speed=100");
  info.advertised_modes = {"10baseT/Full", "100baseT/Full", "1000baseT/Full"};
  CHECK(format_link_setting(describe_link(info)) == "autoneg=on,duplex=full");
  info.advertised_modes = {"10baseT/Full", "1000baseT/Full"};
  CHECK(format_link_setting(describe_link(info)) ==
        "autoneg=on,advertise=1000baseT/Full+10baseT/Full");
  // Forced mode reports the forced speed; negotiated speed is never part of autoneg=on.
  info.autoneg = false;
  info.speed_mbps = 100;
  info.duplex = Duplex::half;
  CHECK(format_link_setting(describe_link(info)) == "autoneg=off,speed=100,duplex=half");
}

TEST_CASE("nic value: channels and rings") {
  Channels ch;
  ch.combined = 8;
  ch.combined_max = 63;
  ch.other = 1;
  ch.other_max = 1;
  ch.rx = 0;
  ch.rx_max = 0;
  CHECK(format_channels(ch) == "other=1,combined=8");
  auto p = parse_channels("tx=4,rx=4", "nic:v0:channels");
  REQUIRE(p.ok());
  CHECK(format_channels(*p) == "rx=4,tx=4");
  CHECK(!parse_channels("rx=-1", "k").ok());
  CHECK(!parse_channels("queues=4", "k").ok());
  auto r = parse_rings("tx=1024,rx=4096", "k");
  REQUIRE(r.ok());
  CHECK(format_rings(*r) == "rx=4096,tx=1024");
  CHECK(!parse_rings("rx=0", "k").ok());
  CHECK(!parse_rings("other=4", "k").ok());
}

TEST_CASE("nic value: coalesce") {
  Coalesce c;
  c.rx_usecs = 8;
  c.adaptive_tx = false;
  c.tx_frames = 0;
  CHECK(format_coalesce(c) == "rx-usecs=8,tx-frames=0,adaptive-tx=off");
  CHECK(format_coalesce(Coalesce{}) == "none");
  auto p = parse_coalesce("adaptive-rx=on, tx-usecs=16,rx-frames=32", "nic:eth0:coalesce");
  REQUIRE(p.ok());
  CHECK(format_coalesce(*p) == "tx-usecs=16,rx-frames=32,adaptive-rx=on");
  CHECK(parse_coalesce("none", "k").ok());
  auto word = parse_coalesce("adaptive-rx=yes", "nic:eth0:coalesce");
  REQUIRE_FALSE(word.ok());
  CHECK(word.error().what == "adaptive-rx=yes: expected on or off");
  auto neg = parse_coalesce("rx-usecs=-1", "k");
  REQUIRE_FALSE(neg.ok());
  CHECK(neg.error().what.find("rx-usecs=-1") != std::string::npos);
  CHECK_FALSE(parse_coalesce("rx-usecs=4294967296", "k").ok());
  auto unknown = parse_coalesce("rx_usecs=8", "k");  // the profile's spelling, not the knob's
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().what.find("unknown key 'rx_usecs'") != std::string::npos);
  CHECK_FALSE(parse_coalesce("rx-usecs=1,rx-usecs=2", "k").ok());
  CHECK_FALSE(parse_coalesce("", "k").ok());
}

TEST_CASE("nic value: a forced mode without a known speed round-trips as 'unknown'") {
  // virtio-net before anyone set a speed: autoneg off, speed -1, duplex unknown.
  LinkInfo info;
  info.autoneg = false;
  CHECK(format_link_setting(describe_link(info)) == "autoneg=off,speed=unknown,duplex=unknown");
  auto back = parse_link_setting("autoneg=off,speed=unknown,duplex=unknown", "nic:eth0:link");
  REQUIRE(back.ok());
  CHECK(back->speed_mbps == kSpeedUnknown);
  CHECK(format_link_setting(*back) == "autoneg=off,speed=unknown,duplex=unknown");
  CHECK_FALSE(parse_link_setting("autoneg=off,speed=unknown,duplex=full", "x").ok());
  CHECK_FALSE(parse_link_setting("autoneg=on,speed=unknown,duplex=unknown", "x").ok());
  CHECK_FALSE(parse_link_setting("autoneg=off,speed=4294967295,duplex=full", "x").ok());
}

}  // namespace tuner
