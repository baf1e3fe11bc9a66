// tuner report on a generated fleet: 1,000 real tuner.run/1 documents (the run report
// serializer, node facts of a captured DGX Spark), three nodes with an older BIOS and
// one that failed. The odd ones must be named; the majority must not.
#include <unistd.h>

#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "probes/inventory_json.h"
#include "probes/probe.h"
#include "rollback/run_report.h"
#include "tests/support/cli.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"
#include "tuner/cli/report/fleet.h"

namespace tuner {
namespace {

using testing::run_tuner;
using testing::TempDir;

/// Writes n run reports into dir: node-0000.., BIOS "5.36_0ACUM018" but for old_bios.
void write_fleet(const TempDir& dir, int n, const std::vector<int>& old_bios, int failed) {
  ProbeOptions options;
  options.netlink = false;
  Inventory inv = probe_inventory(
      Root::open(testing::shared_fixture("nvidia-dgx-gb10.tar.bz2")).value(), options);
  NodeFacts facts = node_facts(inv);
  REQUIRE(facts["bios_version"] == "5.36_0ACUM018");
  for (int i = 0; i < n; ++i) {
    RunReport r;
    r.run_id = fmt::format("20261201T0000{:02}Z-{:04x}", i % 60, i);
    r.changed = true;
    r.profiles = {"network-throughput"};
    r.groups = {{"sysctl", GroupDecision::kept, {}, {}},
                {"queues", i % 10 == 0 ? GroupDecision::rolled_back : GroupDecision::kept, {}, {}}};
    if (i == failed)
      r.errors = {{"nic:eth0:link: the driver refused 10000/full", "nic:eth0:link", ""}};
    r.node = facts;
    r.node["hostname"] = fmt::format("node-{:04}", i);
    if (std::find(old_bios.begin(), old_bios.end(), i) != old_bios.end())
      r.node["bios_version"] = "5.20_0ACUM011";
    dir.write(fmt::format("node-{:04}.json", i), run_report_json(r).dump(2));
  }
}

}  // namespace

TEST_CASE("report: a fleet of 1000 with three old BIOSes and one failure") {
  TempDir dir;
  write_fleet(dir, 1000, {17, 442, 903}, 5);
  auto r = run_tuner("report --json " + dir.path);
  REQUIRE_MESSAGE(r.code == 0, r.err);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["schema"] == "tuner.fleet/1");
  CHECK(j["nodes"] == 1000);
  CHECK(j["failed"] == 1);
  // Only the BIOS differs (host names name the nodes; they are not compared).
  std::vector<std::string> differing;
  for (const auto& f : j["differing"]) differing.push_back(f["fact"]);
  CHECK(differing == std::vector<std::string>{"bios_version"});
  const auto& bios = j["differing"][0]["values"];
  REQUIRE(bios.size() == 2);
  CHECK(bios[0]["value"] == "5.36_0ACUM018");
  CHECK(bios[0]["nodes"].size() == 997);
  CHECK(bios[1]["value"] == "5.20_0ACUM011");
  CHECK(bios[1]["nodes"] == nlohmann::json{"node-0017", "node-0442", "node-0903"});
  CHECK(j["common"]["system_product"] == "NVIDIA_DGX_Spark");
  // Outcomes: 899 kept both, 100 (every tenth) rolled queues back, node 5 failed.
  REQUIRE(j["outcomes"].size() == 3);
  CHECK(j["outcomes"][0]["nodes"].size() == 899);
  CHECK(j["outcomes"][0]["kept"] == "queues,sysctl");
  CHECK(j["outcomes"][1]["nodes"].size() == 100);
  CHECK(j["outcomes"][1]["rolled_back"] == "queues");
  CHECK(j["outcomes"][2]["failed"] == true);
  CHECK(j["outcomes"][2]["nodes"] == nlohmann::json{"node-0005"});

  // The text names the three at a glance, and not the 997.
  auto text = run_tuner("report --color never " + dir.path);
  REQUIRE(text.code == 0);
  CHECK(text.out.find("5.20_0ACUM011                3 nodes  node-[0017,0442,0903]") !=
        std::string::npos);
  CHECK(text.out.find("node-0001") == std::string::npos);
  CHECK(text.out.find("FAILED") != std::string::npos);
}

