// tuner report on fleets of 1,000 and 10,000 nodes shaped as the canary playbook leaves
// them: NODE.run.json from the run report serializer with a captured DGX Spark's facts,
// NODE.status.json from tuner status's, NODE.error.json as the playbook writes it. The
// summary must say why nodes failed, tell the profiles apart, name a kernel minority
// once however many facts came with it, fold node lists, and gate CI with --fail-on.
#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <optional>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "base/runner.h"
#include "probes/inventory_json.h"
#include "probes/probe.h"
#include "rollback/run_report.h"
#include "tests/support/cli.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"
#include "tests/support/text.h"
#include "tuner/cli/report/state_report.h"

namespace tuner {
namespace {

using testing::run_tuner;
using testing::TempDir;

const NodeFacts& spark_facts() {
  static const NodeFacts facts = [] {
    ProbeOptions options;
    options.netlink = false;
    return node_facts(probe_inventory(
        Root::open(testing::shared_fixture("nvidia-dgx-gb10.tar.bz2")).value(), options));
  }();
  return facts;
}

/// The fleet's shape: which nodes are the odd ones (docs/fleet-report.md's example).
struct Shape {
  int n;
  bool latency(int i) const { return i >= n - 30; }
  static bool other_kernel(int i) { return i % 32 == 7; }
  static bool refused(int i) { return i % 89 == 5 && i < 11 * 89; }     // 11 runs rolled back
  static bool no_run(int i) { return i == 11 || i == 64 || i == 117; }  // bad profile: no run
  static bool drifted(int i) { return i % 83 == 3 && i < 12 * 83; }     // 12 nodes
  static bool unfinished(int i) { return i == 8 || i == 48; }
  std::string node(int i) const { return fmt::format("gpu-{:0{}}", i, n >= 10000 ? 5 : 4); }
};

void write_fleet(const TempDir& dir, const Shape& shape, bool statuses = true) {
  for (int i = 0; i < shape.n; ++i) {
    const std::string node = shape.node(i);
    const std::string run_id = fmt::format("20261201T1015{:02}Z-{:04x}", i % 60, i);
    if (Shape::no_run(i)) {
      dir.write(node + ".error.json",
                nlohmann::json{{"schema", "tuner.failure/1"},
                               {"node", node},
                               {"rc", 2},
                               {"task", "Apply the profiles"},
                               {"time", "2026-12-01T10:16:00Z"},
                               {"run_id", nullptr},
                               {"msg", "tuner: apply: profile network-throughput: "
                                       "/etc/tuner/profiles/site.toml:12:9: unknown key"}}
                    .dump(2));
      continue;
    }
    RunReport r;
    r.run_id = run_id;
    r.time = "2026-12-01T10:15:59Z";
    r.changed = true;
    r.profiles = {shape.latency(i) ? "latency" : "network-throughput"};
    r.groups = {{"sysctl", GroupDecision::kept, {}, {}}, {"irq", GroupDecision::kept, {}, {}}};
    if (Shape::refused(i)) {
      r.groups[0].decision = GroupDecision::rolled_back;
      r.errors = {{"sysctl:net.ipv4.tcp_rmem: write /proc/sys/net/ipv4/tcp_rmem: Invalid argument",
                   "sysctl:net.ipv4.tcp_rmem", ""}};
      dir.write(node + ".error.json", nlohmann::json{{"schema", "tuner.failure/1"},
                                                     {"node", node},
                                                     {"rc", 1},
                                                     {"run_id", run_id},
                                                     {"msg", r.errors[0].message}}
                                          .dump(2));
    }
    r.node = spark_facts();
    r.node["hostname"] = node;
    if (Shape::other_kernel(i)) r.node["kernel"] = "6.8.0-31-generic";
    for (int nic = 0; nic < 10; ++nic)
      r.node[fmt::format("nic.enp{}s0f{}np{}.driver_version", nic / 2 + 1, nic % 2, nic % 2)] =
          Shape::other_kernel(i) ? "24.10-1.1.4" : "23.10-0.5.5";
    dir.write(node + ".run.json", run_report_json(r).dump(2));
    if (!statuses) continue;
    std::vector<KeptReading> kept{{"sysctl:net.core.somaxconn", "8192", "4096", run_id, "sysctl",
                                   std::string(Shape::drifted(i) ? "4096" : "8192"), "", false}};
    std::optional<RunSummary> unfinished;
    if (Shape::unfinished(i)) {
      unfinished.emplace();
      unfinished->run_id = run_id;
      unfinished->kind = RunKind::apply;
    }
    dir.write(node + ".status.json", status_json(kept, unfinished).dump(2));
  }
}

/// The lines of text longer than `max` characters.
std::vector<std::string> long_lines(const std::string& text, std::size_t max) {
  std::vector<std::string> out;
  for (std::size_t at = 0, end; at < text.size(); at = end + 1) {
    end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    if (end - at > max) out.push_back(text.substr(at, end - at));
  }
  return out;
}

}  // namespace

TEST_CASE("report: a fleet of 1,000 says why nodes failed, by profile, one block per cause") {
  TempDir dir;
  const Shape shape{1000};
  write_fleet(dir, shape);
  auto r = run_tuner("report --color never " + dir.path);
  REQUIRE_MESSAGE(r.code == 0, r.err);  // without --fail-on, a summary is a success
  const std::string& text = r.out;
  INFO(text);
  CHECK(text.starts_with("fleet  1000 nodes: 1000 runs (14 failed), 0 probes, 997 statuses (12 "
                         "drifted, 2 unfinished)\n"));
  // Failures first, each cause once with its exit status and its nodes.
  CHECK(text.find("failures (14 nodes)") < text.find("outcomes"));
  CHECK(
      text.find("     11 nodes  exit 1  sysctl:net.ipv4.tcp_rmem: write "
                "/proc/sys/net/ipv4/tcp_rmem: Invalid argument\n"
                "               gpu-[0005,0094,0183,0272,0361,0450,0539,0628,0717,0806,0895]\n") !=
      std::string::npos);
  CHECK(text.find("      3 nodes  exit 2  tuner: apply: profile network-throughput:") !=
        std::string::npos);
  // The profiles apart.
  CHECK(text.find("  profile network-throughput (967 nodes)\n") != std::string::npos);
  CHECK(text.find("  profile latency (30 nodes)\n     30 nodes  kept irq,sysctl\n"
                  "               gpu-[0970-0999]\n") != std::string::npos);
  // The kernel minority and its ten NIC driver versions: one block, the nodes named once.
  const std::string minority = "gpu-[0007,0039,0071,0103,";
  CHECK(testing::occurrences(text, minority) == 1);
  CHECK(text.find("6.8.0-31-generic            32 nodes  " + minority) != std::string::npos);
  // Drift and unfinished runs from tuner.status/1.
  CHECK(text.find("  sysctl:net.core.somaxconn    changed       12 nodes  gpu-[0003,0086,") !=
        std::string::npos);
  CHECK(text.find("      2 nodes  gpu-[0008,0048]\n") != std::string::npos);
  CHECK(long_lines(text, 300).empty());

  auto j = nlohmann::json::parse(run_tuner("report --json " + dir.path).out);
  CHECK(j["failed"] == 14);
  CHECK(j["drifted"] == 12);
  CHECK(j["statuses"] == 997);
  REQUIRE(j["failures"].size() == 2);
  CHECK(j["failures"][0]["rc"] == 1);
  CHECK(j["failures"][0]["nodes"].size() == 11);
  CHECK(j["failures"][1]["rc"] == 2);
  CHECK(j["outcomes"][0]["profiles"] == nlohmann::json{"network-throughput"});
  bool kernel_block = false;
  for (const auto& split : j["splits"])
    kernel_block = kernel_block || (split[0] == "kernel" && split.size() == 11);
  CHECK(kernel_block);
  CHECK(j["unfinished"].size() == 2);
  CHECK(j["without_facts"] == nlohmann::json{"gpu-0011", "gpu-0064", "gpu-0117"});

  // The document is what schemas/tuner.fleet-1.schema.json says.
  RunSpec probe;
  probe.argv = {"python3", "-c", "import jsonschema"};
  if (auto has = ProcessRunner().run(probe); has.ok() && has->exit_code == 0) {
    TempDir out;
    const std::string doc = out.write("fleet.json", j.dump());
    RunSpec spec;
    spec.argv = {"python3", TUNER_TEST_DATA "/../schema/validate.py", doc};
    auto v = ProcessRunner().run(spec);
    REQUIRE(v.ok());
    CHECK_MESSAGE(v->exit_code == 0, std::string(v->out + v->err));
  }
}

TEST_CASE("report: --fail-on failed|drift exits 1, 3 or 4 for CI; 0 without it") {
  TempDir dir;
  write_fleet(dir, Shape{200});
  CHECK(run_tuner("report " + dir.path).code == 0);
  auto failed = run_tuner("report --fail-on failed " + dir.path);
  CHECK(failed.code == 1);
  CHECK(failed.err.find("tuner: report: 6 nodes failed (--fail-on)") != std::string::npos);
  CHECK(failed.out.find("failures (6 nodes)") != std::string::npos);  // the summary still
  // An unfinished run outranks drift, as in tuner status; a failure outranks both.
  CHECK(run_tuner("report --fail-on drift " + dir.path).code == 4);
  CHECK(run_tuner("report --fail-on drift,failed " + dir.path).code == 1);
  CHECK(run_tuner("report --fail-on drift --fail-on failed --json " + dir.path).code == 1);
  TempDir drift_only;
  // 60 nodes: gpu-0003 drifted; its two unfinished runs and two failures taken away.
  write_fleet(drift_only, Shape{60});
  for (const char* f : {"gpu-0048.status.json", "gpu-0008.status.json"})
    ::unlink((drift_only / f).c_str());
  ::unlink((drift_only / "gpu-0005.run.json").c_str());
  ::unlink((drift_only / "gpu-0005.error.json").c_str());
  ::unlink((drift_only / "gpu-0011.error.json").c_str());
  CHECK(run_tuner("report --fail-on failed " + drift_only.path).code == 0);
  auto drift = run_tuner("report --fail-on drift " + drift_only.path);
  CHECK(drift.code == 3);
  CHECK(drift.err.find("1 node with drifted settings") != std::string::npos);
  auto bad = run_tuner("report --fail-on warning " + dir.path);
  CHECK(bad.code == 2);
  CHECK(bad.err.find("--fail-on: expected failed or drift") != std::string::npos);
  CHECK(run_tuner("help report").out.find("--fail-on failed|drift") != std::string::npos);
}

TEST_CASE("report: 10,000 nodes: node lists folded and capped, the JSON in full") {
  TempDir dir;
  const Shape shape{10000};
  write_fleet(dir, shape, false);
  auto r = run_tuner("report --color never " + dir.path);
  REQUIRE_MESSAGE(r.code == 0, r.err);
  INFO(r.out.substr(0, 4000));
  CHECK(long_lines(r.out, 300).empty());
  CHECK(r.out.size() < 16 * 1024);
  CHECK(r.out.find("  profile latency (30 nodes)\n     30 nodes  kept irq,sysctl\n"
                   "               gpu-[09970-09999]\n") != std::string::npos);
  // 312 nodes on the other kernel: the first ones, then how many more.
  const auto at = r.out.find("6.8.0-31-generic");
  REQUIRE(at != std::string::npos);
  const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
  CHECK(line.find("313 nodes  gpu-[00007,00039,") != std::string::npos);
  CHECK(line.ends_with(" more"));
  auto j = nlohmann::json::parse(run_tuner("report --json " + dir.path).out);
  for (const auto& f : j["differing"])
    if (f["fact"] == "kernel") CHECK(f["values"][1]["nodes"].size() == 313);
}

TEST_CASE("report: tuner status --json of a real state directory counts") {
  TempDir state, fresh, docs;
  ::mkdir((state / "runs").c_str(), 0700);
  state.write("runs/20261129T173000Z-0001.journal", "{\"type\":\"begin\",\"kind\":\"apply\"}\n");
  auto crashed = run_tuner("status --json --state-dir " + state.path);
  REQUIRE(crashed.code == 4);
  docs.write("h1.status.json", crashed.out);
  auto clean = run_tuner("status --json --state-dir " + fresh.path);
  REQUIRE_MESSAGE(clean.code == 0, clean.err);
  docs.write("h2.status.json", clean.out);
  auto r = run_tuner("report --json " + docs.path);
  REQUIRE_MESSAGE(r.code == 0, r.err);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["nodes"] == 2);
  CHECK(j["statuses"] == 2);
  CHECK(j["runs"] == 0);
  CHECK(j["unfinished"] ==
        nlohmann::json::array({{{"node", "h1"}, {"run_id", "20261129T173000Z-0001"}}}));
  CHECK(run_tuner("report --fail-on drift " + docs.path).code == 4);
  auto text = run_tuner("report --color never " + docs.path);
  CHECK(
      text.out.find("2 nodes: 0 runs (0 failed), 0 probes, 2 statuses (0 drifted, 1 unfinished)") !=
      std::string::npos);
}

}  // namespace tuner
