// nic:IF:rps:rx-N and nic:IF:xps:tx-N on a fake machine laid out as sysfs is (the
// netdev under sys/devices, sys/class/net/IF a link to it, masks shown "%*pb" as
// net-sysfs.c does), and through the real kernel on a veth pair in a private network
// namespace.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "base/cpuset.h"
#include "tests/support/files.h"
#include "tests/support/netns.h"
#include "tests/support/temp_dir.h"
#include "tuner/knobs/knob.h"

using namespace tuner;

namespace {

/// A machine of 8 CPUs (possible 0-7) with eth0: rx-0, rx-1, tx-0, tx-1. Its kernel
/// takes a hex mask, shows it padded to 8 CPUs ("0c"), refuses bits past CPU 7
/// (EOVERFLOW) and answers `refuse` (an errno) when set.
struct FakeNetdev {
  testing::TempDir dir{"tuner-rps"};
  KnobContext ctx{Root::open(dir.path).value()};
  int refuse = 0;
  static constexpr const char* kDev = "sys/devices/pci0000:00/0000:00:03.0/net/eth0";

  FakeNetdev() {
    dir.write("sys/devices/system/cpu/possible", "0-7\n");
    dir.write("sys/devices/system/cpu/online", "0-7\n");
    for (const char* q : {"rx-0", "rx-1"}) dir.write(queue(q) + "/rps_cpus", "00\n");
    for (const char* q : {"tx-0", "tx-1"}) dir.write(queue(q) + "/xps_cpus", "01\n");
    std::filesystem::create_directories(dir / "sys/class/net");
    std::filesystem::create_symlink("../../devices/pci0000:00/0000:00:03.0/net/eth0",
                                    dir / "sys/class/net/eth0");
    ctx.fake_machine = true;
    ctx.fake_kernel = [this](const std::string&, std::string& text) {
      if (refuse) return refuse;
      auto set = CpuSet::parse_mask(text);
      if (!set.ok()) return EINVAL;
      if (!set->empty() && set->cpus().back() > 7) return EOVERFLOW;
      unsigned bits = 0;
      for (unsigned cpu : set->cpus()) bits |= 1u << cpu;
      char buf[8];
      std::snprintf(buf, sizeof buf, "%02x\n", bits);
      text = buf;
      return 0;
    };
  }
  static std::string queue(const std::string& q) { return std::string(kDev) + "/queues/" + q; }
  std::unique_ptr<Knob> knob(const std::string& id) {
    auto k = make_knob(id, ctx);
    REQUIRE_MESSAGE(k.ok(), k.error().message());
    return std::move(k).value();
  }
};

}  // namespace

TEST_CASE("rps/xps knobs: the hex mask reads as a cpulist; written as the kernel's mask") {
  FakeNetdev m;
  auto rps = m.knob("nic:eth0:rps:rx-1");
  auto xps = m.knob("nic:eth0:xps:tx-0");
  CHECK(rps->read().value() == "none");
  CHECK(xps->read().value() == "0");
  REQUIRE(rps->write("2-3").ok());
  CHECK(testing::sysfs_value(m.dir / (FakeNetdev::queue("rx-1") + "/rps_cpus")) == "0c");
  CHECK(rps->read().value() == "2-3");
  REQUIRE(xps->write("4,6-7").ok());
  CHECK(testing::sysfs_value(m.dir / (FakeNetdev::queue("tx-0") + "/xps_cpus")) == "d0");
  CHECK(xps->read().value() == "4,6-7");
  // "none" (or an empty list) is the empty mask: steering off.
  REQUIRE(rps->write("none").ok());
  CHECK(testing::sysfs_value(m.dir / (FakeNetdev::queue("rx-1") + "/rps_cpus")) == "00");
  CHECK(rps->read().value() == "none");
  CHECK(rps->canonical("").value() == "none");
  CHECK(rps->canonical(" 3,1-2 ").value() == "1-3");
  // Rollback rebuilds the knob from its id alone, in a fresh context.
  KnobContext fresh{m.ctx.root};
  fresh.fake_machine = true;
  fresh.fake_kernel = m.ctx.fake_kernel;
  auto again = make_knob(xps->id(), fresh);
  REQUIRE(again.ok());
  REQUIRE((*again)->write("0").ok());
  CHECK(xps->read().value() == "0");
}

