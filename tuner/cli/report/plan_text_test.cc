#include "tuner/cli/report/plan_text.h"

#include <doctest/doctest.h>

#include <cstdlib>

#include "tests/support/files.h"
#include "tuner/cli/report/plan_json.h"
#include "tuner/plan/plan_test_util.h"
#include "tuner/plan/planner.h"

using namespace tuner;
using testing::FakeCurrent;

namespace {

/// A profile touching every kind, planned on a two-node machine with one NIC.
Plan sample_plan() {
  Inventory inv = testing::smt_machine(2, 2);  // PUs 0-7; node 1 = 2-3,6-7
  Nic& nic = testing::add_nic(inv, "eth2", 1, 3, 57);
  nic.link.autoneg = true;
  nic.link.speed_mbps = 10000;
  nic.link.duplex = Duplex::full;
  nic.link.supported_modes = {"10000baseSR/Full", "25000baseSR/Full"};
  inv.irqs[1].affinity = "3";  // queue 1 already in place
  inv.host.irqbalance_running = true;
  Nic veth;
  veth.name = "eth9";
  veth.is_virtual = true;
  inv.nics.push_back(veth);
  FakeCurrent cur;
  cur.values_ = {{"sysctl:net.core.rmem_max", "212992"},
                 {"sysctl:net.core.somaxconn", "4096"},
                 {"numa:unit:trainer.service", "none"}};
  Profile p;
  p.name = "dl-training";
  p.chain = {"throughput", "network-throughput", "dl-training"};
  p.sysctls = {
      {"net.core.rmem_max", SysctlSetting::Op::set, "268435456", "sysctl", testing::loc(4), {}},
      {"net.core.somaxconn", SysctlSetting::Op::at_least, "1024", "sysctl", testing::loc(5), {}}};
  IrqRule irq;
  irq.glob = "eth*";
  irq.policy = IrqPolicy::numa_local;
  irq.irqbalance = IrqbalanceAction::stop;
  irq.group = "network";
  irq.loc = testing::loc(8);
  p.irqs = {irq};
  NicRule link;
  link.glob = "eth*";
  link.speed_mbps = 25000;
  link.group = "network";
  link.loc = testing::loc(12);
  p.nics = {link};
  NumaBind bind;
  bind.unit = "trainer.service";
  bind.near = "eth2";
  bind.loc = testing::loc(16);
  p.binds = {bind};
  auto plan = make_plan_with(p, inv, cur);
  REQUIRE(plan.ok());
  return *plan;
}

void check_golden(const std::string& name, const std::string& actual) {
  std::string path = testing::test_data_path("plan/" + name);
  if (std::getenv("TUNER_UPDATE_GOLDEN")) testing::write_file(path, actual);
  CHECK(actual == testing::read_text(path));
}

}  // namespace

TEST_CASE("plan report: golden text diff, colour off") {
  Term plain(ColorMode::never, 1);
  check_golden("sample.txt", format_plan(sample_plan(), plain));
}

TEST_CASE("plan report: colour marks removed and added values") {
  Term color(ColorMode::always, 1);
  std::string text = format_plan(sample_plan(), color);
  CHECK(text.find("\033[31m- 212992\033[0m") != std::string::npos);
  CHECK(text.find("\033[32m+ 268435456\033[0m") != std::string::npos);
}

TEST_CASE("plan report: no changes and singular counts") {
  Term plain(ColorMode::never, 1);
  Plan empty;
  empty.profiles = {"balanced"};
  empty.unchanged = 12;
  CHECK(format_plan(empty, plain) ==
        "plan: profile balanced\n\nno changes: the machine already matches profile balanced "
        "(12 settings checked)\n");
  Plan one = empty;
  one.unchanged = 1;
  one.changes = {Change{"sysctl:vm.swappiness", "sysctl", std::nullopt, "10", ""}};
  std::string text = format_plan(one, plain);
  CHECK(text.find("    - (unknown)\n") != std::string::npos);
  CHECK(text.find("1 change in 1 group, 1 setting already as desired\n") != std::string::npos);
}

TEST_CASE("plan json: tuner.plan/1 with five typed keys per change") {
  Plan plan = sample_plan();
  nlohmann::ordered_json j = plan_to_json(plan);
  check_golden("sample.json", j.dump(2) + "\n");
  CHECK(j["schema"] == "tuner.plan/1");
  CHECK(j["profiles"] ==
        nlohmann::ordered_json({"throughput", "network-throughput", "dl-training"}));
  CHECK(j["unchanged"].is_number_unsigned());
  CHECK(j["unchanged"] == plan.unchanged);
  CHECK(j["notes"].is_array());
  REQUIRE(j["changes"].size() == plan.changes.size());
  for (const auto& c : j["changes"]) {
    CHECK(c.size() == 5);
    CHECK(c["knob"].is_string());
    CHECK(c["group"].is_string());
    CHECK((c["current"].is_string() || c["current"].is_null()));
    CHECK(c["desired"].is_string());
    CHECK(c["reason"].is_string());
  }
  Plan unknown;
  unknown.changes = {Change{"sysctl:vm.swappiness", "sysctl", std::nullopt, "10", "r"}};
  CHECK(plan_to_json(unknown)["changes"][0]["current"].is_null());
}

