// nic:IF:rfs:rx-N on a fake tree laid out as sysfs is (the netdev under sys/devices,
// sys/class/net/IF a link to it), with a kernel that rounds a flow table's size up as
// Linux does and refuses what 6.18 refuses (tests/support/fake_sysfs.h). The real kernel
// on a veth: knobs_live_test.cc ("nic live: a veth's RFS flow tables").
#include <doctest/doctest.h>

#include <cerrno>
#include <filesystem>
#include <string>

#include "tests/support/fake_sysfs.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"
#include "tuner/knobs/knob.h"
#include "tuner/knobs/nic_value.h"

using namespace tuner;

namespace {

const std::string kDev = "sys/devices/pci0000:00/0000:00:03.0/net/eth0";

struct FakeRfs {
  testing::TempDir dir{"tuner-rfs"};
  testing::FakeSysfs sysfs{dir};
  KnobContext ctx{Root::open(dir.path).value()};

  FakeRfs() {
    sysfs.netdev_queues(kDev, 2);
    ctx.fake_machine = true;
    ctx.fake_kernel = sysfs.kernel();
  }
  std::unique_ptr<Knob> knob(const std::string& id) {
    auto k = make_knob(id, ctx);
    REQUIRE_MESSAGE(k.ok(), (k.ok() ? "" : k.error().message()));
    return std::move(k).value();
  }
  std::string file(unsigned q) const {
    return testing::sysfs_value(dir / (kDev + "/queues/rx-" + std::to_string(q) + "/rps_flow_cnt"));
  }
};

}  // namespace

TEST_CASE("rfs knob: reads the table's size, writes it, reads back what the kernel keeps") {
  FakeRfs m;
  auto rfs = m.knob("nic:eth0:rfs:rx-1");
  CHECK(rfs->read().value() == "0");  // no table: RFS off for the queue
  REQUIRE(rfs->write("2048").ok());
  CHECK(m.file(1) == "2048");
  CHECK(rfs->read().value() == "2048");
  CHECK(m.file(0) == "0");
  // What the kernel would round, the knob rounds first: the plan shows what reads back.
  REQUIRE(rfs->write("100").ok());
  CHECK(m.file(1) == "128");
  CHECK(rfs->read().value() == "128");
  REQUIRE(rfs->write("0").ok());
  CHECK(rfs->read().value() == "0");
  // Rollback rebuilds it from its id alone.
  KnobContext fresh{m.ctx.root};
  fresh.fake_machine = true;
  fresh.fake_kernel = m.ctx.fake_kernel;
  auto again = make_knob(rfs->id(), fresh);
  REQUIRE(again.ok());
  REQUIRE((*again)->write("4096").ok());
  CHECK(rfs->read().value() == "4096");
}

TEST_CASE("rfs knob: canonical rounds up to a power of two as the kernel does, refuses text") {
  FakeRfs m;
  auto rfs = m.knob("nic:eth0:rfs:rx-0");
  // clang 14 cannot CAPTURE a structured binding: a pair, then.
  for (const auto& c : {std::pair{"0", "0"},
                        {"1", "1"},
                        {"2", "2"},
                        {"3", "4"},
                        {"100", "128"},
                        {"2048", "2048"},
                        {"2049", "4096"},
                        {" 32768\n", "32768"},
                        {"4294967296", "4294967296"},
                        {"4294967295", "4294967296"}}) {
    CAPTURE(c.first);
    CHECK(rfs->canonical(c.first).value() == c.second);
  }
  for (const char* bad : {"", "-1", "+8", "0x10", "010", "4294967297", "off", "2k", "1 2"}) {
    CAPTURE(bad);
    auto c = rfs->canonical(bad);
    REQUIRE_FALSE(c.ok());
    CHECK(c.error().is(ErrorKind::invalid));
    CHECK(c.error().what.find("not an RFS flow table size") == 0);
    CHECK(c.error().where == "nic:eth0:rfs:rx-0");
  }
  // The planner rounds with the same function (the socket table's size too).
  CHECK(rfs_table_size(0) == 0);
  CHECK(rfs_table_size(1) == 1);
  CHECK(rfs_table_size(5462) == 8192);
  CHECK(rfs_table_size(uint64_t{1} << 29) == uint64_t{1} << 29);
}

TEST_CASE("rfs knob: a table the kernel refuses (1, on 6.18) is a refusal that changes nothing") {
  FakeRfs m;
  auto rfs = m.knob("nic:eth0:rfs:rx-0");
  REQUIRE(rfs->write("512").ok());
  Status st = rfs->write("1");
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().is(ErrorKind::refused));
  CHECK(st.error().err == EINVAL);
  CHECK(st.error().what == "the kernel refused a flow table of 1 entries (Linux 6.18 refuses 1)");
  CHECK(st.error().where.find("nic:eth0:rfs:rx-0 (") == 0);
  CHECK(m.file(0) == "512");
}

TEST_CASE("rfs knob: a missing interface, queue or file; a mangled file; a link; a capture") {
  FakeRfs m;
  auto nif = make_knob("nic:eth9:rfs:rx-0", m.ctx);
  REQUIRE_FALSE(nif.ok());
  CHECK(nif.error().is(ErrorKind::missing));
  auto rx = make_knob("nic:eth0:rfs:rx-2", m.ctx);
  REQUIRE_FALSE(rx.ok());
  CHECK(rx.error().is(ErrorKind::missing));
  CHECK(rx.error().what == "eth0 has no RX queue 2 (it has rx-0..rx-1)");
  m.dir.write(kDev + "/queues/rx-2/rps_cpus", "00\n");  // a kernel without the table
  auto file = make_knob("nic:eth0:rfs:rx-2", m.ctx);
  REQUIRE_FALSE(file.ok());
  CHECK(file.error().is(ErrorKind::unsupported));
  CHECK(file.error().what.find("rx-2/rps_flow_cnt (built without CONFIG_RPS)") !=
        std::string::npos);

  m.dir.write(kDev + "/queues/rx-0/rps_flow_cnt", "20\x01"
                                                  "48\n");
  auto bad = m.knob("nic:eth0:rfs:rx-0")->read();
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().is(ErrorKind::invalid));
  CHECK(bad.error().what.find("\\x01") != std::string::npos);  // shown escaped

  // A link planted where the file was is not followed (knob_files.h): no knob, and
  // what it points to is untouched. A knob built before the link came reads and writes
  // through no link either.
  auto early = m.knob("nic:eth0:rfs:rx-1");
  m.dir.write("elsewhere", "7\n");
  std::string flow = m.dir / (kDev + "/queues/rx-1/rps_flow_cnt");
  std::filesystem::remove(flow);
  std::filesystem::create_symlink(m.dir / "elsewhere", flow);
  CHECK_FALSE(make_knob("nic:eth0:rfs:rx-1", m.ctx).ok());
  CHECK_FALSE(early->read().ok());
  CHECK_FALSE(early->write("64").ok());
  CHECK(testing::sysfs_value(m.dir / "elsewhere") == "7");

  // A capture (--root) is never written.
  KnobContext capture{m.ctx.root};
  auto k = make_knob("nic:eth0:rfs:rx-0", capture);
  REQUIRE(k.ok());
  CHECK((*k)->write("64").error().is(ErrorKind::denied));
}
