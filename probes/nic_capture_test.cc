// A NIC's link, channels and rings read from a capture: the parsers on what the kernel
// and ethtool print, and the reader on hostile files.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "probes/nic.h"
#include "probes/nic_capture.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"

namespace tuner {

TEST_CASE("nic capture: sysfs speed, duplex and state as the kernel prints them") {
  CHECK(parse_sysfs_speed("25000\n") == 25000u);
  CHECK(parse_sysfs_speed("1000") == 1000u);
  CHECK(parse_sysfs_speed("400000\n") == 400000u);
  // SPEED_UNKNOWN as "%d" (a link that is down, virtio_net), and as "%u" before 4.x.
  CHECK_FALSE(parse_sysfs_speed("-1\n"));
  CHECK_FALSE(parse_sysfs_speed("4294967295\n"));
  CHECK_FALSE(parse_sysfs_speed("65535\n"));  // the 16-bit SPEED_UNKNOWN of old drivers
  CHECK_FALSE(parse_sysfs_speed("0\n"));
  // An empty file: the capture read failed (EINVAL: the interface was not running).
  CHECK_FALSE(parse_sysfs_speed(""));
  // Hostile: garbage, overflow, trailing junk, a second number, NUL bytes.
  CHECK_FALSE(parse_sysfs_speed("fast\n"));
  CHECK_FALSE(parse_sysfs_speed("99999999999999999999999\n"));
  CHECK_FALSE(parse_sysfs_speed("2147483648\n"));
  CHECK_FALSE(parse_sysfs_speed("-9223372036854775808\n"));
  CHECK_FALSE(parse_sysfs_speed("10000Mb/s\n"));
  CHECK_FALSE(parse_sysfs_speed("10000 25000\n"));
  CHECK_FALSE(parse_sysfs_speed(std::string("10000\0", 6)));
  CHECK(parse_sysfs_duplex("full\n") == Duplex::full);
  CHECK(parse_sysfs_duplex("half\n") == Duplex::half);
  CHECK_FALSE(parse_sysfs_duplex("unknown\n"));
  CHECK_FALSE(parse_sysfs_duplex("fullish"));
  CHECK(parse_link_up("up\n", "1\n") == true);
  CHECK(parse_link_up("down\n", std::nullopt) == false);
  CHECK(parse_link_up("lowerlayerdown\n", std::nullopt) == false);
  CHECK(parse_link_up("unknown\n", "1\n") == true);  // a driver that sets no operstate
  CHECK(parse_link_up("unknown\n", std::nullopt) == std::nullopt);
  CHECK(parse_link_up(std::nullopt, std::nullopt) == std::nullopt);
}

TEST_CASE("nic capture: ethtool -l and -g output") {
  // ethtool 6.1 on mlx5 (zero maximums are not reported: n/a) and on bnx2 with the
  // ethtool 3.x of a RHEL 7 capture, which prints them as 0.
  auto mlx5 = parse_ethtool_show(
      "Channel parameters for ens1f0np0:\nPre-set maximums:\nRX:\t\tn/a\nTX:\t\tn/a\n"
      "Other:\t\tn/a\nCombined:\t63\nCurrent hardware settings:\nRX:\t\tn/a\nTX:\t\tn/a\n"
      "Other:\t\tn/a\nCombined:\t24\n");
  REQUIRE(mlx5);
  Channels c = channels_from(*mlx5);
  CHECK(c.combined == 24u);
  CHECK(c.combined_max == 63u);
  CHECK_FALSE(c.rx);
  CHECK_FALSE(c.other_max);
  auto bnx2 = parse_ethtool_show(
      "Channel parameters for eth0:\nPre-set maximums:\nRX:\t\t8\nTX:\t\t8\nOther:\t\t0\n"
      "Combined:\t0\nCurrent hardware settings:\nRX:\t\t8\nTX:\t\t8\nOther:\t\t0\n"
      "Combined:\t0\n");
  REQUIRE(bnx2);
  c = channels_from(*bnx2);
  CHECK(c.rx == 8u);
  CHECK(c.combined_max == 0u);
  auto rings = parse_ethtool_show(
      "Ring parameters for ens1f0np0:\nPre-set maximums:\nRX:\t\t\t8192\nRX Mini:\t\tn/a\n"
      "RX Jumbo:\t\tn/a\nTX:\t\t\t8192\nCurrent hardware settings:\nRX:\t\t\t1024\n"
      "RX Mini:\t\tn/a\nRX Jumbo:\t\tn/a\nTX:\t\t\t1024\nRX Buf Len:\t\tn/a\n"
      "CQE Size:\t\tn/a\nTX Push:\t\toff\n");
  REQUIRE(rings);
  Rings r = rings_from(*rings);
  CHECK(r.rx == 1024u);
  CHECK(r.tx_max == 8192u);
  // Not ethtool's output: unknown, not an empty answer.
  CHECK_FALSE(parse_ethtool_show(""));
  CHECK_FALSE(parse_ethtool_show("RX: 8\nCombined: 4\n"));
  CHECK_FALSE(parse_ethtool_show(std::string(1 << 16, 'x')));
  // Garbage values inside the sections are unknown fields; a flood of rows is cut.
  std::string flood = "Pre-set maximums:\nCombined: 99999999999\nRX: -3\n";
  for (int i = 0; i < 10000; ++i) flood += "Row" + std::to_string(i) + ": 1\n";
  auto f = parse_ethtool_show(flood);
  REQUIRE(f);
  CHECK(f->rows.size() <= 64);
  CHECK_FALSE(channels_from(*f).combined_max);
  CHECK_FALSE(channels_from(*f).rx_max);
}

TEST_CASE("nic capture: hostile link files give unknown, never a wait or a crash") {
  testing::HangGuard guard;
  testing::TempDir tmp;
  const std::string dev = tmp.path + "/sys/class/net/eth0";
  testing::write_file(dev + "/operstate", "up\n");
  testing::write_file(dev + "/type", "1\n");
  auto probe = [&] {
    auto root = Root::open(tmp.path);
    REQUIRE(root.ok());
    std::vector<ProbeError> errors;
    auto nics = probe_nics(*root, nullptr, errors);
    REQUIRE(nics.size() == 1);
    return nics[0];
  };
  testing::write_file(dev + "/speed", "25000\n");
  testing::write_file(dev + "/duplex", "full\n");
  Nic ok = probe();
  CHECK(ok.link.speed_mbps == 25000u);
  CHECK(ok.link.duplex == Duplex::full);
  CHECK(ok.link.up == true);
  for (const char* text : {"garbage\n", "18446744073709551616\n", "-1\n", "\xff\xfe\n", ""}) {
    CAPTURE(text);
    testing::write_file(dev + "/speed", text);
    CHECK_FALSE(probe().link.speed_mbps);
  }
  // Past the bounded reader's 16 MiB (sparse: no disk), a FIFO, a directory.
  std::filesystem::remove(dev + "/speed");
  testing::write_file(dev + "/speed", "");
  std::filesystem::resize_file(dev + "/speed", (std::uintmax_t{16} << 20) + 1);
  CHECK_FALSE(probe().link.speed_mbps);
  std::filesystem::remove(dev + "/speed");
  REQUIRE(::mkfifo((dev + "/speed").c_str(), 0600) == 0);
  REQUIRE(::mkfifo((dev + "/duplex.fifo").c_str(), 0600) == 0);
  std::filesystem::remove(dev + "/duplex");
  std::filesystem::rename(dev + "/duplex.fifo", dev + "/duplex");
  Nic fifo = probe();
  CHECK_FALSE(fifo.link.speed_mbps);
  CHECK_FALSE(fifo.link.duplex);
  std::filesystem::remove(dev + "/speed");
  std::filesystem::create_directories(dev + "/speed");
  CHECK_FALSE(probe().link.speed_mbps);
  // The ethtool files of a capture: a FIFO or garbage is no channels, not a hang.
  REQUIRE(::mkfifo((tmp.path + "/ethtool-fifo").c_str(), 0600) == 0);
  std::filesystem::create_directories(tmp.path + "/ethtool/eth0");
  std::filesystem::rename(tmp.path + "/ethtool-fifo", tmp.path + "/ethtool/eth0/channels");
  testing::write_file(tmp.path + "/ethtool/eth0/rings", "\x1b[2J nonsense\n");
  Nic hostile = probe();
  CHECK_FALSE(hostile.channels);
  CHECK_FALSE(hostile.rings);
}

}  // namespace tuner
