// `tuner check` end to end through the real binary on the R910 capture and the
// overlays of tests/fixtures/check: the exit status against --fail-on, tuner.check/1
// JSON, bad input, and that a capture is only read.
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "tests/support/cli.h"
#include "tests/support/files.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"
#include "tuner/check/finding.h"

using nlohmann::json;

namespace {

using tuner::testing::run_tuner;
using tuner::testing::shell_quote;

/// The R910 with its IRQs and one overlay of tests/fixtures/check ("" for none).
struct Capture {
  explicit Capture(const std::string& overlay = "")
      : fx("40intel64-2g2n4c+pci.tar.bz2", overlays(overlay)) {}
  static std::vector<std::string> overlays(const std::string& overlay) {
    std::vector<std::string> out = {tuner::testing::test_data_path("irq/r910")};
    if (!overlay.empty()) out.push_back(tuner::testing::test_data_path("check/" + overlay));
    return out;
  }
  std::string root() const { return "--root " + shell_quote(fx.root()); }
  tuner::testing::ScopedFixture fx;
};

/// Every field of tuner.check/1 with its type (DESIGN.md "JSON").
void check_schema(const json& j) {
  REQUIRE(j.is_object());
  CHECK(j["schema"] == "tuner.check/1");
  CHECK(j["target"].is_string());
  CHECK((j["profile"].is_null() || j["profile"].is_string()));
  CHECK(j["window_s"].is_number());
  CHECK((j["worst"].is_null() || j["worst"].is_string()));
  for (const char* s : {"info", "warning", "error"}) CHECK(j["counts"][s].is_number_unsigned());
  REQUIRE(j["findings"].is_array());
  for (const json& f : j["findings"]) {
    for (const char* k : {"rule", "severity", "subject", "summary", "fix"}) CHECK(f[k].is_string());
    CHECK(f["severity"].get<std::string>().find_first_not_of("inforwangerr") == std::string::npos);
    REQUIRE(f["evidence"].is_array());
    CHECK_FALSE(f["evidence"].empty());
    for (const json& e : f["evidence"]) CHECK((e["what"].is_string() && e["value"].is_string()));
  }
  REQUIRE(j["skipped"].is_array());
  for (const json& s : j["skipped"])
    CHECK((s["rule"].is_string() && s["why"].is_string() && s["unreadable"].is_boolean()));
  CHECK(j["errors"].is_array());
}

}  // namespace

TEST_CASE("check command: a healthy capture exits 0 and reports nothing above info") {
  Capture c;
  auto r = run_tuner("check --json " + c.root());
  CHECK(r.code == 0);
  json j = json::parse(r.out);
  check_schema(j);
  CHECK(j["counts"]["warning"] == 0);
  CHECK(j["counts"]["error"] == 0);
  CHECK(j["window_s"] == 0);  // a capture is not sampled unless asked
  auto text = run_tuner("check " + c.root());
  CHECK(text.code == 0);
  CHECK(text.out.find("not checked:") != std::string::npos);
}

TEST_CASE("check command: a finding at or above --fail-on exits 1") {
  Capture narrow("pcie-narrow");   // an error
  Capture one_cpu("irq-one-cpu");  // a warning
  auto r = run_tuner("check --json " + narrow.root());
  CHECK(r.code == 1);
  json j = json::parse(r.out);
  check_schema(j);
  REQUIRE(j["findings"].size() == 1);
  CHECK(j["findings"][0]["rule"] == "pcie.link_degraded");
  CHECK(j["findings"][0]["severity"] == "error");
  CHECK(j["findings"][0]["subject"] == "0000:43:00.0");
  CHECK(j["worst"] == "error");

  CHECK(run_tuner("check --fail-on error " + narrow.root()).code == 1);
  CHECK(run_tuner("check --fail-on error " + one_cpu.root()).code == 0);
  CHECK(run_tuner("check " + one_cpu.root()).code == 1);  // default: warning
  CHECK(run_tuner("check --fail-on info " + one_cpu.root()).code == 1);
  // Monitoring reads the report: never exits 0 with the same findings in it.
  auto never = run_tuner("check --fail-on never --json " + one_cpu.root());
  CHECK(never.code == 0);
  CHECK(never.out.find("irq.queues_one_cpu") != std::string::npos);
  auto text = run_tuner("check " + one_cpu.root());
  CHECK(text.out.find("irq.queues_one_cpu") != std::string::npos);
  CHECK(text.out.find("fix:") != std::string::npos);
}

