// NetworkManager keyfiles: a connection as nmcli writes it, the legacy group name, and
// what is refused; the three folders read through a Root.
#include "probes/nm_keyfile.h"

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>

#include "tests/support/files.h"
#include "tests/support/temp_dir.h"

namespace tuner {

TEST_CASE("nm keyfile: a connection with ethtool and link properties") {
  std::string file = "etc/NetworkManager/system-connections/uplink.nmconnection";
  auto c = parse_nm_keyfile(testing::read_test_data("check/networkmanager/" + file), file);
  REQUIRE(c.ok());
  CHECK(c->id == "uplink");
  CHECK(c->interface_name == "eth0");
  CHECK(c->autoconnect);
  REQUIRE(c->properties.size() == 3);
  CHECK(c->properties[0].key == "ethernet.mtu");
  CHECK(c->properties[0].value == "9000");
  CHECK(c->properties[1].key == "ethtool.ring-rx");
  CHECK(c->properties[1].value == "1024");
  CHECK(c->properties[1].line == 11);

  auto legacy = parse_nm_keyfile(
      "[connection]\nid=a\\sb\nautoconnect=false\n[802-3-ethernet]\nmac-address=AA:BB:CC:00:11:22\n"
      "speed=1000\n# comment\n[match]\ninterface-name=ens1;ens2\n",
      "x.nmconnection");
  REQUIRE(legacy.ok());
  CHECK(legacy->id == "a b");
  CHECK_FALSE(legacy->autoconnect);
  CHECK(legacy->mac == "aa:bb:cc:00:11:22");
  CHECK(legacy->interface_name == "ens1");
  REQUIRE(legacy->properties.size() == 2);
  CHECK(legacy->properties[1].key == "ethernet.speed");

  CHECK(parse_nm_keyfile("id=x\n", "f").error().where == "f:1");
  CHECK(parse_nm_keyfile("[connection\n", "f").error().is(ErrorKind::invalid));
  CHECK(parse_nm_keyfile("[ethtool]\nring-rx\n", "f").error().where == "f:2");
  CHECK(parse_nm_keyfile("", "dir/f.nmconnection")->id == "f.nmconnection");
}

TEST_CASE("nm keyfile: the three folders, and files that are not read") {
  testing::TempDir dir;
  std::string etc = dir.path + "/etc/NetworkManager/system-connections/";
  testing::write_file(etc + "a.nmconnection", "[connection]\nid=a\n");
  testing::write_file(etc + "notes.txt", "[connection]\nid=ignored\n");
  testing::write_file(etc + "bad.nmconnection", "garbage\n");
  testing::write_file(dir.path + "/run/NetworkManager/system-connections/r.nmconnection",
                      "[connection]\nid=r\n");
  REQUIRE(::mkfifo((etc + "fifo.nmconnection").c_str(), 0600) == 0);
  testing::HangGuard guard;
  std::vector<ProbeError> errors;
  auto all = read_nm_connections(Root::open(dir.path).value(), errors);
  REQUIRE(all.size() == 2);
  CHECK(all[0].id == "a");
  CHECK(all[1].id == "r");
  CHECK(all[1].file == "run/NetworkManager/system-connections/r.nmconnection");
  CHECK(errors.size() == 2);  // the garbage and the FIFO, each named
}

}  // namespace tuner
