// Parsing and loading good profiles: every value of the format, includes and merging,
// the search path, and the shipped profiles.
#include <fstream>
#include <sstream>
#include <string>

#include <doctest/doctest.h>

#include "tests/support/temp_dir.h"
#include "tuner/profile/match.h"
#include "tuner/profile/parse.h"
#include "tuner/profile/profile.h"
#include "tuner/profile/value_search.h"

using namespace tuner;

namespace {

const std::string kGood = TUNER_TEST_DATA "/profiles/good";
const std::string kShipped = TUNER_SOURCE_PROFILES;

const SysctlSetting* sysctl(const Profile& p, const std::string& key) {
  for (const SysctlSetting& s : p.sysctls)
    if (s.key == key) return &s;
  return nullptr;
}

}  // namespace

TEST_CASE("profile: every value of the format parses as written") {
  auto p = load_profile(kGood + "/full.toml", {});
  REQUIRE_MESSAGE(p.ok(), p.error().message());
  CHECK(p->name == "full");
  CHECK(p->description == "every feature once");
  CHECK(p->chain == std::vector<std::string>{"full"});

  CHECK(p->match.numa_nodes == ">=2");
  CHECK(p->match.cpu_vendor == "GenuineIntel");
  CHECK(p->match.nic_driver == "mlx5*");
  CHECK(p->match.gpu == true);
  CHECK(p->match.virtualized == false);

  const SysctlSetting* rmem = sysctl(*p, "net.core.rmem_max");
  REQUIRE(rmem);
  CHECK(rmem->op == SysctlSetting::Op::set);
  CHECK(rmem->value == "268435456");
  CHECK(rmem->group == "buffers");
  CHECK(rmem->loc.str() == kGood + "/full.toml:14:1");
  CHECK(sysctl(*p, "net.core.somaxconn")->op == SysctlSetting::Op::at_least);
  CHECK(sysctl(*p, "net.core.somaxconn")->value == "4096");
  CHECK(sysctl(*p, "net.core.somaxconn")->group == "sysctl");
  CHECK(sysctl(*p, "vm.dirty_ratio")->op == SysctlSetting::Op::at_most);
  CHECK(sysctl(*p, "vm.dirty_ratio")->value == "20");
  CHECK(sysctl(*p, "net.ipv4.tcp_rmem")->op == SysctlSetting::Op::at_least);  // one bound a field
  CHECK(sysctl(*p, "net.ipv4.tcp_rmem")->value == "4096 87380 6291456");
  CHECK(sysctl(*p, "kernel.perf_event_paranoid")->value == "-1");
  REQUIRE(sysctl(*p, "net.ipv4.tcp_mtu_probing"));  // from [sysctl.net.ipv4]
  CHECK(sysctl(*p, "net.ipv4.tcp_mtu_probing")->value == "1");
  // [numa] shorthands become sysctls in group "numa".
  REQUIRE(sysctl(*p, "kernel.numa_balancing"));
  CHECK(sysctl(*p, "kernel.numa_balancing")->value == "0");
  CHECK(sysctl(*p, "kernel.numa_balancing")->group == "numa");
  CHECK(sysctl(*p, "vm.zone_reclaim_mode")->value == "0");

  REQUIRE(p->irqs.size() == 2);
  const IrqRule& pin = p->irqs[0].glob == "eth0" ? p->irqs[0] : p->irqs[1];
  const IrqRule& local = p->irqs[0].glob == "eth0" ? p->irqs[1] : p->irqs[0];
  CHECK(pin.policy == IrqPolicy::pin);
  REQUIRE(pin.cpus);
  CHECK(pin.cpus->to_string() == "0-3,8");
  CHECK(pin.group == "pinned");
  CHECK(pin.irqbalance == IrqbalanceAction::leave);
  CHECK(local.glob == "mlx5*");
  CHECK(local.policy == IrqPolicy::numa_local);
  CHECK(local.irqbalance == IrqbalanceAction::ban);
  CHECK(local.group == "irq");

  REQUIRE(p->nics.size() == 2);
  const NicRule& eth = p->nics[0].glob == "eth*" ? p->nics[0] : p->nics[1];
  const NicRule& ens = p->nics[0].glob == "eth*" ? p->nics[1] : p->nics[0];
  CHECK(eth.speed_max);
  CHECK_FALSE(eth.speed_mbps);
  CHECK(eth.duplex == Duplex::full);
  CHECK(eth.autoneg == true);
  CHECK(eth.combined == 8u);
  CHECK(eth.rx_channels == 2u);
  CHECK_FALSE(eth.tx_channels);
  CHECK(eth.rx_ring == 4096u);
  CHECK_FALSE(eth.rx_ring_max);
  CHECK(eth.tx_ring_max);
  REQUIRE(eth.coalesce.has_value());
  CHECK(eth.coalesce->rx_usecs == 8u);
  CHECK(eth.coalesce->tx_frames == 0u);
  CHECK(eth.coalesce->adaptive_rx == false);
  CHECK_FALSE(eth.coalesce->tx_usecs.has_value());
  CHECK_FALSE(eth.coalesce->adaptive_tx.has_value());
  CHECK_FALSE(ens.coalesce.has_value());
  CHECK(eth.group == "links");
  CHECK(ens.speed_mbps == 25000u);
  CHECK(ens.mtu == 9000u);
  CHECK_FALSE(eth.mtu.has_value());
  CHECK(ens.combined == 4u);
  CHECK(ens.rps == RpsPolicy::numa_local);
  CHECK(ens.rps_loc.str() == kGood + "/full.toml:44:7");
  CHECK(ens.xps == XpsPolicy::follow_irq);
  CHECK_FALSE(eth.rps);
  CHECK_FALSE(eth.xps);
  CHECK(ens.rfs == 32768u);
  CHECK(ens.rfs_loc.str() == kGood + "/full.toml:46:7");
  CHECK_FALSE(eth.rfs);
  CHECK(ens.group == "links");

  REQUIRE(p->binds.size() == 2);
  CHECK(p->binds[0].unit == "trainer.service");
  CHECK(p->binds[0].near == "gpu0");
  CHECK(p->binds[0].group == "numa");
  CHECK(p->binds[1].cgroup == "jobs.slice/job-1");
  CHECK(p->binds[1].node == 1u);
  CHECK(p->binds[1].group == "jobs");

  CHECK(p->verify.bench == std::vector<std::string>{"tcp", "membw"});
  CHECK(p->verify.min_effect == doctest::Approx(0.05));
  CHECK(p->verify.false_keep_rate == doctest::Approx(0.01));
  CHECK(p->verify.max_trials == 40u);
  REQUIRE(p->verify.watch_margin);
  CHECK(*p->verify.watch_margin == doctest::Approx(0.005));
  REQUIRE(p->verify.guards.size() == 1);
  CHECK(p->verify.guards[0].metric == "tcp_retrans_pct");
  CHECK(p->verify.guards[0].max_increase == doctest::Approx(1.0));

  REQUIRE(p->groups.count("links"));
  CHECK_FALSE(p->groups.at("links").keep_if_neutral);
  CHECK(p->groups.at("links").bench == std::vector<std::string>{"tcp"});
  CHECK_FALSE(p->groups.at("buffers").bench.has_value());  // [verify] decides
  CHECK(p->groups.at("buffers").keep_if_neutral);
  CHECK(p->groups.at("buffers").members.size() == 2);
  CHECK(p->verify.bisect);
  CHECK(p->groups.at("links").bisect == false);             // set: overrides [verify]
  CHECK_FALSE(p->groups.at("buffers").bisect.has_value());  // unset: [verify] decides

  const CpuTable& cpu = p->cpu;
  REQUIRE(cpu.governor);
  CHECK(cpu.governor->value == "performance");
  CHECK(cpu.governor->group == "power");
  CHECK(cpu.governor->loc.str() == kGood + "/full.toml:81:1");
  CHECK(cpu.epp->value == "balance_performance");
  CHECK(cpu.resume_latency->value == "n/a");
  CHECK(cpu.resume_latency->group == "power");
  REQUIRE(cpu.cpus);
  CHECK(cpu.cpus->to_string() == "0-15");
  CHECK(p->mm.thp->value == "madvise");
  CHECK(p->mm.thp->group == "mm");
  CHECK(p->mm.thp_defrag->value == "defer+madvise");
  CHECK(p->mm.thp_defrag->group == "hugepages");  // claimed by [group.hugepages]
}

