// NIC probe on captured machines (shared sysfs fixtures), with a fake Netlink for the
// error policy, and live: in a private namespace with a veth pair, and on this host.
#include <dirent.h>
#include <doctest/doctest.h>
#include <stdlib.h>

#include <cerrno>
#include <filesystem>
#include <map>

#include "base/strings.h"
#include "probes/netlink.h"
#include "probes/nic.h"
#include "tests/support/fake_netlink.h"
#include "tests/support/files.h"
#include "tests/support/fixtures.h"
#include "tests/support/netns.h"
#include "tests/support/temp_dir.h"

namespace tuner {
namespace {

namespace fs = std::filesystem;

std::string file_text(const fs::path& p) { return testing::sysfs_value(p.string()); }

// A 25G fibre port with a partner at 25G, 8 combined channels and 1024 rx ring slots.
testing::FakeNetlink fibre_25g() {
  testing::FakeNetlink nl;
  nl.link.port = "FIBRE";
  nl.link.supported_modes = nl.link.advertised_modes = {"25000baseSR/Full", "Autoneg", "FIBRE"};
  nl.partner_speeds = {25000};
  nl.update_state();
  nl.channels = Channels{};
  nl.channels.combined = 8;
  nl.rings = Rings{};
  nl.rings.rx = 1024;
  return nl;
}

}  // namespace

TEST_CASE("nic helpers: PCI addresses and paths") {
  CHECK(is_pci_address("0000:3b:00.0"));
  CHECK(is_pci_address("10000:00:1f.7"));  // VMD domains are wider
  CHECK_FALSE(is_pci_address("virtio2"));
  CHECK_FALSE(is_pci_address("pci0000:00"));
  CHECK_FALSE(is_pci_address("0000:3b:00.8"));
  CHECK_FALSE(is_pci_address("0000:3b:00"));
  CHECK(normalize_path("sys/class/net/eth0/../../../devices/x/./y//z/..") == "sys/devices/x/y");
  CHECK(normalize_path("../../..") == "");
  CHECK(pci_ancestor("sys/devices/pci0000:00/0000:00:03.0/virtio2") == "0000:00:03.0");
  CHECK(pci_ancestor("sys/devices/pci0000:00/0000:00:01.0/0000:02:00.1") == "0000:02:00.1");
  CHECK_FALSE(pci_ancestor("sys/devices/virtual/net/lo").has_value());
}

TEST_CASE("nic probe: captured machines match their own sysfs files") {
  int pci_nics = 0;
  for (const char* tarball :
       {"40intel64-2g2n4c+pci.tar.bz2", "32intel64-2p8co2t+8ve.tar.bz2",
        "64amd64-4s2n4ca2co.tar.bz2", "16amd64-8n2c-cpusets.tar.bz2", "nvidia-dgx-gb10.tar.bz2"}) {
    CAPTURE(tarball);
    const std::string top = testing::shared_fixture(tarball);
    auto root = Root::open(top);
    REQUIRE(root.ok());
    std::vector<ProbeError> errors;
    auto nics = probe_nics(*root, nullptr, errors);
    fs::path net = fs::path(top) / "sys/class/net";
    if (!fs::exists(net)) {  // not captured: one error naming the path, no NICs
      CHECK(nics.empty());
      REQUIRE(errors.size() == 1);
      CHECK(errors[0].probe == "nic");
      CHECK(errors[0].message.find("sys/class/net") != std::string::npos);
      continue;
    }
    CHECK(errors.empty());
    size_t listed = std::distance(fs::directory_iterator(net), fs::directory_iterator());
    CHECK(nics.size() == listed);
    for (const Nic& nic : nics) {
      CAPTURE(nic.name);
      fs::path dir = net / nic.name;
      fs::path device = dir / "device";
      bool has_device = fs::is_symlink(device);
      CHECK(nic.is_virtual == !has_device);
      if (!has_device) continue;
      // The kernel's own view: the device link resolves to the PCI function.
      fs::path real = fs::canonical(device);
      CHECK(nic.pci == real.filename().string());
      auto node = parse_i64(file_text(real / "numa_node"));
      REQUIRE(node.has_value());
      if (*node < 0) CHECK_FALSE(nic.numa_node.has_value());
      else CHECK(nic.numa_node == static_cast<int>(*node));
      CHECK(nic.driver == fs::read_symlink(real / "driver").filename().string());
      CHECK(nic.mac == file_text(dir / "address"));
      CHECK(nic.mtu == static_cast<uint32_t>(*parse_u64(file_text(dir / "mtu"))));
      CHECK(nic.operstate == file_text(dir / "operstate"));
      unsigned rx = 0;
      if (fs::exists(dir / "queues"))
        for (const auto& q : fs::directory_iterator(dir / "queues"))
          rx += starts_with(q.path().filename().string(), "rx-");
      CHECK(nic.rx_queues == rx);
      // No netlink: the link as the capture's sysfs files say (an empty speed file is a
      // link that was down when captured).
      auto speed = parse_i64(file_text(dir / "speed"));
      if (speed && *speed > 0) CHECK(nic.link.speed_mbps == static_cast<uint32_t>(*speed));
      else CHECK_FALSE(nic.link.speed_mbps.has_value());
      CHECK(nic.link.up == (file_text(dir / "operstate") == "up"));
      ++pci_nics;
    }
  }
  CHECK(pci_nics >= 7);  // R910: eth0-3 and ib0; the VE host: two i40e ports
}

TEST_CASE("nic probe: known values of the Dell R910 capture") {
  auto root = Root::open(testing::shared_fixture("40intel64-2g2n4c+pci.tar.bz2"));
  REQUIRE(root.ok());
  std::vector<ProbeError> errors;
  auto nics = probe_nics(*root, nullptr, errors);
  std::map<std::string, Nic> by_name;
  for (auto& n : nics) by_name[n.name] = n;
  REQUIRE(by_name.count("eth2"));
  CHECK(by_name["eth2"].pci == "0000:03:00.0");
  CHECK(by_name["eth2"].driver == "bnx2");
  CHECK(by_name["ib0"].pci == "0000:43:00.0");
  CHECK(by_name["ib0"].driver == "ib_qib");
  // Its link facts from sysfs: eth0 a 1 GbE link that is up, eth1-3 down (the
  // capture's speed files are empty: reading them failed), ib0 an IPoIB port whose 2013
  // kernel gave no speed.
  CHECK(by_name["eth0"].link.up == true);
  CHECK(by_name["eth0"].link.speed_mbps == 1000u);
  CHECK(by_name["eth0"].link.duplex == Duplex::full);
  CHECK(by_name["eth1"].link.up == false);
  CHECK_FALSE(by_name["eth1"].link.speed_mbps.has_value());
  CHECK_FALSE(by_name["eth1"].link.duplex.has_value());
  CHECK(by_name["ib0"].link_type == 32u);
  CHECK(by_name["ib0"].link.up == true);
  CHECK_FALSE(by_name["ib0"].link.speed_mbps.has_value());
  CHECK_FALSE(by_name["eth0"].channels.has_value());  // the capture has no ethtool files
  REQUIRE(by_name.count("lo"));
  CHECK(by_name["lo"].is_virtual);  // its link into devices/virtual dangles in the capture
  CHECK_FALSE(by_name["lo"].pci.has_value());
}

TEST_CASE("nic probe: netlink EOPNOTSUPP is quiet, other failures are reported") {
  auto root = Root::open(testing::shared_fixture("32intel64-2p8co2t+8ve.tar.bz2"));
  REQUIRE(root.ok());
  testing::FakeNetlink nl = fibre_25g();
  nl.fail["RINGS_GET"] = EOPNOTSUPP;
  nl.fail["COALESCE_GET"] = EOPNOTSUPP;  // no coalescing: none in the inventory, no error
  nl.fail["CHANNELS_GET"] = EIO;
  nl.fail["GETLINK"] = EOPNOTSUPP;  // a kernel before 4.19: no MTU range
  std::vector<ProbeError> errors;
  auto nics = probe_nics(*root, &nl, errors);
  REQUIRE(nics.size() == 2);
  for (const Nic& nic : nics) {
    CHECK(nic.link.speed_mbps == 25000u);
    CHECK(nic.link.port == "FIBRE");
    CHECK(nic.link.up == true);
    CHECK_FALSE(nic.rings.has_value());
    CHECK_FALSE(nic.coalesce.has_value());
    CHECK_FALSE(nic.channels.has_value());
    CHECK_FALSE(nic.mtu_range.has_value());
  }
  REQUIRE(errors.size() == 2);  // one CHANNELS_GET failure per interface, no RINGS_GET
  CHECK(errors[0].probe == "netlink");
  CHECK(errors[0].message.find("enp96s0f0") != std::string::npos);
  CHECK(errors[0].message.find("Input/output error") != std::string::npos);
  CHECK(nl.asked.size() == 14);
}

TEST_CASE("nic probe: coalescing the driver reports is in the inventory, field by field") {
  auto root = Root::open(testing::shared_fixture("32intel64-2p8co2t+8ve.tar.bz2"));
  REQUIRE(root.ok());
  testing::FakeNetlink nl = fibre_25g();
  std::vector<ProbeError> errors;
  auto nics = probe_nics(*root, &nl, errors);
  REQUIRE_FALSE(nics.empty());
  REQUIRE(nics[0].coalesce.has_value());
  CHECK(nics[0].coalesce->rx_usecs == 50u);
  CHECK(nics[0].coalesce->adaptive_rx == true);
  CHECK_FALSE(nics[0].coalesce->rx_frames.has_value());  // not supported: not reported
  CHECK(errors.empty());
}

TEST_CASE("nic probe live: veth in a private namespace, link data from netlink") {
  if (auto why = testing::netns_unavailable(); !why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  auto r = testing::run_in_netns([] {
    testing::Report out;
    if (!testing::run_commands({{"ip", "link", "add", "va", "type", "veth", "peer", "name", "vb"},
                                {"ip", "link", "set", "va", "mtu", "9000", "up"},
                                {"ip", "link", "set", "vb", "up"}})
             .empty())
      return testing::Report{{"skip", "cannot create a veth pair"}};
    auto nl = open_ethtool_netlink();
    if (!nl) return testing::Report{{"error", nl.error().message()}};
    std::vector<ProbeError> errors;
    auto nics = probe_nics(Root::live(), nl->get(), errors);
    out["count"] = std::to_string(nics.size());
    out["errors"] = std::to_string(errors.size());
    for (auto& e : errors) out["error." + e.message] = "1";
    for (const Nic& n : nics) {
      std::string k = n.name + ".";
      out[k + "virtual"] = n.is_virtual ? "1" : "0";
      out[k + "speed"] = n.link.speed_mbps ? std::to_string(*n.link.speed_mbps) : "null";
      out[k + "duplex"] = n.link.duplex ? duplex_name(*n.link.duplex) : "null";
      out[k + "mtu"] = n.mtu ? std::to_string(*n.mtu) : "null";
      out[k + "mtu_range"] = n.mtu_range ? n.mtu_range->text() : "null";
      out[k + "mac"] = n.mac.value_or("null");
      out[k + "channels"] = n.channels ? "1" : "0";
      out[k + "rings"] = n.rings ? "1" : "0";
      out[k + "coalesce"] = n.coalesce ? "1" : "0";
    }
    out["sysfs.mac"] = file_text("/sys/class/net/va/address");
    out["sysfs.speed"] = file_text("/sys/class/net/va/speed");
    return out;
  });
  if (auto it = r.find("skip"); it != r.end()) {
    MESSAGE("skipped: " << it->second);
    return;
  }
  REQUIRE_MESSAGE(r.count("error") == 0, r["error"]);
  CHECK(r["count"] == "3");   // lo, va, vb: the namespace's own, not the host's
  CHECK(r["errors"] == "0");  // lo's EOPNOTSUPP answers are not errors
  CHECK(r["va.virtual"] == "1");
  CHECK(r["va.speed"] == r["sysfs.speed"]);
  CHECK(r["va.speed"] == "10000");
  CHECK(r["va.duplex"] == "full");
  CHECK(r["va.mtu"] == "9000");
  CHECK(r["va.mtu_range"] == "68 to 65535 bytes");  // rtnetlink: ETH_MIN_MTU..ETH_MAX_MTU
  CHECK(r["lo.mtu_range"] == "0 bytes and up");     // loopback sets no bound
  CHECK(r["va.mac"] == r["sysfs.mac"]);
  CHECK(r["va.channels"] == "1");
  CHECK(r["va.rings"] == "0");     // veth has no ring parameters
  CHECK(r["va.coalesce"] == "0");  // nor interrupt coalescing
  CHECK(r["lo.speed"] == "null");
}

TEST_CASE("nic probe live: this host") {
  if (::geteuid() != 0) {
    MESSAGE("skipped: not root");
    return;
  }
  auto nl = open_ethtool_netlink();
  REQUIRE_MESSAGE(nl.ok(), nl.error().message());
  std::vector<ProbeError> errors;
  auto nics = probe_nics(Root::live(), nl->get(), errors);
  for (auto& e : errors) MESSAGE(e.message);
  CHECK(errors.empty());
  REQUIRE_FALSE(nics.empty());
  for (const Nic& nic : nics) {
    CAPTURE(nic.name);
    fs::path dev = fs::path("/sys/class/net") / nic.name / "device";
    CHECK(nic.is_virtual == !fs::exists(dev));
    if (nic.is_virtual) continue;
    // virtio NICs sit under a PCI function; the probe reports that function.
    fs::path real = fs::canonical(dev);
    REQUIRE(nic.pci.has_value());
    std::string path = real.string();
    auto at = path.find("/" + *nic.pci + "/");
    REQUIRE(at != std::string::npos);
    auto node = parse_i64(file_text(path.substr(0, at + 1 + nic.pci->size()) + "/numa_node"));
    REQUIRE(node.has_value());
    if (*node < 0) CHECK_FALSE(nic.numa_node.has_value());
    else CHECK(nic.numa_node == static_cast<int>(*node));
    CHECK(nic.driver == fs::read_symlink(dev / "driver").filename().string());
  }
}

}  // namespace tuner

namespace tuner {

TEST_CASE("nic probe: a port whose PCI function has an RDMA device names it") {
  // As mlx5 lays it out: the netdev and the RDMA device are both children of the PCI
  // function (sys/class/net/IF/device/infiniband/mlx5_0).
  testing::TempDir dir{"tuner-nic-rdma"};
  const std::string fn = "sys/devices/pci0000:00/0000:00:02.0/0000:3b:00.0";
  for (const char* name : {"ens1f0np0", "ens3"}) {
    std::string dev = name == std::string("ens3") ? fn.substr(0, fn.size() - 1) + "1" : fn;
    dir.write(dev + "/net/" + name + "/type", "1\n");
    std::filesystem::create_directories(dir / "sys/class/net");
    std::filesystem::create_symlink("../../" + dev.substr(4) + "/net/" + name,
                                    dir / ("sys/class/net/" + std::string(name)));
    std::filesystem::create_symlink("../../../" + dev.substr(dev.rfind('/') + 1),
                                    dir / (dev + "/net/" + name + "/device"));
  }
  std::filesystem::create_directories(dir / (fn + "/infiniband/mlx5_0"));
  std::vector<ProbeError> errors;
  auto nics = probe_nics(Root::open(dir.path).value(), nullptr, errors);
  std::map<std::string, std::optional<std::string>> rdma;
  for (const Nic& n : nics) rdma[n.name] = n.rdma_device;
  CHECK(rdma.at("ens1f0np0") == "mlx5_0");
  CHECK(rdma.at("ens3") == std::nullopt);
}

}  // namespace tuner