TEST_CASE("rps/xps knobs: CPUs the machine lacks or has offline are refused before writing") {
  FakeNetdev m;
  auto rps = m.knob("nic:eth0:rps:rx-0");
  auto wide = rps->canonical("0-15");
  REQUIRE_FALSE(wide.ok());
  CHECK(wide.error().what == "CPUs 8-15 do not exist on this machine (it has 0-7)");
  CHECK(wide.error().where == "nic:eth0:rps:rx-0");
  m.dir.write("sys/devices/system/cpu/online", "0-5\n");
  auto offline = rps->canonical("4-7");
  REQUIRE_FALSE(offline.ok());
  CHECK(offline.error().what == "CPUs 6-7 are not online (online: 0-5)");
  auto word = rps->canonical("all");
  REQUIRE_FALSE(word.ok());
  CHECK(word.error().what.find("not a CPU list (or \"none\")") == 0);
  CHECK_FALSE(rps->write("7").ok());
  CHECK(rps->read().value() == "none");
}

TEST_CASE("rps/xps knobs: a missing interface, queue or file says which") {
  FakeNetdev m;
  auto nif = make_knob("nic:eth9:rps:rx-0", m.ctx);
  REQUIRE_FALSE(nif.ok());
  CHECK(nif.error().is(ErrorKind::missing));
  CHECK(nif.error().what == "no such network interface 'eth9'");
  auto rx = make_knob("nic:eth0:rps:rx-2", m.ctx);
  REQUIRE_FALSE(rx.ok());
  CHECK(rx.error().is(ErrorKind::missing));
  CHECK(rx.error().what == "eth0 has no RX queue 2 (it has rx-0..rx-1)");
  CHECK(rx.error().where == "nic:eth0:rps:rx-2");
  m.dir.write(FakeNetdev::queue("tx-2") + "/tx_maxrate", "0\n");  // a kernel without XPS
  auto file = make_knob("nic:eth0:xps:tx-2", m.ctx);
  REQUIRE_FALSE(file.ok());
  CHECK(file.error().is(ErrorKind::unsupported));
  CHECK(file.error().what.find("built without CONFIG_XPS") != std::string::npos);
}

TEST_CASE("rps/xps knobs: kernel refusals are refused errors, and nothing changes") {
  FakeNetdev m;
  auto rps = m.knob("nic:eth0:rps:rx-0");
  auto xps = m.knob("nic:eth0:xps:tx-1");
  m.refuse = EINVAL;
  Status s = rps->write("1");
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().is(ErrorKind::refused));
  CHECK(s.error().what.find("no housekeeping CPU") != std::string::npos);
  CHECK(s.error().where.find("nic:eth0:rps:rx-0 (") == 0);
  m.refuse = ENOENT;
  s = xps->write("1");
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().is(ErrorKind::refused));
  CHECK(s.error().what == "eth0 has a single TX queue: the kernel keeps no XPS map");
  CHECK(rps->read().value() == "none");
  CHECK(xps->read().value() == "0");
  // A capture (--root) is never written.
  KnobContext capture{m.ctx.root};
  auto k = make_knob("nic:eth0:rps:rx-0", capture);
  REQUIRE(k.ok());
  CHECK((*k)->write("1").error().is(ErrorKind::denied));
}