TEST_CASE("profile: [cpu] resume latency is microseconds or n/a, in the kernel's form") {
  for (const auto& [text_, value] : {std::pair{"0", "0"},
                                     {"50", "50"},
                                     {"\"n/a\"", "n/a"},
                                     {"\"020\"", "20"},
                                     {"2147483646", "2147483646"}}) {
    const char* text = text_;  // CAPTURE's lambda cannot capture a structured binding (clang 14)
    CAPTURE(text);
    auto f = parse_profile_file(std::string("[cpu]\nresume_latency_us = ") + text + "\n", "c.toml");
    REQUIRE_MESSAGE(f.ok(), f.error().message());
    CHECK(f->profile.cpu.resume_latency->value == value);
    CHECK(f->profile.cpu.resume_latency->group == "cpu");
    CHECK_FALSE(f->profile.cpu.governor);
  }
  auto f = parse_profile_file("[cpu]\nresume_latency_us = 2147483647\n", "c.toml");
  REQUIRE_FALSE(f.ok());
  CHECK(f.error().where == "c.toml:2:21");
}

TEST_CASE("profile: includes merge [cpu] and [mm] key by key; later files win") {
  testing::TempDir dir("tuner-profile-cpu");
  dir.write("base.toml", "[cpu]\ngovernor = \"powersave\"\nepp = \"power\"\ncpus = \"0-7\"\n"
                         "[mm]\nthp = \"always\"\nthp_defrag = \"defer\"\n"
                         "[group.hugepages]\nmembers = [\"mm:thp\"]\n");
  dir.write("top.toml",
            "[profile]\ninclude = [\"base\"]\n"
            "[cpu]\ngovernor = \"performance\"\nresume_latency_us = 0\ngroup = \"power\"\n"
            "[mm]\nthp_defrag = \"madvise\"\n"
            "[group.latency]\nmembers = [\"cpu:resume_latency\"]\n");
  auto p = load_profile(dir / "top.toml", {});
  REQUIRE_MESSAGE(p.ok(), p.error().message());
  CHECK(p->cpu.governor->value == "performance");  // the including file wins
  CHECK(p->cpu.governor->group == "power");
  CHECK(p->cpu.governor->loc.file == dir / "top.toml");
  CHECK(p->cpu.epp->value == "power");  // from the parent, in the parent's group
  CHECK(p->cpu.epp->group == "cpu");
  CHECK(p->cpu.cpus->to_string() == "0-7");  // a key like the others: inherited
  CHECK(p->cpu.resume_latency->value == "0");
  CHECK(p->cpu.resume_latency->group == "latency");
  CHECK(p->mm.thp->value == "always");
  CHECK(p->mm.thp->group == "hugepages");
  CHECK(p->mm.thp_defrag->value == "madvise");
  CHECK(p->mm.thp_defrag->group == "mm");

  // Two --profile: the later one wins key by key, as for includes.
  auto base = load_profile(dir / "base.toml", {});
  REQUIRE(base.ok());
  Profile merged = merge_profiles({*p, *base});
  CHECK(merged.cpu.governor->value == "powersave");
  CHECK(merged.cpu.resume_latency->value == "0");
  CHECK(merged.mm.thp_defrag->value == "defer");
}

