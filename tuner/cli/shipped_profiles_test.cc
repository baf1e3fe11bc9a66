// The review of the shipped profiles (profiles/README.md "Review"), as checks: each
// point an expert would refuse a profile for fails here. Static checks read the files;
// the plan checks run `tuner plan` of every shipped profile on captured machines.
#include <doctest/doctest.h>

#include <toml++/toml.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/cli.h"
#include "tuner/plan/plan_test_util.h"
#include "tuner/plan/planner.h"
#include "tuner/profile/group_policy.h"
#include "tuner/profile/match.h"
#include "tuner/profile/profile.h"

using namespace tuner;
using testing::run_tuner;

namespace {

const std::string kShipped = TUNER_SOURCE_PROFILES;
const std::vector<std::string> kNames = {"balanced",   "dl-training",   "hpc-mpi",
                                         "inference",  "latency",       "network-throughput",
                                         "throughput", "wan-throughput"};

Profile shipped(const std::string& name) {
  auto p = load_profile(name, {kShipped});
  REQUIRE_MESSAGE(p.ok(), p.error().message());
  return *p;
}

const SysctlSetting* sysctl(const Profile& p, const std::string& key) {
  for (const SysctlSetting& s : p.sysctls)
    if (s.key == key) return &s;
  return nullptr;
}

/// The largest number in a sysctl's value ("4096 131072 33554432", ">=16777216").
unsigned long long ceiling(const SysctlSetting& s) {
  std::istringstream in(s.value);
  unsigned long long v = 0, best = 0;
  while (in >> v) best = std::max(best, v);
  return best;
}

std::set<std::string> groups_used(const Profile& p) {
  std::set<std::string> out;
  for (const auto& s : p.sysctls) out.insert(s.group);
  for (const auto& r : p.irqs) out.insert(r.group);
  for (const auto& r : p.nics) out.insert(r.group);
  for (const auto& b : p.binds) out.insert(b.group);
  return out;
}

/// groups_used and the groups of [cpu] and [mm] settings: every group a plan may have.
std::set<std::string> every_group(const Profile& p) {
  std::set<std::string> out = groups_used(p);
  for (const auto* t :
       {&p.cpu.governor, &p.cpu.epp, &p.cpu.resume_latency, &p.mm.thp, &p.mm.thp_defrag})
    if (*t) out.insert((*t)->group);
  return out;
}

/// A row of profiles/README.md's "How each group is decided" table.
struct ReviewRow {
  std::string by, bench, kept;
};

std::string trimmed(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  return s;
}

/// (profile, group) -> row, read from the README's table.
std::map<std::pair<std::string, std::string>, ReviewRow> review_table() {
  std::ifstream in(kShipped + "/README.md");
  REQUIRE(in);
  std::map<std::pair<std::string, std::string>, ReviewRow> out;
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) inside = line.rfind("## How each group is decided", 0) == 0;
    if (!inside || line.rfind("| ", 0) != 0 || line.rfind("| profile ", 0) == 0) continue;
    std::vector<std::string> cells;
    std::istringstream row(line.substr(1));
    std::string cell;
    while (std::getline(row, cell, '|')) cells.push_back(trimmed(cell));
    REQUIRE_MESSAGE(cells.size() >= 5, line);
    bool fresh =
        out.emplace(std::pair{cells[0], cells[1]}, ReviewRow{cells[2], cells[3], cells[4]}).second;
    CHECK_MESSAGE(fresh, "a second row for " << cells[0] << " " << cells[1]);
  }
  return out;
}

/// The row the code's decider says: what the README must hold.
ReviewRow row_of(const GroupDecider& d) {
  return {decider_name(d.by), d.bench.empty() ? "-" : d.bench + " (" + d.where + ")",
          d.by == Decider::chosen ? "as chosen"
          : d.keep_if_neutral     ? "unless harmed"
                                  : "proven gain"};
}

}  // namespace