TEST_CASE("report: files it cannot read are skipped and named; the rest is summarized") {
  TempDir dir;
  write_fleet(dir, 2, {}, -1);
  dir.write("broken.json", "{\"schema\": \"tuner.run/1\", \"groups\": [{\"name\": 3}]}");
  dir.write("other.json", "{\"schema\": \"tuner.plan/1\"}");
  dir.write("text.json", "not json");
  dir.write("newer.json", R"({"schema": "tuner.run/2", "groups": "changed shape"})");
  auto r = run_tuner("report --color never " + dir.path);
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.out.find("2 nodes: 2 runs (0 failed)") != std::string::npos);
  CHECK(r.out.find("skipped 4 files") != std::string::npos);
  for (const char* why :
       {"broken.json: a group without name and decision", "schema tuner.plan/1",
        "text.json: not JSON", "newer.json: schema tuner.run/2 is newer than this tuner reads"}) {
    CAPTURE(why);
    CHECK(r.out.find(why) != std::string::npos);
    CHECK(r.err.find(std::string("warning: report: skipped ") + dir.path) != std::string::npos);
    CHECK(r.err.find(why) != std::string::npos);
  }
  auto j = run_tuner("report --json " + dir.path);
  REQUIRE(j.code == 0);
  auto doc = nlohmann::json::parse(j.out);
  CHECK(doc["nodes"] == 2);
  CHECK(doc["skipped"].size() == 4);
  CHECK(doc["duplicates"].empty());

  // Nothing readable: exit 2, every file named.
  TempDir foreign;
  foreign.write("other.json", "{\"schema\": \"tuner.plan/1\"}");
  foreign.write("text.json", "not json");
  auto none = run_tuner("report " + foreign.path);
  CHECK(none.code == 2);
  CHECK(none.out.empty());
  CHECK(none.err.find("none of 2 files is a tuner report") != std::string::npos);
  CHECK(none.err.find("text.json: not JSON") != std::string::npos);
  CHECK(run_tuner("report").code == 2);
  CHECK(run_tuner("report /dev/zero").code == 2);  // not a regular file: refused, no hang
}