TEST_CASE("profile: defaults when a section is absent") {
  auto f = parse_profile_file("[sysctl]\n\"vm.swappiness\" = 10\n", "/x/minimal.toml");
  REQUIRE(f.ok());
  CHECK(f->profile.name == "minimal");  // the file name without .toml
  CHECK(f->profile.verify.min_effect == doctest::Approx(0.02));
  CHECK(f->profile.verify.max_trials == 40u);
  CHECK_FALSE(f->profile.verify.bisect);
  CHECK(f->profile.verify.set_fields.empty());
  CHECK(f->profile.sysctls.at(0).group == "sysctl");
  CHECK(f->includes.empty());
}

TEST_CASE("profile: includes merge parents first and the including file wins") {
  auto p = load_profile(kGood + "/child.toml", {});
  REQUIRE_MESSAGE(p.ok(), p.error().message());
  CHECK(p->name == "child");
  CHECK(p->chain == std::vector<std::string>{"parent", "extra", "child"});
  CHECK(p->description == "extra, included by path");       // inherited: child has none
  CHECK(sysctl(*p, "net.core.rmem_max")->value == "3000");  // child wins
  CHECK(sysctl(*p, "net.core.rmem_max")->loc.file == kGood + "/child.toml");
  CHECK(sysctl(*p, "net.core.wmem_max")->value == "2000");     // from parent
  CHECK(sysctl(*p, "net.core.wmem_max")->group == "buffers");  // parent's group kept
  CHECK(sysctl(*p, "vm.swappiness")->value == "10");           // from sub/extra.toml by path
  REQUIRE(p->irqs.size() == 1);
  CHECK(p->irqs[0].policy == IrqPolicy::numa_local);  // same glob: replaced
  // Binds: same unit replaced by the later file, others appended.
  REQUIRE(p->binds.size() == 2);
  CHECK(p->binds[0].unit == "a.service");
  CHECK(p->binds[0].node == 1u);  // sub/extra.toml came after parent
  CHECK(p->binds[1].unit == "b.service");
  // Verify: only fields the child set override.
  CHECK(p->verify.min_effect == doctest::Approx(0.03));
  CHECK(p->verify.max_trials == 50u);
  CHECK(p->verify.bench == std::vector<std::string>{"tcp"});
  CHECK(p->verify.bisect);  // from parent: the child does not set it
  // Match is not inherited: the parent's gpu = true does not make the child GPU-only.
  CHECK_FALSE(p->match.gpu);
}

