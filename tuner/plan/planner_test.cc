#include "tuner/plan/planner.h"

#include <doctest/doctest.h>

#include <algorithm>

#include "tuner/plan/builder.h"
#include "tuner/plan/plan_test_util.h"

using namespace tuner;
using testing::FakeCurrent;
using testing::loc;

namespace {

SysctlSetting sysctl(std::string key, SysctlSetting::Op op, std::string value, int line = 3) {
  return SysctlSetting{std::move(key), op, std::move(value), "sysctl", loc(line), {}};
}

Profile named(const std::string& name) {
  Profile p;
  p.name = name;
  p.chain = {"throughput", name};
  return p;
}

const Change* find(const Plan& plan, const std::string& knob) {
  for (const Change& c : plan.changes)
    if (c.knob == knob) return &c;
  return nullptr;
}

}  // namespace

TEST_CASE("planner sysctl: exact values compare as normalised text and as numbers") {
  Inventory inv = testing::smt_machine(1, 2);
  FakeCurrent cur;
  cur.values_ = {{"sysctl:net.core.rmem_max", "212992"},
                 {"sysctl:net.ipv4.tcp_rmem", "4096\t131072  6291456"},
                 {"sysctl:kernel.numa_balancing", "0"},
                 {"sysctl:net.ipv4.tcp_congestion_control", "cubic"}};
  Profile p = named("dl-training");
  using Op = SysctlSetting::Op;
  p.sysctls = {sysctl("net.core.rmem_max", Op::set, "268435456"),
               sysctl("net.ipv4.tcp_rmem", Op::set, "4096 131072 06291456"),
               sysctl("kernel.numa_balancing", Op::set, "00"),
               sysctl("net.ipv4.tcp_congestion_control", Op::set, "bbr")};
  auto plan = make_plan_with(p, inv, cur);
  REQUIRE(plan.ok());
  CHECK(plan->profiles == std::vector<std::string>{"throughput", "dl-training"});
  REQUIRE(plan->changes.size() == 2);
  CHECK(plan->unchanged == 2);
  const Change* rmem = find(*plan, "sysctl:net.core.rmem_max");
  REQUIRE(rmem);
  CHECK(rmem->current == "212992");
  CHECK(rmem->desired == "268435456");
  CHECK(rmem->group == "sysctl");
  CHECK(rmem->reason == "profile sets 268435456 (test.toml:3)");
  CHECK(find(*plan, "sysctl:net.ipv4.tcp_congestion_control")->desired == "bbr");
}

TEST_CASE("planner sysctl: net.* changes note the other network namespaces") {
  Inventory inv = testing::smt_machine(1, 2);
  FakeCurrent cur;
  cur.values_ = {{"sysctl:net.core.somaxconn", "128"},
                 {"sysctl:net.ipv4.tcp_rmem", "4096 131072 6291456"},
                 {"sysctl:vm.swappiness", "60"}};
  Profile p = named("t");
  using Op = SysctlSetting::Op;
  auto notes_of = [&](std::vector<SysctlSetting> settings) {
    p.sysctls = std::move(settings);
    auto plan = make_plan_with(p, inv, cur);
    REQUIRE(plan.ok());
    std::string all;
    for (const auto& n : plan->notes) all += n + "\n";
    return all;
  };
  std::string vm_only = "10";
  inv.host.other_net_namespaces = 3;
  CHECK(notes_of({sysctl("net.core.somaxconn", Op::set, "4096")})
            .find("; the 3 other namespaces with processes here (containers) keep their own "
                  "values") != std::string::npos);
  // A key new namespaces copy is still one the existing ones keep.
  CHECK(notes_of({sysctl("net.ipv4.tcp_rmem", Op::set, "4096 131072 33554432")}) ==
        "net.* sysctls are per network namespace: the 3 other namespaces with processes here "
        "(containers) keep their own values\n");
  CHECK(notes_of({sysctl("vm.swappiness", Op::set, vm_only)}).find("namespace") ==
        std::string::npos);  // not a net.* change
  inv.host.other_net_namespaces = 0;
  CHECK(
      notes_of({sysctl("net.ipv4.tcp_rmem", Op::set, "4096 131072 33554432")}).find("namespace") ==
      std::string::npos);
}