TEST_CASE("shipped profiles: every setting says why, with a reference") {
  for (const std::string& name : kNames) {
    std::string file = kShipped + "/" + name + ".toml";
    CAPTURE(file);
    std::ifstream in(file);
    REQUIRE(in);
    // A run of settings (no blank line between) follows comments that hold "Ref:".
    std::string line, section;
    bool ref = false;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      if (line.empty()) {
        ref = false;
        continue;
      }
      if (line[0] == '#') {
        ref = ref || line.find("Ref:") != std::string::npos;
        continue;
      }
      if (line[0] == '[') {
        section = line;
        ref = false;
        continue;
      }
      bool setting = section == "[sysctl]" || section == "[numa]" ||
                     section.rfind("[irq.", 0) == 0 || section.rfind("[nic.", 0) == 0 ||
                     section == "[[numa.bind]]";
      if (setting)
        CHECK_MESSAGE(ref, file << ":" << n << " has no reference (a '# Ref:' comment): " << line);
    }
  }
}

TEST_CASE("shipped profiles: every group states keep_if_neutral or chosen in the file itself") {
  for (const std::string& name : kNames) {
    CAPTURE(name);
    Profile p = shipped(name);
    toml::table t = toml::parse_file(kShipped + "/" + name + ".toml");
    for (const std::string& g : groups_used(p)) {
      CAPTURE(g);
      // Inherited keep rules are how "keep when neutral" leaked into every profile.
      CHECK((t["group"][g]["keep_if_neutral"].is_boolean() ||
             t["group"][g]["chosen"].value<bool>() == true));
    }
  }
}

TEST_CASE("shipped profiles: every group is decided as the README's table says") {
  auto table = review_table();
  std::set<std::pair<std::string, std::string>> seen;
  for (const std::string& name : kNames) {
    Profile p = shipped(name);
    for (const std::string& g : every_group(p)) {
      CAPTURE(name);
      CAPTURE(g);
      seen.insert({name, g});
      auto it = table.find({name, g});
      if (it == table.end()) {
        FAIL_CHECK("profiles/README.md has no row for " << name << " " << g);
        continue;
      }
      ReviewRow want = row_of(group_decider(p, g));
      CHECK(it->second.by == want.by);
      CHECK(it->second.bench == want.bench);
      CHECK(it->second.kept == want.kept);
    }
  }
  for (const auto& entry : table) {
    const auto& key = entry.first;  // not a structured binding: CHECK_MESSAGE captures it
    CHECK_MESSAGE(seen.contains(key), "README row for a group the profile does not have: "
                                          << key.first << " " << key.second);
  }
}

TEST_CASE("shipped profiles: what loopback cannot see is not decided on loopback") {
  for (const std::string& name : kNames) {
    CAPTURE(name);
    Profile p = shipped(name);
    std::set<std::string> used = every_group(p);
    toml::table t = toml::parse_file(kShipped + "/" + name + ".toml");
    for (const std::string& g : used) {
      CAPTURE(g);
      GroupDecider d = group_decider(p, g);
      // No group is left out of a verifying apply, and loopback decides nothing of a NIC
      // or of a socket's buffers (their groups: irq, channels, napi, sysctl of the
      // throughput family).
      CHECK(d.by != Decider::left_out);
      bool nic = g == "irq" || g == "channels" || g == "napi" || g == "placement";
      if (nic) CHECK(d.by != Decider::benchmark);
      for (const SysctlSetting& s : p.sysctls)
        if (s.group == g && (s.key == "net.ipv4.tcp_rmem" || s.key == "net.ipv4.tcp_wmem"))
          CHECK(d.by == Decider::peer_benchmark);
      // A peer group says so in the file itself, as keep_if_neutral.
      if (p.groups.contains(g) && p.groups.at(g).peer) CHECK(t["group"][g]["peer"].is_boolean());
    }
    // No single-node exec benchmark (all_reduce_perf) decides a group.
    for (const std::string& g : used) {
      GroupDecider d = group_decider(p, g);
      CHECK(d.where.rfind("this node: ", 0) != 0);
    }
  }
}