TEST_CASE("profile: a profile included twice (diamond) is merged consistently") {
  auto p = load_profile(kGood + "/diamond.toml", {});
  REQUIRE_MESSAGE(p.ok(), p.error().message());
  CHECK(p->chain == std::vector<std::string>{"parent", "extra", "child", "diamond"});
  CHECK(sysctl(*p, "net.core.rmem_max")->value == "3000");
  CHECK(p->binds.size() == 2);
}

TEST_CASE("profile: names are searched in the search path, paths taken as paths") {
  CHECK(is_profile_name("dl-training"));
  CHECK(is_profile_name("my_profile2"));
  CHECK_FALSE(is_profile_name("x.toml"));
  CHECK_FALSE(is_profile_name("../x"));
  CHECK_FALSE(is_profile_name(""));
  auto by_name = load_profile("parent", {kGood});
  REQUIRE_MESSAGE(by_name.ok(), by_name.error().message());
  CHECK(by_name->file == kGood + "/parent.toml");
  auto missing = load_profile("parent", {kShipped});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message().find("no profile named 'parent'") != std::string::npos);
  CHECK(missing.error().message().find(kShipped) != std::string::npos);
}

TEST_CASE("profile: search path keeps only existing directories, configured first") {
  testing::TempDir tmp("tuner-profile-test");
  const std::string& dir = tmp.path;
  CHECK(profile_search_path({dir, "/nonexistent/tuner", dir}) == std::vector<std::string>{dir});
  std::vector<std::string> def = profile_search_path({});
  REQUIRE_FALSE(def.empty());
  CHECK(def.back() == kShipped);  // the source tree last, after /etc and /usr/share
}