TEST_CASE("report: a node with two run reports is flagged; the newest counts in any order") {
  // Two rollouts' files for one node (old/ and new/, or one directory reused): merging
  // them made the summary depend on the order of the arguments.
  auto run = [](const char* time, const char* run_id, const char* decision) {
    nlohmann::json j = {
        {"schema", "tuner.run/1"},
        {"run_id", run_id},
        {"time", time},
        {"changed", true},
        {"profiles", {"p"}},
        {"errors", {}},
        {"warnings", {}},
        {"groups",
         {{{"name", "sysctl"}, {"decision", decision}, {"stats", nullptr}, {"changes", {}}}}}};
    return j.dump();
  };
  TempDir old_dir, new_dir;
  old_dir.write("h1.run.json", run("2026-11-30T10:00:00Z", "20261130T100000Z-0001", "rolled_back"));
  new_dir.write("h1.run.json", run("2026-12-01T10:00:00Z", "20261201T100000Z-0002", "kept"));
  for (const std::string& args :
       {old_dir.path + " " + new_dir.path, new_dir.path + " " + old_dir.path}) {
    CAPTURE(args);
    auto r = run_tuner("report --json " + args);
    REQUIRE_MESSAGE(r.code == 0, r.err);
    auto s = nlohmann::json::parse(r.out);
    CHECK(s["nodes"] == 1);
    REQUIRE(s["outcomes"].size() == 1);
    CHECK(s["outcomes"][0]["kept"] == "sysctl");
    CHECK(s["outcomes"][0]["rolled_back"] == "");
    REQUIRE(s["duplicates"].size() == 1);
    CHECK(s["duplicates"][0]["node"] == "h1");
    CHECK(s["duplicates"][0]["used"] == new_dir.path + "/h1.run.json");
    CHECK(s["duplicates"][0]["ignored"] == nlohmann::json{old_dir.path + "/h1.run.json"});
  }
  auto text = run_tuner("report --color never " + old_dir.path + " " + new_dir.path);
  CHECK(text.out.find("h1: 2 run documents: the newest counts: " + new_dir.path) !=
        std::string::npos);

  // A failure of an earlier rollout beside a later good run: the run counts, flagged.
  TempDir stale;
  stale.write("h2.run.json", run("2026-12-01T10:00:00Z", "20261201T100000Z-0003", "kept"));
  stale.write("h2.error.json", R"({"schema": "tuner.failure/1", "node": "h2", "rc": 2,
      "msg": "bad profile", "time": "2026-11-30T09:00:00Z", "run_id": null})");
  auto r = run_tuner("report --json " + stale.path);
  REQUIRE(r.code == 0);
  auto s = nlohmann::json::parse(r.out);
  CHECK(s["failed"] == 0);
  REQUIRE(s["duplicates"].size() == 1);
  CHECK(s["duplicates"][0]["used"] == stale.path + "/h2.run.json");
  // The failure of the run the report is of counts (the playbook writes both).
  stale.write("h2.error.json", R"({"schema": "tuner.failure/1", "node": "h2", "rc": 1,
      "msg": "rolled back", "time": "2026-12-01T10:00:05Z", "run_id": "20261201T100000Z-0003"})");
  s = nlohmann::json::parse(run_tuner("report --json " + stale.path).out);
  CHECK(s["failed"] == 1);
  CHECK(s["duplicates"].empty());
  // A later failure (tuner refused, no run) beside an earlier good run: the failure.
  stale.write("h2.error.json", R"({"schema": "tuner.failure/1", "node": "h2", "rc": 2,
      "msg": "bad profile", "time": "2026-12-02T09:00:00Z"})");
  s = nlohmann::json::parse(run_tuner("report --json " + stale.path).out);
  CHECK(s["failed"] == 1);
  REQUIRE(s["duplicates"].size() == 1);
  CHECK(s["duplicates"][0]["used"] == stale.path + "/h2.error.json");
}

TEST_CASE("report: a run report always has its time, a run or not") {
  // restore with a state directory never used: a report with nothing done.
  TempDir dir;
  auto r = run_tuner("restore --json --state-dir " + dir.path + "/none");
  if (::geteuid() != 0) return;  // restore is root's
  REQUIRE_MESSAGE(r.code == 0, r.err);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["run_id"].is_null());
  REQUIRE(j["time"].is_string());
  const std::string t = j["time"];
  CHECK(t.size() == 20);
  CHECK(t[4] == '-');
  CHECK(t[10] == 'T');
  CHECK(t.back() == 'Z');
}

TEST_CASE("report: errors are objects; an older tuner's plain strings still count") {
  TempDir dir;
  dir.write(
      "new.json",
      R"({"schema": "tuner.run/1", "groups": [], "errors": [{"message": "m", "knob": "mm:thp"}]})");
  dir.write("old.json", R"({"schema": "tuner.run/1", "groups": [], "errors": ["a string"]})");
  dir.write("fine.json", R"({"schema": "tuner.run/1", "groups": [], "errors": []})");
  auto r = run_tuner("report --json " + dir.path);
  REQUIRE_MESSAGE(r.code == 0, r.err);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["nodes"] == 3);
  CHECK(j["failed"] == 2);
  dir.write("bad.json", R"({"schema": "tuner.run/1", "groups": [], "errors": [{"knob": "x"}]})");
  r = run_tuner("report " + dir.path);
  CHECK(r.code == 0);  // skipped, named
  CHECK(r.err.find("bad.json: an error that is neither") != std::string::npos);
}

TEST_CASE("report: probe documents carry the same node facts") {
  auto probe = run_tuner("probe --json");
  REQUIRE(probe.code == 0);
  auto j = nlohmann::json::parse(probe.out);
  REQUIRE(j["node"].is_object());
  CHECK(j["node"]["kernel"] == j["host"]["kernel"]);
  TempDir dir;
  dir.write("a.json", probe.out);
  auto r = run_tuner("report --json " + dir.path + "/a.json");
  REQUIRE(r.code == 0);
  auto s = nlohmann::json::parse(r.out);
  CHECK(s["probes"] == 1);
  CHECK(s["differing"].empty());
}

