// tuner restore at boot: what it will not re-apply blind.
#include <unistd.h>

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "rollback/state.h"
#include "tests/support/cli.h"
#include "tests/support/temp_dir.h"

namespace tuner {

TEST_CASE("restore: an IRQ kept by number is not re-applied after a reboot, and says so") {
  if (::geteuid() != 0) return;  // restore is root's
  testing::TempDir tmp;
  auto dir = StateDir::open(tmp.path + "/state", true);
  REQUIRE_MESSAGE(dir.ok(), dir.error().message());
  State s;
  // IRQ 57 had no MSI index when it was planned: after a reboot 57 may be another
  // device's (issue 41). Nothing may be written to /proc/irq/57.
  s.knobs["irq:57:affinity"] = {"3", "0-7", "20261206T100000Z-0001", "irq", {}};
  REQUIRE(save_state(*dir, s).ok());
  auto r = testing::run_tuner("restore --json --state-dir " + tmp.path + "/state");
  REQUIRE_MESSAGE(r.code == 0, r.err);
  auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["groups"].size() == 1);
  const auto& c = j["groups"][0]["changes"][0];
  CHECK(c["knob"] == "irq:57:affinity");
  CHECK(c["status"] == "skipped");
  CHECK(c["error"].get<std::string>().find("named by IRQ number") != std::string::npos);
  // Still kept: a later apply plans it again by whatever id the kernel gives then.
  auto kept = load_state(*dir);
  REQUIRE(kept.ok());
  CHECK(kept->knobs.count("irq:57:affinity") == 1);
}

}  // namespace tuner