TEST_CASE("profile: a same-named profile earlier in the path can extend the shipped one") {
  testing::TempDir tmp("tuner-profile-test");
  const std::string& dir = tmp.path;
  tmp.write("throughput.toml",
            "[profile]\ninclude = [\"throughput\"]\n[sysctl]\n\"net.core.rmem_max\" = 1\n");
  auto p = load_profile("throughput", {dir, kShipped});
  REQUIRE_MESSAGE(p.ok(), p.error().message());
  CHECK(p->file == dir + "/throughput.toml");
  CHECK(sysctl(*p, "net.core.rmem_max")->value == "1");
  CHECK(sysctl(*p, "net.ipv4.tcp_slow_start_after_idle"));  // from the shipped one
}

TEST_CASE("profile: several --profile merge, later ones winning") {
  auto a = load_profile("throughput", {kShipped});
  auto b = load_profile("latency", {kShipped});
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  Profile m = merge_profiles({*a, *b});
  CHECK(m.name == "throughput+latency");
  CHECK(sysctl(m, "net.ipv4.tcp_rmem")->value == "4096 131072 33554432");  // only in throughput
  CHECK(sysctl(m, "net.core.busy_read")->value == "50");                   // only in latency
  CHECK(m.irqs.size() == 1);
  CHECK_FALSE(m.match.gpu);
  Profile one = merge_profiles({*b});
  CHECK(one.name == "latency");
  CHECK(one.sysctls.size() == b->sysctls.size());
}

TEST_CASE("profile: dl-training is network-throughput plus NUMA settings") {
  auto p = load_profile("dl-training", {kShipped});
  REQUIRE_MESSAGE(p.ok(), p.error().message());
  CHECK(p->chain ==
        std::vector<std::string>{"balanced", "throughput", "network-throughput", "dl-training"});
  CHECK(sysctl(*p, "net.core.netdev_budget")->value == "600");  // from network-throughput
  CHECK(sysctl(*p, "net.core.somaxconn")->op == SysctlSetting::Op::at_least);  // from balanced
  CHECK(sysctl(*p, "kernel.numa_balancing")->value == "0");
  CHECK(p->binds.empty());  // placement is per GPU, by the launcher (tuner exec --near)
  REQUIRE(p->irqs.size() == 1);
  CHECK(p->irqs[0].policy == IrqPolicy::numa_local);
  CHECK_FALSE(p->match.gpu);     // chosen by the operator, not guessed from GPUs
  REQUIRE(p->nics.size() == 1);  // network-throughput's queue count; rings left alone
  CHECK(p->nics[0].combined_local_cores);
  CHECK_FALSE(p->nics[0].rx_ring);
  CHECK(p->nics[0].group == "placement");  // with the IRQs XPS follows
  CHECK(p->irqs[0].group == "placement");
  CHECK(p->verify.bench == std::vector<std::string>{"membw"});
  // Group settings merge field by field: restating keep_if_neutral and peer keeps the
  // parent's bench (network-throughput's napi group: bulk, against a peer), a group's
  // own bench wins (sysctl: bulk, as throughput's), and a chosen group has none.
  REQUIRE(p->groups.count("napi"));
  CHECK(p->groups.at("napi").bench == std::vector<std::string>{"bulk"});
  CHECK(p->groups.at("napi").peer);
  CHECK(p->groups.at("napi").keep_if_neutral);
  CHECK(p->benches.at("bulk").tcp.streams == 8);  // from throughput
  CHECK(p->groups.at("sysctl").bench == (std::vector<std::string>{"bulk", "tcp"}));
  CHECK(p->benches.at("bulk").tcp.direction == bench::StreamDirection::in);
  CHECK(p->groups.at("numa").chosen);
  CHECK(p->groups.at("cpu").chosen);
  // balanced's queues group names its benchmark: not dl-training's membw.
  CHECK(p->groups.at("queues").bench == std::vector<std::string>{"tcp"});
}

