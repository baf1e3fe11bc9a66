// The fleet summary on documents made in memory: failures by reason, outcomes by
// profile, facts that split the nodes alike as one block, drift and the --fail-on gate.
#include "tuner/cli/report/fleet.h"

#include <doctest/doctest.h>

#include <fmt/core.h>

#include "tuner/cli/report/fleet_gate.h"

namespace tuner {
namespace {

const Term kPlain(ColorMode::never, 1);

NodeReport run(const std::string& node, std::vector<std::string> profiles = {"throughput"}) {
  NodeReport r;
  r.node = node;
  r.source = node + ".run.json";
  r.kind = "run";
  r.profiles = std::move(profiles);
  r.decisions = {{"sysctl", "kept"}};
  r.facts = {{"hostname", node}, {"kernel", "6.1.0-18-amd64"}, {"bios_version", "2.1"}};
  return r;
}

std::vector<std::string> names(const char* format, int from, int to) {
  std::vector<std::string> out;
  for (int i = from; i < to; ++i)
    out.push_back(fmt::vformat(format, fmt::make_format_args(i)));  // fmt 7: no fmt::runtime
  return out;
}

}  // namespace

TEST_CASE("fleet: failures grouped by exit status and reason, node-specific parts replaced") {
  std::vector<NodeReport> docs;
  docs.reserve(20);
  for (int i = 0; i < 20; ++i) docs.push_back(run(fmt::format("gpu-{:04}", i)));
  for (int i : {3, 4, 5, 11}) {
    NodeReport& r = docs[i];
    r.decisions = {{"sysctl", "rolled_back"}};
    r.errors = {"sysctl:net.ipv4.tcp_rmem: write: Invalid argument"};
    NodeReport f;  // the playbook's record of the same run
    f.node = r.node;
    f.source = r.node + ".error.json";
    f.kind = "failure";
    f.rc = 1;
    f.errors = {"rolled back"};
    docs.push_back(f);
  }
  // Another cause, whose message names the node, its run and a pid.
  for (int i : {7, 8}) {
    docs[i].errors = {fmt::format("{}: apply: another tuner (pid {}) holds the lock; run "
                                  "20261201T1015{:02}Z-3f2a unfinished",
                                  docs[i].node, 4000 + i, i)};
  }
  FleetSummary s = summarize_fleet(docs);
  CHECK(s.failed == 6);
  REQUIRE(s.failures.size() == 2);
  CHECK(s.failures[0].rc == 1);
  CHECK(s.failures[0].message == "sysctl:net.ipv4.tcp_rmem: write: Invalid argument");
  CHECK(s.failures[0].nodes ==
        std::vector<std::string>{"gpu-0003", "gpu-0004", "gpu-0005", "gpu-0011"});
  CHECK(!s.failures[1].rc);
  CHECK(s.failures[1].message ==
        "<node>: apply: another tuner (pid <pid>) holds the lock; run <run_id> unfinished");

  std::string text = format_fleet_text(s, kPlain);
  INFO(text);
  // Failures come first, each with its reason and its nodes folded.
  CHECK(text.find("\nfailures (6 nodes)\n") < text.find("\noutcomes"));
  CHECK(text.find("      4 nodes  exit 1  sysctl:net.ipv4.tcp_rmem: write: Invalid argument\n"
                  "               gpu-[0003-0005,0011]\n") != std::string::npos);
  CHECK(text.find("      2 nodes  <node>: apply: another tuner") != std::string::npos);
  auto j = fleet_json(s);
  CHECK(j["failures"][0]["rc"] == 1);
  CHECK(j["failures"][1]["rc"].is_null());
  CHECK(j["failures"][0]["nodes"].size() == 4);
}

TEST_CASE("fleet: failure_reason replaces only whole words and real run ids") {
  CHECK(failure_reason("node1 and node10 and xnode1", "node1") == "<node> and node10 and xnode1");
  CHECK(failure_reason("journal 20261201T101500Z-3f2a.journal", "n") == "journal <run_id>.journal");
  CHECK(failure_reason("20261201T101500Z-3F2A", "n") == "20261201T101500Z-3F2A");
  CHECK(failure_reason("rapid 7, pid 12", "n") == "rapid 7, pid <pid>");
  CHECK(failure_reason("", "n").empty());
}

TEST_CASE("fleet: outcomes grouped by the profiles the nodes ran") {
  std::vector<NodeReport> docs;
  for (const std::string& n : names("gpu-{:04}", 0, 30)) docs.push_back(run(n));
  for (const std::string& n : names("lat-{:02}", 0, 3)) {
    docs.push_back(run(n, {"latency", "site"}));
    docs.back().decisions = {{"cpu", "kept"}};
  }
  docs[4].decisions = {{"sysctl", "rolled_back"}};
  FleetSummary s = summarize_fleet(docs);
  REQUIRE(s.outcomes.size() == 3);
  CHECK(s.outcomes[0].profiles == std::vector<std::string>{"throughput"});
  CHECK(s.outcomes[0].nodes.size() == 29);
  CHECK(s.outcomes[1].profiles == std::vector<std::string>{"throughput"});
  CHECK(s.outcomes[1].rolled_back == "sysctl");
  CHECK(s.outcomes[2].profiles == std::vector<std::string>{"latency", "site"});
  std::string text = format_fleet_text(s, kPlain);
  INFO(text);
  CHECK(text.find("  profile throughput (30 nodes)\n"
                  "     29 nodes  kept sysctl\n"
                  "      1 node   rolled back sysctl\n"
                  "               gpu-0004\n"
                  "  profile latency, site (3 nodes)\n"
                  "      3 nodes  kept cpu\n"
                  "               lat-[00-02]\n") != std::string::npos);
  CHECK(fleet_json(s)["outcomes"][2]["profiles"] == nlohmann::json{"latency", "site"});
}

TEST_CASE("fleet: facts that split the nodes alike are one block, the nodes named once") {
  std::vector<NodeReport> docs;
  for (const std::string& n : names("gpu-{:04}", 0, 100)) docs.push_back(run(n));
  // A kernel minority with the NIC driver that came with it, on 31 nodes.
  for (int i = 40; i < 71; ++i) {
    docs[i].facts["kernel"] = "6.8.0-31-generic";
    for (int nic = 0; nic < 10; ++nic)
      docs[i].facts[fmt::format("nic.eth{}.driver_version", nic)] = "5.20";
  }
  for (int i = 0; i < 100; ++i)
    for (int nic = 0; nic < 10; ++nic)
      docs[i].facts.try_emplace(fmt::format("nic.eth{}.driver_version", nic), "5.15");
  // Three old BIOSes: another split, another block.
  for (int i : {17, 42, 90}) docs[i].facts["bios_version"] = "1.9";
  FleetSummary s = summarize_fleet(docs);
  REQUIRE(s.splits.size() == 2);
  CHECK(s.splits[0] == std::vector<std::size_t>{0});
  CHECK(s.differing[0].fact == "bios_version");
  CHECK(s.splits[1].size() == 11);
  CHECK(s.differing[1].fact == "kernel");
  CHECK(s.differing[2].fact == "nic.eth0.driver_version");
  CHECK(s.differing[1].values[1].nodes.size() == 31);
  std::string text = format_fleet_text(s, kPlain);
  INFO(text);
  CHECK(text.find("  bios_version                 2.1                         97 nodes\n"
                  "                               1.9                          3 nodes  "
                  "gpu-[0017,0042,0090]\n") != std::string::npos);
  CHECK(text.find("  kernel                       6.1.0-18-amd64              69 nodes\n"
                  "  nic.eth0.driver_version      5.15\n") != std::string::npos);
  CHECK(text.find("  kernel                       6.8.0-31-generic            31 nodes  "
                  "gpu-[0040-0070]\n"
                  "  nic.eth0.driver_version      5.20\n") != std::string::npos);
  // The minority's nodes appear once, not once per driver line.
  std::size_t listed = 0;
  for (auto at = text.find("gpu-[0040-0070]"); at != std::string::npos;
       at = text.find("gpu-[0040-0070]", at + 1))
    ++listed;
  CHECK(listed == 1);
  auto j = fleet_json(s);
  REQUIRE(j["splits"].size() == 2);
  CHECK(j["splits"][1][0] == "kernel");
  CHECK(j["splits"][1].size() == 11);
  // JSON lists every node in full.
  CHECK(j["differing"][1]["values"][0]["nodes"].size() == 69);
}

TEST_CASE("fleet: drift per setting and unfinished runs from tuner.status/1; the gate") {
  std::vector<NodeReport> docs;
  for (const std::string& n : names("gpu-{:04}", 0, 10)) {
    NodeReport st;
    st.node = n;
    st.source = n + ".status.json";
    st.kind = "status";
    docs.push_back(st);
    docs.push_back(run(n));
  }
  for (int i : {2, 4, 6, 8}) docs[i].drift = {{"sysctl:net.core.somaxconn", "changed"}};
  docs[6].drift.push_back({"irq:57", "gone"});
  FleetSummary s = summarize_fleet(docs);
  CHECK(s.statuses == 10);
  CHECK(s.drifted == 4);
  REQUIRE(s.drift.size() == 2);
  CHECK(s.drift[0].knob == "sysctl:net.core.somaxconn");
  CHECK(s.drift[0].nodes ==
        std::vector<std::string>{"gpu-0001", "gpu-0002", "gpu-0003", "gpu-0004"});
  CHECK(s.drift[1].state == "gone");
  std::string text = format_fleet_text(s, kPlain);
  INFO(text);
  CHECK(
      text.find("10 nodes: 10 runs (0 failed), 0 probes, 10 statuses (4 drifted, 0 unfinished)") !=
      std::string::npos);
  CHECK(text.find("  sysctl:net.core.somaxconn    changed        4 nodes  gpu-[0001-0004]") !=
        std::string::npos);

  FleetGate none, failed{true, false}, drift{false, true}, both{true, true};
  CHECK(fleet_verdict(s, none).exit == 0);
  CHECK(fleet_verdict(s, failed).exit == 0);
  CHECK(fleet_verdict(s, drift).exit == 3);
  CHECK(fleet_verdict(s, drift).why == "4 nodes with drifted settings");
  docs[0].unfinished_run = "20261201T101500Z-3f2a";
  s = summarize_fleet(docs);
  CHECK(s.unfinished.at("gpu-0000") == "20261201T101500Z-3f2a");
  CHECK(fleet_verdict(s, drift).exit == 4);  // as tuner status: it outranks drift
  docs[1].errors = {"refused"};
  s = summarize_fleet(docs);
  CHECK(fleet_verdict(s, both).exit == 1);
  CHECK(fleet_verdict(s, both).why == "1 node failed");
  CHECK(fleet_json(s)["unfinished"] ==
        nlohmann::json::array({{{"node", "gpu-0000"}, {"run_id", "20261201T101500Z-3f2a"}}}));
}

TEST_CASE("fleet: --fail-on words") {
  auto g = parse_fleet_gate({"failed,drift"});
  REQUIRE(g.ok());
  CHECK((g->failed && g->drift));
  g = parse_fleet_gate({"drift"});
  REQUIRE(g.ok());
  CHECK((!g->failed && g->drift));
  g = parse_fleet_gate({"failed", " drift"});
  CHECK((g.ok() && g->failed && g->drift));
  auto bad = parse_fleet_gate({"failed,warning"});
  REQUIRE(!bad.ok());
  CHECK(bad.error().message().find("got 'warning'") != std::string::npos);
}

TEST_CASE("fleet: nodes without facts are named, not counted as unknown on every fact") {
  std::vector<NodeReport> docs{run("a1"), run("a2")};
  NodeReport st;
  st.node = "b1";
  st.kind = "status";
  docs.push_back(st);
  FleetSummary s = summarize_fleet(docs);
  CHECK(s.differing.empty());
  CHECK(s.common.at("kernel") == "6.1.0-18-amd64");
  CHECK(s.without_facts == std::vector<std::string>{"b1"});
  CHECK(format_fleet_text(s, kPlain).find("facts unknown (no probe or run report): 1 node  b1") !=
        std::string::npos);
}

TEST_CASE("fleet: findings of tuner.check/1 by rule and subject, errors first") {
  std::vector<NodeReport> docs;
  for (const std::string& n : names("gpu-{:04}", 0, 6)) {
    nlohmann::json check = {{"schema", "tuner.check/1"}, {"findings", nlohmann::json::array()}};
    if (n != "gpu-0000")
      check["findings"].push_back(
          {{"rule", "nic.autoneg_off"}, {"severity", "warning"}, {"subject", "eth0"}});
    if (n == "gpu-0004")
      check["findings"].push_back(
          {{"rule", "pcie.degraded"}, {"severity", "error"}, {"subject", "0000:3b:00.0"}});
    auto r = read_node_report(check, n + ".check.json");
    REQUIRE(r.ok());
    CHECK(r->kind == "check");
    CHECK(r->node == n);
    docs.push_back(*r);
    docs.push_back(run(n));
  }
  FleetSummary s = summarize_fleet(docs);
  CHECK(s.checks == 6);
  REQUIRE(s.findings.size() == 2);
  CHECK(s.findings[0].rule == "pcie.degraded");  // an error, though on fewer nodes
  CHECK(s.findings[1].nodes.size() == 5);
  std::string text = format_fleet_text(s, kPlain);
  INFO(text);
  CHECK(text.find("6 runs (0 failed), 0 probes, 6 checks") != std::string::npos);
  CHECK(text.find("  error    pcie.degraded 0000:3b:00.0") != std::string::npos);
  CHECK(text.find("  warning  nic.autoneg_off eth0") != std::string::npos);
  CHECK(text.find("5 nodes  gpu-[0001-0005]") != std::string::npos);
  CHECK(fleet_json(s)["findings"][1]["subject"] == "eth0");

  nlohmann::json bad = {{"schema", "tuner.check/1"}, {"findings", {{{"rule", 1}}}}};
  CHECK_FALSE(read_node_report(bad, "x.check.json").ok());
  CHECK_FALSE(read_node_report({{"schema", "tuner.check/1"}}, "x.check.json").ok());
}

}  // namespace tuner