TEST_CASE("plan report: the same change of many CPUs is one entry") {
  Term plain(ColorMode::never, 1);
  Plan p;
  p.profiles = {"latency"};
  for (unsigned cpu : {0, 1, 2, 3, 8, 10, 11})
    p.changes.push_back(Change{"cpu:" + std::to_string(cpu) + ":resume_latency", "cpu",
                               std::nullopt, "2", "profile sets resume latency 2"});
  p.changes.push_back(Change{"cpu:9:resume_latency", "cpu", "0", "2", "profile sets 2"});
  p.changes.push_back(Change{"cpu:policy0:governor", "cpu", "powersave", "performance", "r"});
  p.changes.push_back(Change{"cpu:policy4:governor", "cpu", "powersave", "performance", "r"});
  std::string text = format_plan(p, plain);
  CHECK(text == "plan: profile latency\n\n"
                "cpu\n"
                "  ~ cpu:N:resume_latency  for N in 0-3,8,10-11 (7 knobs)\n"
                "    - (unknown)\n    + 2\n      profile sets resume latency 2\n"
                "  ~ cpu:9:resume_latency\n    - 0\n    + 2\n      profile sets 2\n"
                "  ~ cpu:policy0:governor\n    - powersave\n    + performance\n      r\n"
                "  ~ cpu:policy4:governor\n    - powersave\n    + performance\n      r\n\n"
                "10 changes in 1 group, 0 settings already as desired\n");
}

TEST_CASE("plan report: a number with a leading zero is a name, not collapsed") {
  Term plain(ColorMode::never, 1);
  Plan p;
  for (const char* name :
       {"sysctl:net.ipv4.conf.eth01.forwarding", "sysctl:net.ipv4.conf.eth02.forwarding",
        "sysctl:net.ipv4.conf.eth03.forwarding"})
    p.changes.push_back(Change{name, "net", "0", "1", "r"});
  std::string text = format_plan(p, plain);
  CHECK(text.find("  ~ sysctl:net.ipv4.conf.eth01.forwarding\n") != std::string::npos);
  CHECK(text.find("for N in") == std::string::npos);
  // Without the zeros they are one entry.
  for (Change& c : p.changes) c.knob.erase(c.knob.find("eth0") + 3, 1);
  CHECK(format_plan(p, plain).find("  ~ sysctl:net.ipv4.conf.ethN.forwarding  for N in 1-3 (3 "
                                   "knobs)\n") != std::string::npos);
}

TEST_CASE("plan report: every group says what decides it, in text and JSON") {
  Plan plan;
  plan.profiles = {"p"};
  plan.changes = {Change{"sysctl:net.ipv4.tcp_fin_timeout", "nic", "60", "34", "r"},
                  Change{"sysctl:net.core.somaxconn", "queues", "128", "4096", "r"},
                  Change{"sysctl:vm.swappiness", "vm", "60", "10", "r"},
                  Change{"sysctl:net.core.netdev_budget", "napi", "300", "600", "r"}};
  plan.groups = {
      PlanGroup{"nic",
                {"tcp"},
                false,
                false,
                true,
                GroupDecider{Decider::peer_benchmark, "tcp@peer", "apply --peer", {}, false}},
      PlanGroup{"queues",
                {"tcp", "latency"},
                true,
                true,
                false,
                GroupDecider{Decider::benchmark, "tcp", "loopback", {"latency"}, true}},
      PlanGroup{"vm", {}, true, false, false, GroupDecider{Decider::guard_soak, "", "", {}, true}},
      PlanGroup{"napi", {}, false, false, false, GroupDecider{}}};
  const Term plain(ColorMode::never, 1);
  std::string text = format_plan(plan, plain);
  CHECK(text.find("nic  (decided by: a peer benchmark: tcp@peer (apply --peer), kept only on a "
                  "proven gain; without --peer the guard soak on the node's traffic: kept unless "
                  "it proves harm (no traffic: undecided, kept as chosen))\n") !=
        std::string::npos);
  CHECK(text.find("queues  (decided by: benchmark tcp (loopback), watching latency; kept unless "
                  "it proves harm; bisected if rejected)\n") != std::string::npos);
  CHECK(text.find("vm  (decided by: the guard soak on the node's traffic: kept unless it proves "
                  "harm (no traffic: undecided, kept as chosen))\n") != std::string::npos);
  CHECK(text.find("napi  (decided by: nothing measures it: left out when verifying (no "
                  "benchmark, no keep_if_neutral))\n") != std::string::npos);
  auto j = plan_to_json(plan);
  CHECK(j["groups"][0]["peer"] == true);
  CHECK(j["groups"][0]["decided_by"]["by"] == "peer_benchmark");
  CHECK(j["groups"][0]["decided_by"]["bench"] == "tcp@peer");
  CHECK(j["groups"][0]["decided_by"]["where"] == "apply --peer");
  CHECK(j["groups"][1]["decided_by"]["by"] == "benchmark");
  CHECK(j["groups"][2]["decided_by"]["by"] == "guard_soak");
  CHECK(j["groups"][2]["decided_by"]["bench"].is_null());
  CHECK(j["groups"][3]["decided_by"]["by"] == "left_out");
  // The JSON's text is the text plan's.
  for (const auto& g : j["groups"])
    CHECK(text.find("(decided by: " + g["decided_by"]["text"].get<std::string>()) !=
          std::string::npos);
}