TEST_CASE("shipped profiles: the review's rules hold") {
  for (const std::string& name : kNames) {
    CAPTURE(name);
    Profile p = shipped(name);
    // No unit bound near one GPU: that puts every rank of a multi-GPU job on one socket.
    for (const NumaBind& b : p.binds) CHECK(b.near.value_or("").rfind("gpu", 0) != 0);
    // No port range over Kubernetes NodePorts (30000-32767) or the kubelet (10250).
    if (const SysctlSetting* r = sysctl(p, "net.ipv4.ip_local_port_range")) {
      std::istringstream in(r->value);
      unsigned lo = 0, hi = 0;
      in >> lo >> hi;
      CHECK((hi < 10250 || lo > 32767));
    }
    // tcp_tw_reuse = 1 reuses TIME_WAIT for any destination; 2 (the default) is
    // loopback only, the documented safe value.
    if (const SysctlSetting* r = sysctl(p, "net.ipv4.tcp_tw_reuse")) CHECK(r->value != "1");
    // tcp_max_syn_backlog is read only with syncookies off: a no-op by default.
    CHECK(sysctl(p, "net.ipv4.tcp_max_syn_backlog") == nullptr);
    // Buffer ceilings sized for datacenter round trips; wide-area sizes opt in by name.
    unsigned long long limit = name == "wan-throughput" ? 512ull << 20 : 32ull << 20;
    for (const char* key :
         {"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem", "net.core.rmem_max", "net.core.wmem_max"})
      if (const SysctlSetting* s = sysctl(p, key)) CHECK_MESSAGE(ceiling(*s) <= limit, key);
    // Rings and link modes are left alone: raised only where drop counters say so.
    for (const NicRule& r : p.nics) {
      CHECK_FALSE(r.rx_ring);
      CHECK_FALSE(r.tx_ring);
    }
    // Wildcard NIC rules are for data ports: never the port the default route goes out
    // of (the management port an operator reaches the node by), unless a site names it.
    for (const IrqRule& r : p.irqs)
      if (r.glob.find_first_of("*?[") != std::string::npos) CHECK(r.default_route == false);
    for (const NicRule& r : p.nics)
      if (r.glob.find_first_of("*?[") != std::string::npos) CHECK(r.default_route == false);
    // Workload profiles are the operator's choice: only balanced is picked by itself.
    if (name != "balanced") CHECK(match_specificity(p.match) == 0);
    // Whatever changes NIC behaviour watches NIC drops and link flaps.
    if (!p.irqs.empty() || !p.nics.empty()) {
      std::set<std::string> guards;
      for (const Guard& g : p.verify.guards) guards.insert(g.metric);
      CHECK(guards.count("nic_drops"));
      CHECK(guards.count("link_flaps"));
    }
    // CPU power settings cost power on every node: kept only where a benchmark that can
    // see them proves a gain, or said to be kept as chosen (where the only benchmark
    // would prove a gain on every node: a timer wake-up against a 99 us limit), never
    // "unless harmed"; and never "n/a" (no idle state at all: every core spins).
    if (p.cpu.governor || p.cpu.epp || p.cpu.resume_latency) {
      const GroupSettings& g = p.groups.at("cpu");
      if (!g.chosen) {
        CHECK_FALSE(g.keep_if_neutral);
        CHECK((!g.bench || !g.bench->empty()));
      }
    }
    if (p.cpu.resume_latency) {
      std::vector<std::string> values = p.cpu.resume_latency->search;
      values.push_back(p.cpu.resume_latency->value);
      for (const std::string& v : values) {  // a search's candidates too
        CHECK(v != "n/a");
        CHECK(v != "0");
      }
    }
    if (p.cpu.governor) CHECK(p.cpu.governor->value == "performance");
    // Every performance profile sets the governor, as every TuneD *-performance one does.
    if (name != "balanced") CHECK(p.cpu.governor);
  }
}

TEST_CASE("shipped profiles: plan on captured machines; every group's verification said") {
  auto table = review_table();
  for (const char* xml : {"nvidiaDGX2.xml", "24em64t-2n6c2t-pci.xml", "16amd64-4distances.xml",
                          "power8gpudistances.xml"}) {
    for (const std::string& name : kNames) {
      CAPTURE(xml);
      CAPTURE(name);
      auto r = run_tuner("plan --json --profile-path " + kShipped + " --profile " + name +
                         " --topology " TUNER_FIXTURES "/topologies/" + xml);
      REQUIRE_MESSAGE(r.code == 0, r.err);
      auto j = nlohmann::json::parse(r.out);
      std::set<std::string> planned;
      for (const auto& c : j["changes"]) {
        std::string knob = c["knob"];
        CHECK(knob.find(":rings") == std::string::npos);
        CHECK(knob.rfind("numa:unit:", 0) != 0);
        planned.insert(c["group"].get<std::string>());
      }
      std::set<std::string> described;
      for (const auto& g : j["groups"]) {
        std::string group = g["name"].get<std::string>();
        described.insert(group);
        // The plan says what the README's table says for the group.
        auto it = table.find({name, group});
        REQUIRE_MESSAGE(it != table.end(), name << " " << group);
        const auto& by = g["decided_by"];
        CHECK(by["by"] == it->second.by);
        std::string bench = by["bench"].is_null() ? "-"
                                                  : by["bench"].get<std::string>() + " (" +
                                                        by["where"].get<std::string>() + ")";
        CHECK(bench == it->second.bench);
        CHECK(g["keep_if_neutral"] == (it->second.kept != "proven gain"));
      }
      CHECK(planned == described);
    }
  }
}

