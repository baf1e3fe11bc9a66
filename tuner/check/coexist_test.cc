// tuned.overrides and networkmanager.overrides on the R910 capture with Debian 12's
// captured tuned profiles (tests/fixtures/tuned) and the overlays of
// tests/fixtures/check: tuned enabled with network-throughput over kept sysctls, the
// unit that restores after tuned, a child profile that drops tuner's keys, and
// NetworkManager connections by name and by MAC address.
#include <doctest/doctest.h>

#include <algorithm>

#include "tests/support/check_node.h"
#include "tuner/check/coexist.h"

namespace tuner {
namespace {

using testing::CheckNode;
using testing::findings;

const Evidence* evidence(const Finding& f, std::string_view what_prefix) {
  for (const Evidence& e : f.evidence)
    if (e.what.starts_with(what_prefix)) return &e;
  return nullptr;
}

std::vector<std::string> subjects(const CheckReport& r, Rule rule) {
  std::vector<std::string> out;
  for (const Finding* f : findings(r, rule)) out.push_back(f->subject);
  return out;
}

}  // namespace

TEST_CASE("coexist: tuned's network-throughput over kept sysctls, tuned last at boot") {
  CheckNode node({"tuned/debian12", "tuned-enabled"});
  CheckReport r = node.check();
  // vm.swappiness (10 against 1) and the TCP receive buffers differ; somaxconn ">2048"
  // holds under tuner's 4096 and dirty_ratio agrees.
  REQUIRE(subjects(r, Rule::tuned_overrides) ==
          std::vector<std::string>{"sysctl:net.ipv4.tcp_rmem", "sysctl:vm.swappiness"});
  const Finding& f = *findings(r, Rule::tuned_overrides)[1];
  CHECK(f.severity == Severity::warning);
  CHECK(f.summary.find("at boot tuned") != std::string::npos);
  CHECK(evidence(f, "tuned [sysctl] vm.swappiness (usr/lib/tuned/throughput-performance/"
                    "tuned.conf:")
            ->value == "10");
  CHECK(evidence(f, "tuner sysctl:vm.swappiness (kept by run 20240501T120000Z-1a2b)")->value ==
        "1");
  CHECK(evidence(f, "tuned.service")
            ->value.find("enabled (etc/systemd/system/"
                         "multi-user.target.wants/tuned.service)") != std::string::npos);
  CHECK(evidence(f, "tuned profile")->value == "network-throughput (profile_mode manual)");
  CHECK(f.fix.find("include=network-throughput and [sysctl] drop=vm.swappiness") !=
        std::string::npos);
  // The quoted value from network-throughput, over the parent's none.
  const Finding& rmem = *findings(r, Rule::tuned_overrides)[0];
  CHECK(evidence(rmem, "tuned [sysctl]")->value ==
        "4096 87380 16777216");  // unquoted, as tuned does
  CHECK_FALSE(testing::skipped(r, Rule::tuned_overrides));
}

TEST_CASE("coexist: what the profile in effect is about to set is compared too") {
  CheckNode node({"tuned/debian12", "tuned-enabled"});
  GatherOptions opt;
  opt.profile = "local";
  opt.planned = {{"sysctl:vm.swappiness", "5"}, {"mm:thp", "madvise"}};
  CheckReport r = node.check(opt);
  // The plan's 5 over the kept 1; THP is planned only, and tuned's throughput-performance
  // sets THP only in its aarch64 unit, which is not compared.
  auto got = findings(r, Rule::tuned_overrides);
  REQUIRE(subjects(r, Rule::tuned_overrides) ==
          std::vector<std::string>{"sysctl:net.ipv4.tcp_rmem", "sysctl:vm.swappiness"});
  CHECK(evidence(*got[1], "tuner sysctl:vm.swappiness (planned by profile 'local')")->value == "5");
}

TEST_CASE("coexist: tuner-after-tuned.service makes tuner last at boot (info)") {
  CheckNode node({"tuned/debian12", "tuned-enabled", "tuner-after-tuned"});
  CheckReport r = node.check();
  auto got = findings(r, Rule::tuned_overrides);
  REQUIRE(got.size() == 2);
  for (const Finding* f : got) {
    CHECK(f->severity == Severity::info);
    CHECK(evidence(*f, "at boot")->value.starts_with("tuner: tuner-after-tuned.service"));
  }
}

TEST_CASE("coexist: a child profile that drops tuner's keys leaves nothing to report") {
  CheckNode node({"tuned/debian12", "tuned-enabled", "tuned-child"});
  CheckReport r = node.check();
  CHECK(findings(r, Rule::tuned_overrides).empty());
  CHECK_FALSE(testing::skipped(r, Rule::tuned_overrides));
}

TEST_CASE("coexist: tuned neither enabled nor running, or nothing to compare") {
  CheckNode kept_only({"irqbalance"});  // kept IRQs, no tuned
  CheckReport r = kept_only.check();
  CHECK(findings(r, Rule::tuned_overrides).empty());
  CHECK(testing::skipped(r, Rule::tuned_overrides));
  CHECK_FALSE(testing::unreadable(r, Rule::tuned_overrides));
  CHECK(testing::skipped(r, Rule::networkmanager_overrides));

  CheckNode nothing_kept;
  CHECK(testing::skipped(nothing_kept.check(), Rule::tuned_overrides));
}

TEST_CASE("coexist: a tuned profile that cannot be read is reported unreadable") {
  CheckNode node({"tuned-enabled"});  // no profiles in the tree
  CheckReport r = node.check();
  CHECK(testing::unreadable(r, Rule::tuned_overrides));
  CHECK(findings(r, Rule::tuned_overrides).empty());
}

TEST_CASE("coexist: NetworkManager's connections by interface name and by MAC") {
  CheckNode node({"networkmanager"});
  CheckReport r = node.check();
  // uplink (eth0) rings rx 1024 against 4096; storage (eth1 by MAC) adaptive-rx on
  // against off, its channels agree; "spare" does not autoconnect.
  REQUIRE(subjects(r, Rule::networkmanager_overrides) ==
          std::vector<std::string>{"nic:eth0:rings", "nic:eth1:coalesce"});
  const Finding& rings = *findings(r, Rule::networkmanager_overrides)[0];
  CHECK(rings.severity == Severity::warning);
  CHECK(evidence(rings, "connection 'uplink' ethtool.ring-rx, ethtool.ring-tx")->value ==
        "rx=1024,tx=4096");
  CHECK(rings.fix.find("nmcli connection modify 'uplink' ethtool.ring-rx '' ethtool.ring-tx ''") !=
        std::string::npos);
  CHECK(testing::skipped(r, Rule::tuned_overrides));
}

TEST_CASE("coexist: values compared as each side applies them") {
  auto tuned = [](std::string value, char modifier = 0) {
    return ForeignValue{std::move(value), "sysctl", "k", "f:1", false, modifier};
  };
  CHECK_FALSE(values_conflict("4096\t87380\t16777216", tuned("4096 87380  16777216")));
  CHECK(values_conflict("1", tuned("10")));
  CHECK_FALSE(values_conflict("4096", tuned("2048", '>')));  // tuner's is above: kept
  CHECK(values_conflict("1024", tuned("2048", '>')));
  CHECK_FALSE(values_conflict("performance", tuned("performance|ondemand")));
  CHECK(values_conflict("powersave", tuned("performance|powersave")));
  CHECK(values_conflict("1", ForeignValue{"${f:x}", "sysctl", "k", "f:1", true, 0}));
  // Key by key: only what both set.
  CHECK_FALSE(values_conflict("rx=4096,tx=512", tuned("rx=4096")));
  CHECK(values_conflict("rx=4096", tuned("rx=1024,tx=4096")));
  CHECK_FALSE(values_conflict("adaptive-rx=on", tuned("adaptive-rx=true")));
}

}  // namespace tuner