// The real kernel: a veth pair with 2 queues each way in a private namespace, and a
// default one-queue veth whose xps_cpus the kernel refuses to show or take.
TEST_CASE("rps/xps knobs: a veth's queues in a private namespace (root)") {
  if (std::string why = testing::netns_unavailable(); !why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  auto r = testing::run_in_netns([] {
    testing::Report out;
    if (std::string e = testing::run_commands(
            {{"ip", "link", "add", "va", "numtxqueues", "2", "numrxqueues", "2", "type", "veth",
              "peer", "name", "vb", "numtxqueues", "2", "numrxqueues", "2"},
             // veth gets as many TX queues as CPUs unless told: one makes it single-queue.
             {"ip", "link", "add", "one", "numtxqueues", "1", "numrxqueues", "1", "type", "veth",
              "peer", "name", "two"}});
        !e.empty())
      return testing::Report{{"skip", "cannot create veth pairs: " + e}};
    KnobContext ctx{Root::live()};
    auto rps = make_knob("nic:va:rps:rx-1", ctx);
    auto xps = make_knob("nic:va:xps:tx-1", ctx);
    if (!rps.ok() || !xps.ok())
      return testing::Report{{"error", (rps.ok() ? xps : rps).error().message()}};
    out["rps.before"] = (*rps)->read().value_or("?");
    out["xps.before"] = (*xps)->read().value_or("?");
    auto online = CpuSet::parse(Root::live().read("sys/devices/system/cpu/online").value_or(""));
    std::string cpu = online.ok() && !online->empty() ? std::to_string(online->cpus().back()) : "0";
    out["cpu"] = cpu;
    Status w1 = (*rps)->write(cpu), w2 = (*xps)->write(cpu);
    out["rps.write"] = w1.ok() ? "ok" : w1.error().message();
    out["xps.write"] = w2.ok() ? "ok" : w2.error().message();
    out["rps.after"] = (*rps)->read().value_or("?");
    out["xps.after"] = (*xps)->read().value_or("?");
    out["rps.sysfs"] = testing::sysfs_value("/sys/class/net/va/queues/rx-1/rps_cpus");
    Status b1 = (*rps)->write(out["rps.before"]), b2 = (*xps)->write(out["xps.before"]);
    out["rps.back"] = b1.ok() ? (*rps)->read().value_or("?") : b1.error().message();
    out["xps.back"] = b2.ok() ? (*xps)->read().value_or("?") : b2.error().message();
    auto single = make_knob("nic:one:xps:tx-0", ctx);
    if (single.ok()) {
      auto read = (*single)->read();
      out["single.read"] = read.ok() ? *read : error_kind_name(read.error().kind);
      Status w = (*single)->write(cpu);
      out["single.write"] = w.ok() ? "ok" : error_kind_name(w.error().kind);
      out["single.what"] = w.ok() ? "" : w.error().what;
    }
    auto gone = make_knob("nic:va:rps:rx-2", ctx);
    out["rx2"] = gone.ok() ? "exists" : gone.error().what;
    return out;
  });
  if (auto it = r.find("skip"); it != r.end()) {
    MESSAGE("skipped: " << it->second);
    return;
  }
  REQUIRE_MESSAGE(r.count("error") == 0, r["error"]);
  CHECK(r["rps.before"] == "none");  // RPS is off until someone sets it
  CHECK(r["rps.write"] == "ok");
  CHECK(r["xps.write"] == "ok");
  CHECK(r["rps.after"] == r["cpu"]);
  CHECK(r["xps.after"] == r["cpu"]);
  CHECK(CpuSet::parse_mask(r["rps.sysfs"]).value().to_string() == r["cpu"]);
  CHECK(r["rps.back"] == r["rps.before"]);
  CHECK(r["xps.back"] == r["xps.before"]);
  CHECK(r["single.read"] == "unsupported");
  CHECK(r["single.write"] == "refused");
  CHECK(r["single.what"] == "one has a single TX queue: the kernel keeps no XPS map");
  CHECK(r["rx2"] == "va has no RX queue 2 (it has rx-0..rx-1)");
}