TEST_CASE("planner sysctl: the net.* changes pods created later do not get are named") {
  // Every new network namespace (a pod, a container) starts most net.* keys at the
  // kernel's default; it copies tcp_rmem and tcp_wmem from the initial namespace, and
  // shares rmem_max with it (tuner/knobs/sysctl_netns.cc). Said whether or not other
  // namespaces exist now.
  Inventory inv = testing::smt_machine(1, 2);
  inv.host.other_net_namespaces = 0;
  FakeCurrent cur;
  cur.values_ = {{"sysctl:net.core.somaxconn", "4096"},
                 {"sysctl:net.ipv4.tcp_notsent_lowat", "4294967295"},
                 {"sysctl:net.ipv4.tcp_rmem", "4096 131072 6291456"},
                 {"sysctl:net.ipv4.tcp_wmem", "4096 16384 4194304"},
                 {"sysctl:net.core.rmem_max", "212992"},
                 {"sysctl:net.ipv4.conf.eth0.rp_filter", "1"}};
  Profile p = named("inference");
  using Op = SysctlSetting::Op;
  p.sysctls = {sysctl("net.core.somaxconn", Op::at_least, "8192"),
               sysctl("net.ipv4.tcp_notsent_lowat", Op::set, "131072"),
               sysctl("net.ipv4.tcp_rmem", Op::at_least, "4096 131072 33554432"),
               sysctl("net.ipv4.tcp_wmem", Op::at_least, "4096 16384 16777216"),
               sysctl("net.core.rmem_max", Op::at_least, "16777216"),
               sysctl("net.ipv4.conf.eth0.rp_filter", Op::set, "2")};
  auto plan = make_plan_with(p, inv, cur);
  REQUIRE(plan.ok());
  REQUIRE(plan->changes.size() == 6);
  std::vector<std::string> netns;
  for (const std::string& n : plan->notes)
    if (n.starts_with("net.* sysctls are per network namespace")) netns.push_back(n);
  REQUIRE(netns.size() == 1);  // one note, never the same thing twice
  CHECK(netns[0] ==
        "net.* sysctls are per network namespace: network namespaces created later (pods, "
        "containers) start net.core.somaxconn and net.ipv4.tcp_notsent_lowat at the kernel's "
        "default, not at this plan's values (a pod sets its own: securityContext.sysctls)");
  for (const char* not_named : {"tcp_rmem", "tcp_wmem", "rmem_max", "rp_filter"})
    CHECK_MESSAGE(netns[0].find(not_named) == std::string::npos, not_named);
  // With containers running, the same note says they keep theirs.
  inv.host.other_net_namespaces = 2;
  auto with_others = make_plan_with(p, inv, cur);
  REQUIRE(with_others.ok());
  CHECK(std::count_if(with_others->notes.begin(), with_others->notes.end(), [](const auto& n) {
          return n.starts_with("net.* sysctls are per network namespace: network namespaces "
                               "created later") &&
                 n.ends_with("; the 2 other namespaces with processes here (containers) keep "
                             "their own values");
        }) == 1);
  // Planned from inside a container, nothing reaches a new namespace from this one.
  inv.host.initial_net_namespace = false;
  inv.host.other_net_namespaces = 0;
  auto inside = make_plan_with(p, inv, cur);
  REQUIRE(inside.ok());
  bool named_rmem = false;
  for (const std::string& n : inside->notes)
    named_rmem |= n.find("net.ipv4.tcp_notsent_lowat, net.ipv4.tcp_rmem and "
                         "net.ipv4.tcp_wmem at the kernel's default") != std::string::npos;
  CHECK(named_rmem);
}

TEST_CASE("planner sysctl: a global net.* key outside the initial namespace is skipped") {
  Inventory inv = testing::smt_machine(1, 2);
  FakeCurrent cur;
  cur.missing_ = {"sysctl:net.core.netdev_max_backlog"};  // as in a netns
  Profile p = named("t");
  p.sysctls = {sysctl("net.core.netdev_max_backlog", SysctlSetting::Op::at_least, "4096", 7)};
  inv.host.initial_net_namespace = false;
  auto plan = make_plan_with(p, inv, cur);
  REQUIRE(plan.ok());
  CHECK(plan->changes.empty());
  REQUIRE(plan->notes.size() == 1);
  CHECK(plan->notes[0] ==
        "sysctl:net.core.netdev_max_backlog: not in this network namespace (a global setting of "
        "the initial one): skipped");
  inv.host.initial_net_namespace = true;  // there, a missing key is the profile's mistake
  auto bad = make_plan_with(p, inv, cur);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message().find("test.toml:7") != std::string::npos);
}

