// Root::read goes through the bounded reader: /proc files (size 0) read whole, while a
// FIFO planted in a capture or a device that never ends are refused by type, not hangs.
#include "probes/root.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <doctest/doctest.h>

#include <string>

#include "tests/support/temp_dir.h"

using namespace tuner;

TEST_CASE("root: /proc and /sys files read whole on the live machine") {
  Root live = Root::live();
  auto status = live.read("proc/self/status");
  REQUIRE_MESSAGE(status.ok(), status.error().message());
  CHECK(status->find("\nPid:") != std::string::npos);
  auto online = live.read("/sys/devices/system/cpu/online");
  REQUIRE_MESSAGE(online.ok(), online.error().message());
  CHECK(!online->empty());
}

TEST_CASE("root: a FIFO in a captured tree is an error at once") {
  testing::HangGuard guard;
  testing::TempDir tmp;
  tmp.write("proc/version", "Linux version 6.1.0\n");
  REQUIRE(::mkfifo((tmp / "proc/interrupts").c_str(), 0600) == 0);
  auto root = Root::open(tmp.path);
  REQUIRE(root.ok());
  CHECK(root->read("proc/version").value_or("") == "Linux version 6.1.0\n");
  // With or without a writer: refused by type, never read as an empty file or waited on.
  auto no_writer = root->read("proc/interrupts");
  REQUIRE_FALSE(no_writer.ok());
  CHECK(no_writer.error().message() == "proc/interrupts: not a regular file (a FIFO)");
  UniqueFd writer(::open((tmp / "proc/interrupts").c_str(), O_RDWR | O_CLOEXEC));
  REQUIRE(writer);
  auto blocked = root->read("proc/interrupts");
  REQUIRE_FALSE(blocked.ok());
  CHECK(blocked.error().is(ErrorKind::invalid));
  CHECK(blocked.error().where == "proc/interrupts");
}

TEST_CASE("root: an endless device is refused by type") {
  testing::HangGuard guard;
  auto zero = Root::live().read("dev/zero");
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.error().is(ErrorKind::invalid));
  CHECK(zero.error().message() == "dev/zero: not a regular file (a character device)");
}

TEST_CASE("root: a directory is not read as a file") {
  testing::TempDir tmp;
  tmp.write("sys/x/file", "1\n");
  auto r = Root::open(tmp.path)->read("sys/x");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().err == EISDIR);
}

TEST_CASE("root: open_fd hands over a descriptor the caller's UniqueFd owns") {
  testing::TempDir tmp;
  tmp.write("sys/class/net/eth0/mtu", "1500\n");
  auto root = Root::open(tmp.path);
  REQUIRE(root.ok());
  int raw = -1;
  {
    auto fd = root->open_fd("sys/class/net/eth0", O_DIRECTORY);
    REQUIRE(fd.ok());
    raw = fd->get();
    CHECK(::fcntl(raw, F_GETFD) != -1);
  }
  CHECK(::fcntl(raw, F_GETFD) == -1);  // closed with the UniqueFd
  auto missing = root->open_fd("sys/class/net/eth1");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().err == ENOENT);
  CHECK(missing.error().where == tmp.path + "/sys/class/net/eth1");
}
