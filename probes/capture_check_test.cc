// check_capture: what hwloc would hang or blow up on is refused before it is pointed at
// a capture; real captures and links inside them pass.
#include "probes/capture_check.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include <doctest/doctest.h>

#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"

using namespace tuner;
namespace fs = std::filesystem;

namespace {

std::string checked(const std::string& dir) {
  auto root = Root::open(dir);
  REQUIRE(root.ok());
  Status s = check_capture(*root);
  return s.ok() ? "ok" : s.error().message();
}

}  // namespace

TEST_CASE("capture check: every fixture capture passes") {
  for (const std::string& tarball : testing::fixture_files("sysfs", ".tar.bz2")) {
    INFO(tarball);
    CHECK(checked(testing::shared_fixture(tarball)) == "ok");
  }
}

TEST_CASE("capture check: the live root is not walked") { CHECK(check_capture(Root::live()).ok()); }

TEST_CASE("capture check: links inside the capture pass, dangling ones too") {
  testing::TempDir tmp;
  tmp.write("sys/devices/pci0000:00/net/eth0/mtu", "1500\n");
  fs::create_directories(tmp / "sys/class/net");
  fs::create_symlink("../../devices/pci0000:00/net/eth0", tmp / "sys/class/net/eth0");
  fs::create_symlink("../../devices/gone", tmp / "sys/class/net/eth9");
  fs::create_symlink("loop", tmp / "sys/loop");
  CHECK(checked(tmp.path) == "ok");
}

TEST_CASE("capture check: FIFOs, devices, sockets and links out are refused, named") {
  testing::TempDir tmp;
  tmp.write("proc/cpuinfo", "processor : 0\n");
  fs::create_directories(tmp / "sys/devices/system/cpu");
  std::string cpu = tmp / "sys/devices/system/cpu";
  SUBCASE("a FIFO, deep in the tree") {
    REQUIRE(::mkfifo((cpu + "/online").c_str(), 0600) == 0);
    CHECK(checked(tmp.path) == cpu + "/online: a FIFO, not a file: a capture holds files, "
                                     "directories and links");
  }
  SUBCASE("a link to a FIFO inside the capture: the FIFO itself is found") {
    REQUIRE(::mkfifo((tmp / "sys/fifo").c_str(), 0600) == 0);
    fs::create_symlink("../../../fifo", cpu + "/online");
    std::string msg = checked(tmp.path);
    CHECK((msg.starts_with(tmp / "sys/fifo: a FIFO, not a file") ||
           msg.starts_with(cpu + "/online: a link to a FIFO, not a file")));
  }
  SUBCASE("an absolute link: hwloc would follow it to this machine") {
    fs::remove(tmp / "proc/cpuinfo");
    fs::create_symlink("/dev/zero", tmp / "proc/cpuinfo");
    CHECK(checked(tmp.path) ==
          tmp / "proc/cpuinfo: a link that leads out of the capture (hwloc would follow it)");
  }
  SUBCASE("a relative link that climbs out") {
    fs::create_symlink("../../../../../../../../../../../../etc/passwd", cpu + "/online");
    CHECK(checked(tmp.path).starts_with(cpu + "/online: a link that leads out"));
  }
  SUBCASE("a character device") {
    if (::mknod((cpu + "/online").c_str(), S_IFCHR | 0600, makedev(1, 5)) != 0) {
      MESSAGE("mknod needs CAP_MKNOD here: " << std::strerror(errno) << "; skipped");
      return;
    }
    CHECK(checked(tmp.path).starts_with(cpu + "/online: a character device, not a file"));
  }
  SUBCASE("a sparse file too large to be a /proc or /sys file") {
    fs::resize_file(tmp / "proc/cpuinfo", kMaxFileBytes + 1);
    CHECK(checked(tmp.path) == tmp / "proc/cpuinfo: larger than 16777216 bytes: not a /proc or "
                                     "/sys file");
  }
}