TEST_CASE("profile: value searches keep every candidate, the first as the value") {
  auto p = load_profile(kGood + "/search.toml", {});
  REQUIRE_MESSAGE(p.ok(), p.error().message());
  const SysctlSetting* budget = sysctl(*p, "net.core.netdev_budget");
  REQUIRE(budget);
  CHECK(budget->search == std::vector<std::string>{"300", "600", "1200", "2400"});
  CHECK(budget->value == "300");
  CHECK(budget->group == "budget");
  CHECK(sysctl(*p, "net.core.somaxconn")->search.empty());
  REQUIRE(p->nics.size() == 2);
  // Rules in key order: ens* before eth*.
  CHECK(p->nics[1].rx_ring_search == std::vector<uint32_t>{512, 1024, 2048, 4096});
  CHECK(p->nics[1].rx_ring == 512u);
  CHECK(p->nics[0].coalesce_search == std::vector<std::string>{"0", "8", "64"});
  CHECK(p->nics[0].coalesce_search_field == "rx_usecs");
  CHECK(p->nics[0].coalesce->rx_usecs == 0u);
  CHECK(p->nics[0].coalesce->adaptive_rx == false);
  CHECK(p->cpu.resume_latency->search == std::vector<std::string>{"0", "2", "20"});
  CHECK(p->mm.thp->search == std::vector<std::string>{"madvise", "always"});

  std::vector<SearchedSetting> all = searched_settings(*p);
  REQUIRE(all.size() == 5);
  CHECK(all[0].setting == "sysctl:net.core.netdev_budget");
  CHECK(all[0].group == "budget");
  CHECK(all[1].setting == "nic:ens*:coalesce.rx_usecs");
  CHECK(all[1].group == "coalesce");
  CHECK(all[2].setting == "nic:eth*:rings.rx");
  CHECK(all[3].setting == "cpu:resume_latency");
  CHECK(all[4].setting == "mm:thp");

  // A candidate picked: that value, and no search left on the setting.
  auto third = with_candidate(*p, "sysctl:net.core.netdev_budget", 2);
  REQUIRE(third.ok());
  CHECK(sysctl(*third, "net.core.netdev_budget")->value == "1200");
  CHECK(sysctl(*third, "net.core.netdev_budget")->search.empty());
  CHECK(searched_settings(*third).size() == 4);
  auto coalesce = with_candidate(*p, "nic:ens*:coalesce.rx_usecs", 2);
  REQUIRE(coalesce.ok());
  CHECK(coalesce->nics[0].coalesce->rx_usecs == 64u);
  CHECK(coalesce->nics[0].coalesce->adaptive_rx == false);
  CHECK(coalesce->nics[0].coalesce_search.empty());
  auto rings = with_candidate(*p, "nic:eth*:rings.rx", 3);
  REQUIRE(rings.ok());
  CHECK(rings->nics[1].rx_ring == 4096u);
  auto thp = with_candidate(*p, "mm:thp", 1);
  REQUIRE(thp.ok());
  CHECK(thp->mm.thp->value == "always");
  CHECK_FALSE(with_candidate(*p, "mm:thp", 2).ok());
  CHECK_FALSE(with_candidate(*p, "sysctl:net.core.somaxconn", 0).ok());
  CHECK(check_one_search_per_group(*p).ok());
}

TEST_CASE("profile: an included profile's search is replaced by the child's stated value") {
  testing::TempDir dir("tuner-profile-search");
  dir.write("parent.toml", "[sysctl]\n\"net.core.netdev_budget\" = { search = [300, 600] }\n");
  dir.write("child.toml",
            "[profile]\ninclude = [\"parent\"]\n[sysctl]\n\"net.core.netdev_budget\" = 900\n");
  auto p = load_profile(dir / "child.toml", {});
  REQUIRE_MESSAGE(p.ok(), p.error().message());
  CHECK(sysctl(*p, "net.core.netdev_budget")->value == "900");
  CHECK(searched_settings(*p).empty());
}