TEST_CASE("report: the playbook's files, one node per inventory name, failures counted") {
  // canary.yml writes NODE.probe.json, NODE.run.json and, when tuner failed before
  // writing a report, NODE.error.json (tuner.failure/1). Nodes on one machine share a
  // host name: the file names tell them apart.
  auto probe = run_tuner("probe --json");
  REQUIRE(probe.code == 0);
  TempDir dir;
  for (const char* h : {"h1", "h2", "h3"}) dir.write(std::string(h) + ".probe.json", probe.out);
  RunReport r;
  r.run_id = "20261201T000000Z-0001";
  r.changed = true;
  r.groups = {{"sysctl", GroupDecision::kept, {}, {}}};
  r.node = node_facts(probe_inventory(Root::live(), ProbeOptions{}));
  dir.write("h2.run.json", run_report_json(r).dump(2));
  dir.write("h3.run.json", run_report_json(r).dump(2));
  dir.write("h1.error.json",
            R"({"schema": "tuner.failure/1", "node": "h1", "rc": 2, "msg": "bad profile"})");

  auto out = run_tuner("report --json " + dir.path);
  REQUIRE(out.code == 0);
  auto s = nlohmann::json::parse(out.out);
  CHECK(s["nodes"] == 3);
  CHECK(s["runs"] == 3);
  CHECK(s["probes"] == 3);
  CHECK(s["failed"] == 1);
  REQUIRE(s["outcomes"].size() == 2);
  CHECK(s["outcomes"][0]["nodes"] == nlohmann::json{"h2", "h3"});
  CHECK(s["outcomes"][0]["kept"] == "sysctl");
  CHECK(s["outcomes"][1]["nodes"] == nlohmann::json{"h1"});
  CHECK(s["outcomes"][1]["failed"] == true);

  auto text = run_tuner("report " + dir.path);
  REQUIRE(text.code == 0);
  CHECK(text.out.find("3 nodes: 3 runs (1 failed), 3 probes") != std::string::npos);
  CHECK(text.out.find("FAILED") != std::string::npos);

  dir.write("h4.error.json", R"({"schema": "tuner.failure/1", "rc": 2})");
  auto bad = run_tuner("report " + dir.path);
  CHECK(bad.code == 0);  // skipped, named
  CHECK(bad.err.find("h4.error.json: a tuner.failure/1 document without \"msg\"") !=
        std::string::npos);
}

TEST_CASE("report: fact values are cut at 1 KiB, facts past 256 a node left out, said so") {
  TempDir dir;
  nlohmann::json big{{"schema", "tuner.probe/1"}, {"node", {{"hostname", "big"}}}};
  big["node"]["kernel"] = std::string(100'000, 'k');
  for (int i = 0; i < 1000; ++i) big["node"][fmt::format("z{:04}", i)] = std::to_string(i);
  dir.write("big.probe.json", big.dump());
  dir.write("small.probe.json", R"({"schema":"tuner.probe/1","node":{"kernel":"6.1"}})");
  dir.write("sub/ignored.json", "{}");
  auto r = run_tuner("report " + dir.path);
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.out.find("2 nodes: 0 runs (0 failed), 2 probes") != std::string::npos);
  CHECK(r.out.find(std::string(1024, 'k') + "... [truncated, 100000 bytes, fnv1a64:") !=
        std::string::npos);
  CHECK(r.out.find(std::string(1025, 'k')) == std::string::npos);
  // 256 facts of big, in the document's order: "hostname", "kernel", z0000..z0253; the
  // rest are counted in a warning.
  CHECK(r.out.find("z0253") != std::string::npos);
  CHECK(r.out.find("z0254") == std::string::npos);
  CHECK(r.err.find("big.probe.json: 746 facts past 256 left out") != std::string::npos);
  CHECK(r.err.find("/sub: a directory, not read") != std::string::npos);
  CHECK(r.out.size() < 64 * 1024);
}