TEST_CASE("check command: a real export with a GPU on a node without a NIC") {
  // Supermicro X9DRG-HF (hwloc's test data): the GPU on node 0, mlx5 and eth on node 1.
  auto r = run_tuner("check --json --topology " + std::string(TUNER_FIXTURES) +
                     "/topologies/32em64t-2n8c2t-pci-normalio.xml");
  CHECK(r.code == 1);
  json j = json::parse(r.out);
  check_schema(j);
  REQUIRE(j["findings"].size() == 1);
  CHECK(j["findings"][0]["rule"] == "gpu.no_local_nic");
  CHECK(j["findings"][0]["severity"] == "warning");
  CHECK(j["findings"][0]["subject"] == "0000:03:00.0");
  CHECK(j["window_s"] == 0);  // an export has no counters
}

TEST_CASE("check command: the governor rule takes --profile as plan does") {
  Capture c("governor-powersave");
  auto r = run_tuner("check --json --profile throughput " + c.root());
  CHECK(r.code == 1);
  json j = json::parse(r.out);
  check_schema(j);
  CHECK(j["profile"] == "throughput");
  REQUIRE(j["findings"].size() == 1);
  CHECK(j["findings"][0]["rule"] == "cpu.governor_powersave");
  CHECK(j["findings"][0]["severity"] == "error");
  // balanced sets no governor: nothing to compare with.
  CHECK(run_tuner("check --profile balanced " + c.root()).code == 0);
  // A profile that does not load is bad input, as in plan.
  CHECK(run_tuner("check --profile no-such-profile " + c.root()).code == 2);
  // Chosen automatically: a broken profile of the search path is named, as in plan.
  tuner::testing::TempDir dir;
  dir.write("gpu-node.toml", "[profile]\nname = \"gpu-node\"\n[sysctl]\n\"vm.swappiness\" = [\n");
  auto w = run_tuner("check --profile-path " + dir.path + " " + c.root());
  CHECK(w.err.find("tuner: warning: left out of automatic selection: ") != std::string::npos);
  CHECK(w.err.find("gpu-node.toml:") != std::string::npos);
}

TEST_CASE("check command: bad input exits 2") {
  Capture c;
  for (const char* args : {"--fail-on warn", "--fail-on ''", "--window 5", "--window -1s",
                           "--window 2h", "--no-such-option", "--root /nonexistent-tuner-root"}) {
    CAPTURE(args);
    auto r = run_tuner(std::string("check ") + args +
                       (std::string(args).find("--root") == 0 ? "" : " " + c.root()));
    CHECK(r.code == 2);
    CHECK(r.err.starts_with("tuner: "));
  }
  // --window 0 is a valid way to skip the sampling.
  CHECK(run_tuner("check --window 0 " + c.root()).code == 0);
}