TEST_CASE("planner sysctl: >= raises only, <= lowers only") {
  Inventory inv = testing::smt_machine(1, 2);
  FakeCurrent cur;
  cur.values_ = {{"sysctl:net.core.somaxconn", "4096"},
                 {"sysctl:net.core.netdev_max_backlog", "1000"},
                 {"sysctl:vm.swappiness", "60"},
                 {"sysctl:vm.dirty_ratio", "5"},
                 {"sysctl:kernel.shmmax", "18446744073692774399"}};
  using Op = SysctlSetting::Op;
  Profile p = named("x");
  p.sysctls = {sysctl("net.core.somaxconn", Op::at_least, "1024"),           // already larger
               sysctl("net.core.netdev_max_backlog", Op::at_least, "5000"),  // raise
               sysctl("vm.swappiness", Op::at_most, "10"),                   // lower
               sysctl("vm.dirty_ratio", Op::at_most, "10"),                  // already lower
               sysctl("kernel.shmmax", Op::at_least, "68719476736")};        // beyond int64
  auto plan = make_plan_with(p, inv, cur);
  REQUIRE(plan.ok());
  CHECK(plan->unchanged == 3);
  REQUIRE(plan->changes.size() == 2);
  CHECK(plan->changes[0].knob == "sysctl:net.core.netdev_max_backlog");
  CHECK(plan->changes[0].desired == "5000");
  CHECK(plan->changes[0].reason == "raise only: profile asks >= 5000 (test.toml:3)");
  CHECK(plan->changes[1].knob == "sysctl:vm.swappiness");
  CHECK(plan->changes[1].desired == "10");

  SUBCASE("a multi-value sysctl cannot take a single bound") {
    cur.values_["sysctl:net.core.somaxconn"] = "4096 87380";
    auto bad = make_plan_with(p, inv, cur);
    REQUIRE(!bad.ok());
    CHECK(bad.error().where == "/etc/tuner/profiles/test.toml:3:1");
    CHECK(bad.error().what ==
          "sysctl 'net.core.somaxconn' is '4096 87380': 2 fields, and '>=1024' bounds 1");
  }
}

TEST_CASE("planner sysctl: a vector bound raises each field below it and keeps a site's larger") {
  // The case: a site raised the maximum to 64 MiB; the profile's 32 MiB must not
  // lower it, while its larger default is still taken.
  Inventory inv = testing::smt_machine(1, 2);
  FakeCurrent cur;
  cur.values_ = {{"sysctl:net.ipv4.tcp_rmem", "4096 87380 67108864"},
                 {"sysctl:net.ipv4.tcp_wmem", "4096 16384 4194304"},
                 {"sysctl:net.ipv4.tcp_mem", "1 2 3"}};
  using Op = SysctlSetting::Op;
  Profile p = named("x");
  p.sysctls = {sysctl("net.ipv4.tcp_rmem", Op::at_least, "4096 131072 33554432", 4),
               sysctl("net.ipv4.tcp_wmem", Op::at_least, "4096 16384 16777216", 5),
               sysctl("net.ipv4.tcp_mem", Op::at_most, "1 2 3", 6)};
  auto plan = make_plan_with(p, inv, cur);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  CHECK(plan->unchanged == 1);  // tcp_mem is within its upper bound
  const Change* rmem = find(*plan, "sysctl:net.ipv4.tcp_rmem");
  REQUIRE(rmem);
  CHECK(rmem->desired == "4096 131072 67108864");
  CHECK(rmem->reason == "raise only: profile asks >= 4096 131072 33554432 (test.toml:4)");
  const Change* wmem = find(*plan, "sysctl:net.ipv4.tcp_wmem");
  REQUIRE(wmem);
  CHECK(wmem->desired == "4096 16384 16777216");
  // A bound with the wrong number of fields is refused at its line.
  p.sysctls = {sysctl("net.ipv4.tcp_rmem", Op::at_least, "4096 131072", 9)};
  auto bad = make_plan_with(p, inv, cur);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().where == "/etc/tuner/profiles/test.toml:9:1");
}