TEST_CASE("report: one node is \"1 node\"") {
  TempDir dir;
  dir.write("a.probe.json", R"({"schema":"tuner.probe/1","node":{"kernel":"6.1"}})");
  auto r = run_tuner("report " + dir.path);
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.out.find("1 node: 0 runs (0 failed), 1 probe\n") != std::string::npos);
}

TEST_CASE("report: the microcode line's neighbour names the nodes the kernel calls vulnerable") {
  // Three probes of the KVM guest capture: a and b mitigated, c on older microcode with
  // the build VM's real vulnerabilities directory (retbleed, spec_store_bypass).
  TempDir fleet, docs;
  auto node = [&](const std::string& name, const char* vulnerabilities, const char* microcode) {
    const std::string root = fleet / name;
    namespace fs = std::filesystem;
    const auto opts = fs::copy_options::recursive | fs::copy_options::copy_symlinks;
    fs::copy(testing::test_data_path("host/kvm-gpu-root"), root, opts);
    fs::copy(testing::test_data_path(std::string("host/vulnerabilities/") + vulnerabilities), root,
             opts | fs::copy_options::overwrite_existing);
    std::string cpuinfo = testing::read_text(root + "/proc/cpuinfo");
    const std::string was = "0x2b0004b1";
    for (size_t at = cpuinfo.find(was); at != std::string::npos;
         at = cpuinfo.find(was, at + std::strlen(microcode)))
      cpuinfo.replace(at, was.size(), microcode);
    testing::write_file(root + "/proc/cpuinfo", cpuinfo);
    auto probe = run_tuner("probe --json --root " + testing::shell_quote(root));
    REQUIRE_MESSAGE(probe.code == 0, probe.err);
    docs.write(name + ".probe.json", probe.out);
  };
  node("a", "mitigated", "0x2b0004b1");
  node("b", "mitigated", "0x2b0004b1");
  node("c", "captured", "0x2b000461");
  auto r = run_tuner("report --json " + docs.path);
  REQUIRE_MESSAGE(r.code == 0, r.err);
  auto j = nlohmann::json::parse(r.out);
  std::vector<std::string> differing;
  for (const auto& f : j["differing"]) differing.push_back(f["fact"]);
  CHECK(differing == std::vector<std::string>{"microcode", "microcode.vulnerable"});
  const auto& vulnerable = j["differing"][1]["values"];
  CHECK(vulnerable[0]["value"] == "none");
  CHECK(vulnerable[1]["value"] == "retbleed,spec_store_bypass");
  CHECK(vulnerable[1]["nodes"] == nlohmann::json{"c"});
  // They split the nodes alike: one block, the two lines one under the other, c named once.
  CHECK(j["splits"] == nlohmann::json::array({{"microcode", "microcode.vulnerable"}}));
  auto text = run_tuner("report --color never " + docs.path);
  REQUIRE(text.code == 0);
  // The facts' differences, after the classes (which name microcode too).
  auto at = text.out.find("0x2b000461", text.out.find("\ndifferences"));
  REQUIRE(at != std::string::npos);
  auto next = text.out.find('\n', at);
  CHECK(text.out.substr(at, next - at).ends_with("1 node  c"));
  const std::string below = "  microcode.vulnerable         retbleed,spec_store_bypass\n";
  CHECK(text.out.compare(next + 1, below.size(), below) == 0);
}

}  // namespace tuner

TEST_CASE("report: values cut at 1 KiB still compare by their whole text") {
  // Two kernels' command lines that differ only past the cut: not one value (issue 41).
  std::string a = std::string(2000, 'x') + "a", b = std::string(2000, 'x') + "b";
  CHECK(tuner::bounded_text(a) != tuner::bounded_text(b));
  CHECK(tuner::bounded_text(a) == tuner::bounded_text(std::string(a)));
  CHECK(tuner::bounded_text(a).size() < 1100);
  CHECK(tuner::bounded_text("short") == "short");
}