TEST_CASE("check command: a capture it could not read is not \"no findings\" with exit 0") {
  // Every rule of tuner.check/1, as the schema lists them.
  std::ifstream schema_file(std::string(TUNER_TEST_DATA) +
                            "/../../schemas/tuner.check-1.schema.json");
  const json schema = json::parse(schema_file);
  const json& rules = schema["$defs"]["rule"]["enum"];
  REQUIRE(rules.size() == tuner::kAllRules.size());  // a rule added to the table is in it
  auto skipped_rules = [](const json& j) {
    std::set<std::string> out;
    for (const json& s : j["skipped"]) out.insert(s["rule"].get<std::string>());
    return out;
  };

  SUBCASE("an empty directory as --root: every rule skipped, exit 3") {
    tuner::testing::TempDir empty;
    auto r = run_tuner("check --json --root " + shell_quote(empty.path));
    CHECK(r.code == 3);
    json j = json::parse(r.out);
    check_schema(j);
    CHECK(j["target"] == "root:" + empty.path);
    CHECK(j["findings"].empty());
    CHECK(skipped_rules(j) == std::set<std::string>(rules.begin(), rules.end()));
    unsigned unread = 0;
    for (const json& s : j["skipped"]) unread += s["unreadable"].get<bool>();
    CHECK(unread >= 6);  // pcie, irq x2, gpu x2, cpu.vulnerable at least
    CHECK_FALSE(j["errors"].empty());
    // The text does not say "no findings" alone, and names what it could not read.
    auto text = run_tuner("check --root " + shell_quote(empty.path));
    CHECK(text.code == 3);
    CHECK(text.out.find("no findings on") == std::string::npos);
    CHECK(text.out.find("rules not checked on root:") != std::string::npos);
    CHECK(text.out.find("pcie.link_degraded: unreadable: the topology probe failed") !=
          std::string::npos);
    // Monitoring that reads the report asked for 0 whatever happens.
    CHECK(run_tuner("check --fail-on never --root " + shell_quote(empty.path)).code == 0);
  }
  SUBCASE("a capture with an empty sys/: exit 3, the sysfs rules unreadable") {
    Capture c;
    std::filesystem::remove_all(c.fx.root() + "/sys");
    std::filesystem::create_directory(c.fx.root() + "/sys");
    auto r = run_tuner("check --json --window 1s " + c.root());
    CHECK(r.code == 3);
    json j = json::parse(r.out);
    check_schema(j);
    std::set<std::string> unread;
    for (const json& s : j["skipped"])
      if (s["unreadable"].get<bool>()) unread.insert(s["rule"].get<std::string>());
    for (const char* rule : {"pcie.link_degraded", "gpu.no_local_nic", "nic.counters_rising",
                             "nic.disappeared", "irq.queues_one_cpu", "cpu.vulnerable"}) {
      CAPTURE(rule);
      CHECK(unread.contains(rule));
    }
  }
  SUBCASE("a finding at --fail-on outranks what could not be read: exit 1") {
    // The bare R910 has no proc/interrupts (the IRQ rules cannot run) and a narrow link.
    tuner::testing::ScopedFixture bare("40intel64-2g2n4c+pci.tar.bz2",
                                       tuner::testing::test_data_path("check/pcie-narrow"));
    auto r = run_tuner("check --json --root " + shell_quote(bare.root()));
    CHECK(r.code == 1);
    json j = json::parse(r.out);
    check_schema(j);
    CHECK(j["worst"] == "error");
    bool irq_unread = false;
    for (const json& s : j["skipped"])
      irq_unread |= s["rule"] == "irq.queues_one_cpu" && s["unreadable"].get<bool>();
    CHECK(irq_unread);
    // Below --fail-on, the rules it could not read decide.
    CHECK(run_tuner("check --fail-on never --root " + shell_quote(bare.root())).code == 0);
  }
}

TEST_CASE("check command: CUDA runtimes newer than the driver, through the binary") {
  Capture c("nvidia-470");
  for (const char* overlay : {"cuda-11.6", "cudart-12.2"})
    std::filesystem::copy(
        tuner::testing::test_data_path(std::string("check/") + overlay), c.fx.root(),
        std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks |
            std::filesystem::copy_options::overwrite_existing);
  auto r = run_tuner("check --json " + c.root());
  CHECK(r.code == 1);
  json j = json::parse(r.out);
  check_schema(j);
  REQUIRE(j["findings"].size() == 2);
  CHECK(j["findings"][0]["rule"] == "gpu.cuda_newer_than_driver");
  CHECK(j["findings"][0]["severity"] == "error");
  CHECK(j["findings"][0]["subject"] == "CUDA 12.2");
  CHECK(j["findings"][1]["severity"] == "warning");
  CHECK(j["findings"][1]["subject"] == "CUDA 11.6");
}
