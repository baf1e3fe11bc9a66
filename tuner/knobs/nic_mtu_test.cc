// nic:IF:mtu on a fake tree laid out as the kernel lays out a PCI NIC
// (sys/class/net/eth0 a symlink into sys/devices), with a fake kernel that takes the
// MTUs of a driver whose range is 68..9216 and refuses the rest with EINVAL. The real
// kernel's answer is in knobs_live_test.cc ("nic live: veth MTU").
#include <doctest/doctest.h>

#include <cerrno>
#include <filesystem>

#include "base/clock.h"
#include "base/strings.h"
#include "tests/support/fake_netlink.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"
#include "tuner/knobs/knob.h"

namespace tuner {

namespace {

const char* const kDev = "sys/devices/pci0000:00/0000:00:03.0/net/eth0";

struct MtuFixture {
  testing::TempDir dir{"tuner-mtu"};
  testing::FakeNetlink nl;
  FakeClock clock;
  KnobContext ctx{Root::open(dir.path).value()};
  int writes = 0;

  MtuFixture() {
    dir.write(std::string(kDev) + "/mtu", "1500\n");
    dir.write(std::string(kDev) + "/operstate", "up\n");
    std::filesystem::create_directories(dir / "sys/class/net");
    std::filesystem::create_directory_symlink("../../devices/pci0000:00/0000:00:03.0/net/eth0",
                                              dir / "sys/class/net/eth0");
    ctx.ethtool = &nl;
    ctx.clock = &clock;
    ctx.fake_machine = true;
    ctx.fake_kernel = [this](const std::string& rel, std::string& text) {
      ++writes;
      if (!rel.ends_with("/mtu")) return EPERM;
      auto mtu = parse_u64(text);
      return mtu && *mtu >= 68 && *mtu <= 9216 ? 0 : EINVAL;
    };
  }

  std::unique_ptr<Knob> knob() {
    auto k = make_knob("nic:eth0:mtu", ctx);
    REQUIRE_MESSAGE(k.ok(), (k.ok() ? "" : k.error().message()));
    return std::move(k).value();
  }
  std::string file() const {
    return std::string(trim(testing::slurp(dir / (std::string(kDev) + "/mtu"))));
  }
};

}  // namespace

TEST_CASE("nic mtu knob: reads through the netdev's own directory, sets and reads back") {
  MtuFixture f;
  auto k = f.knob();
  CHECK(*k->read() == "1500");
  REQUIRE(k->write("9000").ok());
  CHECK(f.file() == "9000");
  CHECK(*k->read() == "9000");
  REQUIRE(k->write("1500").ok());
  CHECK(*k->read() == "1500");
}

TEST_CASE("nic mtu knob: canonical takes what a kernel may hold and nothing else") {
  MtuFixture f;
  auto k = f.knob();
  CHECK(*k->canonical(" 9000\n") == "9000");
  for (const char* outside : {"67", "9217"}) {  // the device takes 68 to 9216 (netlink says)
    CAPTURE(outside);
    auto c = k->canonical(outside);
    REQUIRE(!c.ok());
    CHECK(c.error().is(ErrorKind::invalid));
    CHECK(c.error().what ==
          std::string("MTU ") + outside + " is outside the MTUs eth0 takes (68 to 9216 bytes)");
  }
  f.nl.fail["GETLINK"] = EOPNOTSUPP;   // range not known: any MTU a kernel may hold, so
  CHECK(*k->canonical("16") == "16");  // that rollback puts back a CAN device's 16
  for (const char* bad : {"", "-1", "09000", "9000 bytes", "0x2328", "2147483648", "9k"}) {
    CAPTURE(bad);
    auto c = k->canonical(bad);
    REQUIRE(!c.ok());
    CHECK(c.error().is(ErrorKind::invalid));
    CHECK(c.error().what.find("not an MTU") != std::string::npos);
  }
}

TEST_CASE("nic mtu knob: an MTU outside the device's range is a refusal that changes nothing") {
  MtuFixture f;
  auto k = f.knob();
  Status early = k->write("65000");  // netlink's range says no before anything is written
  REQUIRE(!early.ok());
  CHECK(early.error().is(ErrorKind::invalid));
  CHECK(f.writes == 0);
  f.nl.fail["GETLINK"] = EOPNOTSUPP;  // no range known: the kernel's EINVAL says no
  Status st = k->write("65000");
  REQUIRE(!st.ok());
  CHECK(st.error().is(ErrorKind::refused));
  CHECK(st.error().err == EINVAL);
  CHECK(st.error().what.find("eth0 refused MTU 65000") != std::string::npos);
  CHECK(st.error().where.find("nic:eth0:mtu") == 0);
  CHECK(f.file() == "1500");
  CHECK(*k->read() == "1500");
}

TEST_CASE("nic mtu knob: a missing interface, a mangled file, a capture that may not be written") {
  MtuFixture f;
  auto none = make_knob("nic:eth9:mtu", f.ctx);
  REQUIRE(!none.ok());
  CHECK(none.error().is(ErrorKind::missing));

  f.dir.write(std::string(kDev) + "/mtu", "15\x01"
                                          "00\n");
  auto bad = f.knob()->read();
  REQUIRE(!bad.ok());
  CHECK(bad.error().is(ErrorKind::invalid));
  CHECK(bad.error().what.find("\\x01") != std::string::npos);  // shown escaped

  f.dir.write(std::string(kDev) + "/mtu", "1500\n");
  f.ctx.fake_machine = false;
  Status st = f.knob()->write("9000");
  REQUIRE(!st.ok());
  CHECK(st.error().is(ErrorKind::denied));
  CHECK(f.writes == 0);
  CHECK(f.file() == "1500");
}

}  // namespace tuner