TEST_CASE("planner sysctl: text for a sysctl that holds numbers is refused at plan time") {
  // apply would write it and the kernel refuse it, after other changes were made.
  Inventory inv = testing::smt_machine(1, 2);
  FakeCurrent cur;
  cur.values_ = {{"sysctl:net.core.somaxconn", "4096"},
                 {"sysctl:net.ipv4.tcp_rmem", "4096 131072 6291456"},
                 {"sysctl:net.ipv4.tcp_congestion_control", "cubic"}};
  using Op = SysctlSetting::Op;
  auto plan_one = [&](SysctlSetting s) {
    Profile p = named("x");
    p.sysctls = {std::move(s)};
    return make_plan_with(p, inv, cur);
  };
  for (const char* text : {">5000", "=>5000", "nan", "1,2", "0x10 extra"}) {
    CAPTURE(text);
    auto bad = plan_one(sysctl("net.core.somaxconn", Op::set, text, 9));
    REQUIRE(!bad.ok());
    CHECK(bad.error().where == "/etc/tuner/profiles/test.toml:9:1");
    CHECK(bad.error().what.find("holds numbers ('4096')") != std::string::npos);
  }
  CHECK(plan_one(sysctl("net.core.somaxconn", Op::set, ">5000"))
            .error()
            .what.find("raise only is \">=N\"") != std::string::npos);
  CHECK(!plan_one(sysctl("net.ipv4.tcp_rmem", Op::set, "4096 lots 6291456")).ok());
  // Numbers stay numbers, text sysctls take text, negative numbers are numbers.
  CHECK(plan_one(sysctl("net.ipv4.tcp_rmem", Op::set, "4096\t262144  16777216")).ok());
  CHECK(plan_one(sysctl("net.core.somaxconn", Op::set, "-1")).ok());
  CHECK(plan_one(sysctl("net.ipv4.tcp_congestion_control", Op::set, "bbr")).ok());
}

TEST_CASE("planner sysctl: a key the machine does not have is an error at its line") {
  Inventory inv = testing::smt_machine(1, 2);
  FakeCurrent cur;
  cur.missing_ = {"sysctl:net.core.foo"};
  Profile p = named("x");
  p.sysctls = {sysctl("net.core.foo", SysctlSetting::Op::set, "1", 17)};
  auto plan = make_plan_with(p, inv, cur);
  REQUIRE(!plan.ok());
  CHECK(plan.error().where == "/etc/tuner/profiles/test.toml:17:1");
  CHECK(plan.error().what == "sysctl:net.core.foo does not exist");
}

TEST_CASE("planner sysctl: a bad key is refused before anything is read") {
  Inventory inv = testing::smt_machine(1, 2);
  FakeCurrent cur;
  Profile p = named("x");
  p.sysctls = {sysctl("net/../../etc/passwd", SysctlSetting::Op::set, "1", 9)};
  auto plan = make_plan_with(p, inv, cur);
  REQUIRE(!plan.ok());
  CHECK(plan.error().where == "/etc/tuner/profiles/test.toml:9:1");
}

TEST_CASE("planner sysctl: an XML target lists every setting with an unknown current") {
  Inventory inv = testing::smt_machine(1, 2);
  FakeCurrent cur;
  cur.readable_ = false;
  cur.missing_ = {"sysctl:net.core.foo"};  // never asked: no existence check on XML
  Profile p = named("x");
  p.sysctls = {sysctl("net.core.foo", SysctlSetting::Op::set, "1"),
               sysctl("net.core.somaxconn", SysctlSetting::Op::at_least, "4096")};
  auto plan = make_plan_with(p, inv, cur);
  REQUIRE(plan.ok());
  REQUIRE(plan->changes.size() == 2);
  CHECK(plan->unchanged == 0);
  for (const Change& c : plan->changes) CHECK(!c.current.has_value());
}

TEST_CASE("planner sysctl: an unreadable value is listed with current null and says why") {
  Inventory inv = testing::smt_machine(1, 2);
  FakeCurrent cur;  // knows no value: every get is "unknown"
  Profile p = named("x");
  p.sysctls = {sysctl("kernel.cad_pid", SysctlSetting::Op::set, "1")};
  auto plan = make_plan_with(p, inv, cur);
  REQUIRE(plan.ok());
  REQUIRE(plan->changes.size() == 1);
  CHECK(!plan->changes[0].current);
  CHECK(plan->changes[0].reason.find("current value unreadable: not in the fake") !=
        std::string::npos);
}