TEST_CASE("profile: link_type says which kind of port a rule is for; a later rule replaces it") {
  auto f = parse_profile_file("[irq.\"ib*\"]\npolicy = \"numa-local\"\nlink_type = \"infiniband\"\n"
                              "[nic.\"*\"]\ncombined = 8\nlink_type = \"ethernet\"\n",
                              "site.toml");
  REQUIRE_MESSAGE(f.ok(), f.error().message());
  REQUIRE(f->profile.irqs.size() == 1);
  CHECK(f->profile.irqs[0].link_type == LinkKind::infiniband);
  REQUIRE(f->profile.nics.size() == 1);
  CHECK(f->profile.nics[0].link_type == LinkKind::ethernet);
  CHECK(link_kind_name(LinkKind::infiniband) == std::string("infiniband"));
  // A child's rule for the same glob replaces the whole rule, link_type included.
  auto child = parse_profile_file("[irq.\"ib*\"]\npolicy = \"spread\"\n", "child.toml");
  REQUIRE(child.ok());
  Profile merged = merge_profiles({f->profile, child->profile});
  REQUIRE(merged.irqs.size() == 1);
  CHECK(merged.irqs[0].policy == IrqPolicy::spread);
  CHECK_FALSE(merged.irqs[0].link_type);
}

TEST_CASE("profile: [verify] budget is read, and a child's replaces its parent's") {
  auto f = parse_profile_file("[verify]\nbudget = \"30m\"\n", "site.toml");
  REQUIRE_MESSAGE(f.ok(), f.error().message());
  CHECK(f->profile.verify.budget == std::chrono::minutes(30));
  auto child = parse_profile_file("[verify]\nbudget = \"1h\"\n", "child.toml");
  REQUIRE(child.ok());
  CHECK(merge_profiles({f->profile, child->profile}).verify.budget == std::chrono::hours(1));
  auto silent = parse_profile_file("[verify]\nmax_trials = 20\n", "quiet.toml");
  REQUIRE(silent.ok());
  CHECK(merge_profiles({f->profile, silent->profile}).verify.budget == std::chrono::minutes(30));
  CHECK_FALSE(silent->profile.verify.budget.has_value());
}

TEST_CASE("profile: default_route and accept_filter_loss are read into their rules") {
  auto f = parse_profile_file("[irq.\"*\"]\npolicy = \"numa-local\"\ndefault_route = false\n"
                              "[nic.\"*\"]\ncombined = 8\ndefault_route = true\n"
                              "accept_filter_loss = true\n[nic.eth9]\ncombined = 2\n",
                              "site.toml");
  REQUIRE_MESSAGE(f.ok(), f.error().message());
  REQUIRE(f->profile.irqs.size() == 1);
  CHECK(f->profile.irqs[0].default_route == false);
  REQUIRE(f->profile.nics.size() == 2);
  CHECK(f->profile.nics[0].default_route == true);
  CHECK(f->profile.nics[0].accept_filter_loss);
  CHECK_FALSE(f->profile.nics[1].default_route.has_value());
  CHECK_FALSE(f->profile.nics[1].accept_filter_loss);
}

TEST_CASE("profile: { leave = true } drops what an included profile sets") {
  testing::TempDir dir("tuner-profile-leave");
  dir.write("base.toml",
            "[sysctl]\n\"vm.dirty_ratio\" = 40\n\"vm.swappiness\" = 10\n"
            "[group.vm]\nmembers = [\"sysctl:vm.dirty_ratio\", \"sysctl:vm.swappiness\"]\n");
  dir.write("top.toml", "[profile]\ninclude = [\"base\"]\n"
                        "[sysctl]\n\"vm.dirty_ratio\" = { leave = true }\n"
                        "[sysctl.vm]\ndirty_background_ratio = { leave = true }\n");
  auto p = load_profile(dir / "top.toml", {});
  REQUIRE_MESSAGE(p.ok(), p.error().message());
  // The left key is gone (the parent's group still lists it: no error); the rest stays.
  CHECK(sysctl(*p, "vm.dirty_ratio") == nullptr);
  CHECK(sysctl(*p, "vm.dirty_background_ratio") == nullptr);
  REQUIRE(sysctl(*p, "vm.swappiness") != nullptr);
  CHECK(sysctl(*p, "vm.swappiness")->group == "vm");
  // The parent alone still sets it.
  auto base = load_profile(dir / "base.toml", {});
  REQUIRE(base.ok());
  CHECK(sysctl(*base, "vm.dirty_ratio") != nullptr);
}
