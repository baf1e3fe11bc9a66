#include "tuner/profile/group_member.h"

#include <doctest/doctest.h>

namespace tuner {

TEST_CASE("group member: one grammar for the parser and for applying members") {
  struct Case {
    const char* id;
    MemberKind kind;
    const char* name;
  };
  for (const Case& c : {Case{"sysctl:net.core.somaxconn", MemberKind::sysctl, "net.core.somaxconn"},
                        Case{"irq:eth*", MemberKind::irq, "eth*"},
                        Case{"nic:ens[1-2]", MemberKind::nic, "ens[1-2]"},
                        Case{"numa:unit:trainer.service", MemberKind::numa_unit, "trainer.service"},
                        Case{"numa:cgroup:jobs/a", MemberKind::numa_cgroup, "jobs/a"},
                        Case{"cpu:governor", MemberKind::cpu_mm, "cpu:governor"},
                        Case{"mm:thp_defrag", MemberKind::cpu_mm, "mm:thp_defrag"}}) {
    CAPTURE(c.id);
    auto ref = parse_group_member(c.id);
    REQUIRE_MESSAGE(ref.ok(), (ref.ok() ? "" : ref.error().what));
    CHECK(ref->kind == c.kind);
    CHECK(ref->name == c.name);
  }
  // Each part checked by its own validator; an unknown form is told every form.
  CHECK(parse_group_member("sysctl:").error().what == "empty sysctl key");
  CHECK(!parse_group_member("sysctl:../etc").ok());
  CHECK(!parse_group_member("irq:../x").ok());
  CHECK(!parse_group_member("numa:unit:../x.service").ok());
  CHECK(!parse_group_member("numa:cgroup:/etc").ok());
  CHECK(parse_group_member("cpu:epp:x").error().what ==
        "write \"sysctl:KEY\", \"irq:GLOB\", \"nic:GLOB\", \"numa:unit:UNIT\", "
        "\"numa:cgroup:PATH\", \"cpu:governor\", \"cpu:epp\", \"cpu:resume_latency\", "
        "\"mm:thp\" or \"mm:thp_defrag\"");
  // A [cpu]/[mm] member reaches its setting.
  Profile p;
  p.cpu.epp = TableSetting{};
  p.cpu.epp->value = "performance";
  REQUIRE(table_setting(p, "cpu:epp"));
  CHECK((*table_setting(p, "cpu:epp"))->value == "performance");
  CHECK(table_setting(p, "sysctl:x") == nullptr);
}

}  // namespace tuner