TEST_CASE("shipped profiles: a site's larger limits and budgets are never lowered") {
  // A node whose site raised every limit and budget the shipped profiles touch, field
  // by field: no plan may write a smaller number to any field of them (issue 20).
  testing::FakeCurrent cur;
  cur.values_ = {{"sysctl:net.ipv4.tcp_rmem", "4096 1048576 1073741824"},
                 {"sysctl:net.ipv4.tcp_wmem", "4096 1048576 1073741824"},
                 {"sysctl:net.core.rmem_max", "2147483647"},
                 {"sysctl:net.core.wmem_max", "2147483647"},
                 {"sysctl:net.core.netdev_budget", "5000"},
                 {"sysctl:net.core.netdev_max_backlog", "250000"},
                 {"sysctl:net.core.somaxconn", "65535"},
                 {"sysctl:net.ipv4.tcp_mtu_probing", "2"}};
  Inventory inv = testing::smt_machine(2, 4);
  for (const std::string& name : kNames) {
    CAPTURE(name);
    Profile p = shipped(name);
    std::erase_if(p.sysctls, [&](const SysctlSetting& s) {
      return !cur.values_.contains("sysctl:" + s.key);  // the others are not limits
    });
    p.irqs.clear();
    p.nics.clear();
    p.binds.clear();
    p.cpu = {};
    p.mm = {};
    auto plan = make_plan_with(p, inv, cur);
    REQUIRE_MESSAGE(plan.ok(), plan.error().message());
    for (const Change& c : plan->changes) {
      CAPTURE(c.knob);
      std::istringstream now(*c.current), want(c.desired);
      unsigned long long a = 0, b = 0;
      while (now >> a && want >> b) CHECK(b >= a);
    }
  }
}