TEST_CASE("planner: changes are ordered by group, kind, then knob id with numbers as numbers") {
  using planner_detail::natural_less;
  CHECK(natural_less("irq:9:affinity", "irq:57:affinity"));
  CHECK(!natural_less("irq:57:affinity", "irq:9:affinity"));
  CHECK(natural_less("nic:eth2:link", "nic:eth10:link"));
  CHECK(natural_less("a", "ab"));
  CHECK(!natural_less("a", "a"));

  Inventory inv = testing::smt_machine(1, 2);
  testing::add_nic(inv, "eth0", 0, 2, 57);
  Irq& low = inv.irqs[0];
  low.number = 9;  // queue 0 gets the lower number
  FakeCurrent cur;
  cur.values_ = {{"sysctl:b.x", "0"}, {"sysctl:a.x", "0"}};
  Profile p = named("x");
  p.sysctls = {sysctl("b.x", SysctlSetting::Op::set, "1"),
               sysctl("a.x", SysctlSetting::Op::set, "1")};
  p.sysctls[0].group = "zeta";
  IrqRule rule;
  rule.glob = "eth*";
  rule.policy = IrqPolicy::spread;
  rule.group = "alpha";
  p.irqs = {rule};
  NumaBind bind;
  bind.unit = "trainer.service";
  bind.node = 0;
  bind.group = "alpha";
  p.binds = {bind};
  cur.values_["numa:unit:trainer.service"] = "none";
  auto plan = make_plan_with(p, inv, cur);
  REQUIRE(plan.ok());
  std::vector<std::string> knobs;
  for (const Change& c : plan->changes) knobs.push_back(c.group + " " + c.knob);
  CHECK(knobs == std::vector<std::string>{"alpha irq:9:affinity", "alpha irq:58:affinity",
                                          "alpha numa:unit:trainer.service", "sysctl sysctl:a.x",
                                          "zeta sysctl:b.x"});
}

TEST_CASE("planner: compare_integers handles signs, zeros and any length") {
  using planner_detail::compare_integers;
  CHECK(compare_integers("10", "9") == 1);
  CHECK(compare_integers("-1", "0") == -1);
  CHECK(compare_integers("-10", "-9") == -1);
  CHECK(compare_integers("007", "7") == 0);
  CHECK(compare_integers("-0", "0") == 0);
  CHECK(compare_integers("18446744073709551616", "18446744073709551615") == 1);
  CHECK(!compare_integers("4096 87380", "1"));
  CHECK(!compare_integers("cubic", "1"));
}

TEST_CASE("planner: a plan applied to its own desired state is empty") {
  Inventory inv = testing::smt_machine(2, 4);
  Nic& eth0 = testing::add_nic(inv, "eth0", 0, 5, 40);
  eth0.link = LinkInfo{
      true, false, 1000, Duplex::half, "FIBRE", {"1000baseT/Full", "25000baseSR/Full"}, {}, {}};
  eth0.channels = Channels{std::nullopt, std::nullopt, std::nullopt, 2, 0, 0, 1, 8};
  eth0.rings = Rings{256, 256, 4096, 4096};
  testing::add_nic(inv, "eth1", 1, 12, 60);
  inv.host.irqbalance_running = true;
  FakeCurrent cur;
  cur.values_ = {{"sysctl:net.core.rmem_max", "212992"},
                 {"sysctl:net.core.somaxconn", "128"},
                 {"sysctl:vm.swappiness", "60"},
                 {"numa:unit:trainer.service", "none"},
                 {"irqbalance:banned", "none"}};
  using Op = SysctlSetting::Op;
  Profile p = named("x");
  p.sysctls = {sysctl("net.core.rmem_max", Op::set, "268435456"),
               sysctl("net.core.somaxconn", Op::at_least, "4096"),
               sysctl("vm.swappiness", Op::at_most, "10")};
  IrqRule irq;
  irq.glob = "eth0";
  irq.policy = IrqPolicy::numa_local;
  irq.irqbalance = IrqbalanceAction::ban;
  IrqRule spread = irq;
  spread.glob = "eth1";
  spread.policy = IrqPolicy::spread;
  p.irqs = {irq, spread};
  NicRule nic;
  nic.glob = "eth0";
  nic.speed_max = true;
  nic.duplex = Duplex::full;
  nic.autoneg = false;
  nic.combined = 8;
  nic.rx_ring_max = true;
  nic.tx_ring = 1024;
  p.nics = {nic};
  NumaBind bind;
  bind.unit = "trainer.service";
  bind.near = "eth1";
  p.binds = {bind};

  auto first = make_plan_with(p, inv, cur);
  REQUIRE(first.ok());
  // 3 sysctls, 17 IRQs, link, channels, rings, the unit, the ban list.
  CHECK(first->changes.size() == 25);
  CHECK(first->unchanged == 0);
  testing::apply_plan(*first, inv, cur);
  auto second = make_plan_with(p, inv, cur);
  REQUIRE(second.ok());
  CHECK(second->changes.empty());
  CHECK(second->unchanged == first->changes.size());
}
