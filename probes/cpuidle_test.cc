// The cpuidle table: on the reconstructed intel_idle roots (tests/fixtures/host/cpuidle),
// on the captured Dell R910 (an old kernel: the poll state called "C0", no disable
// files), and on trees with something wrong in them.
#include "probes/cpuidle.h"

#include <doctest/doctest.h>

#include <filesystem>

#include "probes/inventory_json.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"

using namespace tuner;

namespace {

const std::string kCpuidle = TUNER_TEST_DATA "/host/cpuidle/";

std::optional<Cpuidle> probe(const std::string& dir, std::vector<ProbeError>& errors) {
  return probe_cpuidle(Root::open(dir).value(), errors);
}

/// "POLL 0, C1 1, C1E 2, C6 290".
std::string table_text(const Cpuidle& t) {
  std::string out;
  for (const IdleState& s : t.states)
    out += (out.empty() ? "" : ", ") + s.name + " " +
           (s.latency_us ? std::to_string(*s.latency_us) : "?");
  return out;
}

}  // namespace

TEST_CASE("cpuidle: intel_idle's tables, the poll state first, every state enabled") {
  for (const auto& table : {std::pair{"spr", "POLL 0, C1 1, C1E 2, C6 290"},
                            std::pair{"skx", "POLL 0, C1 2, C1E 10, C6 133"},
                            std::pair{"gnr", "POLL 0, C1 1, C1E 4, C6 170"}}) {
    // Not a structured binding: clang 14 cannot capture one (CAPTURE is a lambda).
    const std::string dir = table.first;
    const std::string text = table.second;
    CAPTURE(dir);
    std::vector<ProbeError> errors;
    auto t = probe(kCpuidle + dir, errors);
    CHECK(errors.empty());
    REQUIRE(t);
    CHECK(t->cpu == 0);
    CHECK(t->driver == "intel_idle");
    CHECK(table_text(*t) == text);
    for (const IdleState& s : t->states) {
      CHECK(s.polling == (s.index == 0));
      CHECK(s.disabled == false);
    }
  }
}

TEST_CASE("cpuidle: the first online CPU's table; an old kernel's poll state is \"C0\"") {
  testing::TempDir t;
  std::filesystem::copy(kCpuidle + "skx", t.path, std::filesystem::copy_options::recursive);
  t.write("sys/devices/system/cpu/online", "2-3\n");
  std::filesystem::remove_all(t / "sys/devices/system/cpu/cpu2/cpuidle/state3");
  std::vector<ProbeError> errors;
  auto table = probe(t.path, errors);
  REQUIRE(table);
  CHECK(table->cpu == 2);
  CHECK(table_text(*table) == "POLL 0, C1 2, C1E 10");

  // The Dell R910's capture (an old kernel: no disable files, the poll state named
  // C0 with the poll loop's description).
  auto r910 = probe(testing::shared_fixture("40intel64-2g2n4c+pci.tar.bz2"), errors);
  CHECK(errors.empty());
  REQUIRE(r910);
  CHECK(r910->driver == "intel_idle");
  CHECK(table_text(*r910) == "C0 0, NHM-C1 3, NHM-C3 20, NHM-C6 200");
  CHECK(r910->states[0].polling);
  CHECK_FALSE(r910->states[1].polling);
  CHECK_FALSE(r910->states[1].disabled);
}

TEST_CASE("cpuidle: no table is unknown, without an error; a capture without per-CPU tables") {
  testing::TempDir t;
  t.write("sys/devices/system/cpu/online", "0-3\n");
  t.write("sys/devices/system/cpu/cpuidle/current_driver", "none\n");
  std::vector<ProbeError> errors;
  CHECK_FALSE(probe(t.path, errors));
  t.write("sys/devices/system/cpu/cpu0/cpuidle/.keep", "");  // a folder with no states
  CHECK_FALSE(probe(t.path, errors));
  CHECK(errors.empty());
  // hwloc's AMD captures keep cpuidle/current_driver (acpi_idle) and no cpuN/cpuidle.
  CHECK_FALSE(probe(testing::shared_fixture("64amd64-4s2n4ca2co.tar.bz2"), errors));
  CHECK(errors.empty());
}

TEST_CASE("cpuidle: a latency or disable file with garbage leaves that field unknown") {
  testing::TempDir t;
  std::filesystem::copy(kCpuidle + "spr", t.path, std::filesystem::copy_options::recursive);
  const std::string c0 = "sys/devices/system/cpu/cpu0/cpuidle/";
  t.write(c0 + "state2/latency", "two\n");
  t.write(c0 + "state3/disable", "\x01maybe\n");
  std::vector<ProbeError> errors;
  auto table = probe(t.path, errors);
  REQUIRE(table);
  CHECK(table_text(*table) == "POLL 0, C1 1, C1E ?, C6 290");
  CHECK(table->states[3].disabled == std::nullopt);
  CHECK(table->states[3].latency_us == 290u);
  REQUIRE(errors.size() == 2);
  CHECK(errors[0].probe == "cpuidle");
  CHECK(errors[0].message.find("state2/latency") != std::string::npos);
  CHECK(errors[0].message.find("'two' is not a number: the state's exit latency is unknown") !=
        std::string::npos);
  CHECK(errors[1].message.find("'\\x01maybe'") != std::string::npos);

  auto j = [&] {
    Inventory inv;
    inv.cpuidle = table;
    return to_json(inv)["cpuidle"];
  }();
  CHECK(j["cpu"] == 0);
  CHECK(j["driver"] == "intel_idle");
  REQUIRE(j["states"].size() == 4);
  CHECK(j["states"][0] == nlohmann::json{{"state", 0},
                                         {"name", "POLL"},
                                         {"polling", true},
                                         {"latency_us", 0},
                                         {"disabled", false}});
  CHECK(j["states"][2]["latency_us"].is_null());
  CHECK(j["states"][3]["disabled"].is_null());
  CHECK(to_json(Inventory{})["cpuidle"].is_null());
}