TEST_CASE("shipped profiles: NIC rules on an NPS4 node: socket-sized, lowered only, data ports") {
  // Two sockets split into four NUMA nodes each (AMD NPS4, 4 cores a node). ens1: a
  // 100G port on node 5 with the driver's default 63 queues; ens2: a 25G port on node 1
  // whose site set 8 queues; eno1: a 1 GbE management port (I350) with 8 queues.
  Inventory inv = testing::smt_machine(8, 4, 4);
  auto port = [&](const std::string& name, int node, unsigned queues, unsigned irq,
                  uint32_t speed) {
    Nic& n = testing::add_nic(inv, name, node, queues, irq);
    n.link.up = true;
    n.link.speed_mbps = speed;
    n.channels = Channels{};
    n.channels->combined = queues;
    n.channels->combined_max = 63;
  };
  port("ens1", 5, 63, 100, 100000);
  port("ens2", 1, 8, 200, 25000);
  port("eno1", 0, 8, 300, 1000);
  testing::FakeCurrent cur;
  const CpuSet socket1 = CpuSet::parse("16-31,48-63").value();
  for (const char* name : {"network-throughput", "latency", "inference"}) {
    CAPTURE(name);
    Profile p = shipped(name);
    auto plan = make_plan_with(p, inv, cur);
    REQUIRE_MESSAGE(plan.ok(), plan.error().message());
    std::map<std::string, std::string> desired;
    std::map<unsigned, std::string> ens1_irq_cpus;  // queue IRQ -> CPU
    for (const Change& c : plan->changes) {
      desired[c.knob] = c.desired;
      if (c.knob.rfind("irq:1", 0) == 0 && c.knob.size() == 16) {  // irq:1NN:affinity
        unsigned irq = static_cast<unsigned>(std::stoul(c.knob.substr(4, 3)));
        if (irq < 163) ens1_irq_cpus[irq] = c.desired;
      }
      CHECK(c.knob.find("eno1") == std::string::npos);  // the 1 GbE port is left alone
      CHECK(c.knob.rfind("irq:3", 0) != 0);
    }
    // The 100G port: one queue per core of its socket (16), not of its node (4).
    CHECK(desired["nic:ens1:channels"] == "combined=16");
    // The site's 8 queues on the 25G port are never raised.
    CHECK_FALSE(desired.contains("nic:ens2:channels"));
    // Its queue IRQs stay on its socket, the first 16 each on a core of their own.
    REQUIRE(ens1_irq_cpus.size() == 63);
    std::set<std::string> first16;
    for (unsigned irq = 100; irq < 116; ++irq) {
      CHECK(CpuSet::parse(ens1_irq_cpus[irq])->is_subset_of(socket1));
      first16.insert(ens1_irq_cpus[irq]);
    }
    CHECK(first16.size() == 16);
    for (const auto& [irq, cpu] : ens1_irq_cpus) CHECK(CpuSet::parse(cpu)->is_subset_of(socket1));
    // XPS follows the placed IRQs, and every CPU of the machine is in some TX queue's
    // map: ens2's 8 queues, and ens1's 16 after its channel change (written after it).
    auto xps = [&](const std::string& nic) {
      CpuSet all;
      unsigned queues = 0;
      for (const Change& c : plan->changes)
        if (c.knob.starts_with("nic:" + nic + ":xps:tx-")) {
          all = all.unite(*CpuSet::parse(c.desired));
          ++queues;
          CHECK(c.written_after == (nic == "ens1" ? "nic:ens1:channels" : ""));
        }
      return std::pair(all, queues);
    };
    CHECK(CpuSet::parse(desired["irq:200:affinity"])
              ->is_subset_of(*CpuSet::parse(desired["nic:ens2:xps:tx-0"])));
    CHECK(xps("ens2") == std::pair(inv.topology.all_pus, 8u));
    CHECK(xps("ens1") == std::pair(inv.topology.all_pus, 16u));
    // inference pins nothing, so it leaves NUMA balancing alone.
    if (std::string(name) == "inference")
      CHECK_FALSE(desired.contains("sysctl:kernel.numa_balancing"));
  }
}

TEST_CASE("shipped profiles: dl-training leaves its GPU fabric's RDMA ports to their owner") {
  Inventory inv = testing::smt_machine(2, 8);
  auto port = [&](const std::string& name, int node, unsigned irq) -> Nic& {
    Nic& n = testing::add_nic(inv, name, node, 16, irq);
    n.link.up = true;
    n.link.speed_mbps = 200000;
    n.channels = Channels{};
    n.channels->combined = 16;
    n.channels->combined_max = 63;
    return n;
  };
  port("ens1f0np0", 0, 100).rdma_device = "mlx5_0";  // the RoCE GPU fabric
  port("ens2f0np0", 1, 200).rdma_device = "mlx5_1";
  port("ens3f0", 1, 300);  // the frontend and storage port: no RDMA device
  testing::FakeCurrent cur;
  auto plan = make_plan_with(shipped("dl-training"), inv, cur);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  std::set<std::string> knobs;
  for (const Change& c : plan->changes) knobs.insert(c.knob);
  for (const std::string& k : knobs) {
    CAPTURE(k);
    CHECK(k.find("ens1f0np0") == std::string::npos);
    CHECK(k.find("ens2f0np0") == std::string::npos);
    CHECK(k.rfind("irq:1", 0) != 0);
    CHECK(k.rfind("irq:2", 0) != 0);
  }
  CHECK(knobs.contains("irq:300:affinity"));
  CHECK(knobs.contains("nic:ens3f0:channels"));
  // network-throughput itself still places the RoCE ports' IRQs (rdma unset there).
  auto nt = make_plan_with(shipped("network-throughput"), inv, cur);
  REQUIRE(nt.ok());
  CHECK(std::ranges::any_of(nt->changes,
                            [](const Change& c) { return c.knob == "irq:100:affinity"; }));
}
