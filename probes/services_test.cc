// Unit enablement from systemd's symlinks and daemons from proc/PID/comm, on a tree laid
// out as `systemctl enable` and `systemctl mask` leave it.
#include "probes/services.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>

#include "tests/support/files.h"
#include "tests/support/temp_dir.h"

namespace tuner {

TEST_CASE("services: enabled, masked, neither") {
  testing::TempDir dir;
  namespace fs = std::filesystem;
  Root root = Root::open(dir.path).value();
  CHECK_FALSE(unit_enablement(root, "tuned.service").enabled);
  fs::create_directories(dir.path + "/etc/systemd/system/multi-user.target.wants");
  fs::create_symlink("/lib/systemd/system/tuned.service",
                     dir.path + "/etc/systemd/system/multi-user.target.wants/tuned.service");
  auto e = unit_enablement(root, "tuned.service");
  CHECK(e.enabled);
  CHECK_FALSE(e.masked);
  CHECK(e.via == "etc/systemd/system/multi-user.target.wants/tuned.service");
  CHECK_FALSE(unit_enablement(root, "NetworkManager.service").enabled);
  fs::create_symlink("/dev/null", dir.path + "/etc/systemd/system/tuned.service");
  CHECK(unit_enablement(root, "tuned.service").masked);
  // Wanted by another unit, at runtime.
  fs::create_directories(dir.path + "/run/systemd/system/tuned.service.wants");
  testing::write_file(dir.path + "/run/systemd/system/tuned.service.wants/x.service", "");
  CHECK(unit_enablement(root, "x.service").enabled);
}

TEST_CASE("services: a daemon by its comm") {
  testing::TempDir dir;
  Root root = Root::open(dir.path).value();
  CHECK_FALSE(process_running(root, "tuned").ok());  // no proc at all
  testing::write_file(dir.path + "/proc/self/comm", "x\n");
  CHECK_FALSE(process_running(root, "tuned")->has_value());  // no process folders
  testing::write_file(dir.path + "/proc/42/comm", "NetworkManager\n");
  CHECK(process_running(root, "NetworkManager").value() == true);
  CHECK(process_running(root, "tuned").value() == false);
  // The live machine: this test's own process.
  CHECK(process_running(Root::live(), "tuner_tests").value() == true);
}

}  // namespace tuner
