#include "tuner/knobs/knob_id.h"

#include <doctest/doctest.h>

#include <set>

#include "tuner/knobs/knob_kinds.h"

namespace tuner {

TEST_CASE("knob id: every kind parses into its parts and prints back the same") {
  struct Case {  // NOLINT(clang-analyzer-optin.performance.Padding): a test table
    const char* id;
    KnobKind kind;
    const char* name;
    unsigned number;
  };
  const Case cases[] = {
      {"sysctl:net.core.rmem_max", KnobKind::sysctl, "net.core.rmem_max", 0},
      {"sysctl:net.ipv4.conf.eth0/100.rp_filter", KnobKind::sysctl,
       "net.ipv4.conf.eth0/100.rp_filter", 0},
      {"irq:57:affinity", KnobKind::irq_affinity, "", 57},
      {"irq:0000:3b:00.0/msi5:affinity", KnobKind::irq_affinity, "0000:3b:00.0", 5},
      {"irq:10000:e1:1f.7/msi2047:affinity", KnobKind::irq_affinity, "10000:e1:1f.7", 2047},
      {"nic:eth0:link", KnobKind::nic_link, "eth0", 0},
      {"nic:ib0:mtu", KnobKind::nic_mtu, "ib0", 0},
      {"nic:enp59s0f1np1:channels", KnobKind::nic_channels, "enp59s0f1np1", 0},
      {"nic:br-lan.100:rings", KnobKind::nic_rings, "br-lan.100", 0},
      {"nic:veth@x_1:rings", KnobKind::nic_rings, "veth@x_1", 0},
      {"nic:ens1f0np0:coalesce", KnobKind::nic_coalesce, "ens1f0np0", 0},
      {"nic:eth0:rps:rx-0", KnobKind::nic_rps, "eth0", 0},
      {"nic:ens1f0np0:xps:tx-63", KnobKind::nic_xps, "ens1f0np0", 63},
      {"nic:eth0:rfs:rx-7", KnobKind::nic_rfs, "eth0", 7},
      {"numa:unit:trainer.service", KnobKind::numa_unit, "trainer.service", 0},
      {"numa:unit:batch.slice", KnobKind::numa_unit, "batch.slice", 0},
      {"numa:unit:user@1000.service", KnobKind::numa_unit, "user@1000.service", 0},
      {"numa:cgroup:/sys/fs/cgroup/jobs.slice/trainer", KnobKind::numa_cgroup, "jobs.slice/trainer",
       0},
      {"numa:pid:1234@98765", KnobKind::numa_pid, "", 1234},
      {"irqbalance:service", KnobKind::irqbalance_service, "", 0},
      {"irqbalance:banned", KnobKind::irqbalance_banned, "", 0},
      {"cpu:policy0:governor", KnobKind::cpu_governor, "", 0},
      {"cpu:policy12:epp", KnobKind::cpu_epp, "", 12},
      {"cpu:0:resume_latency", KnobKind::cpu_resume_latency, "", 0},
      {"cpu:255:resume_latency", KnobKind::cpu_resume_latency, "", 255},
      {"mm:thp", KnobKind::mm_thp, "", 0},
      {"mm:thp_defrag", KnobKind::mm_thp_defrag, "", 0},
  };
  std::set<KnobKind> covered;
  for (const Case& c : cases) {
    CAPTURE(c.id);
    covered.insert(c.kind);
    auto id = parse_knob_id(c.id);
    REQUIRE_MESSAGE(id.ok(), (id.ok() ? "" : id.error().message()));
    CHECK(id->kind == c.kind);
    CHECK(id->name == c.name);
    CHECK(id->number == c.number);
    CHECK(id->str() == c.id);
  }
  // Every kind of the table has a case here.
  for (const KnobKindInfo& k : kAllKnobKinds) {
    CAPTURE(k.name);
    CHECK(covered.contains(k.kind));
  }
  CHECK(parse_knob_id("numa:pid:1234@98765")->start == 98765u);
  // A cgroup written relative to the mount is the same cgroup.
  CHECK(parse_knob_id("numa:cgroup:jobs.slice/trainer")->str() ==
        "numa:cgroup:/sys/fs/cgroup/jobs.slice/trainer");
  // The builders give the same ids the parser does.
  CHECK(*KnobId::numa_cgroup("/sys/fs/cgroup/a/b") == *parse_knob_id("numa:cgroup:a/b"));
  CHECK(KnobId::nic(KnobKind::nic_link, "eth0")->str() == "nic:eth0:link");
  CHECK(KnobId::irq_affinity(9)->str() == "irq:9:affinity");
  CHECK(KnobId::irq_vector("0000:3b:00.0", 3)->str() == "irq:0000:3b:00.0/msi3:affinity");
  CHECK(KnobId::irq_vector("0000:3b:00.0", 3)->by_owner());
  CHECK(!KnobId::irq_affinity(3)->by_owner());
  CHECK(!KnobId::irq_vector("../x", 3).ok());
  // The ban list's form: the middle of the id, in one order (numbers, then owners).
  CHECK(irq_ref(*KnobId::irq_vector("0000:3b:00.0", 3)) == "0000:3b:00.0/msi3");
  CHECK(parse_irq_ref("0000:3b:00.0/msi3").value() == *KnobId::irq_vector("0000:3b:00.0", 3));
  CHECK(parse_irq_ref("57").value() == *KnobId::irq_affinity(57));
  CHECK(!parse_irq_ref("57:affinity").ok());
  CHECK(irq_ref_list({*KnobId::irq_vector("0000:3b:00.0", 10), *KnobId::irq_affinity(9),
                      *KnobId::irq_vector("0000:3b:00.0", 2), *KnobId::irq_affinity(9)}) ==
        "9,0000:3b:00.0/msi2,0000:3b:00.0/msi10");
  CHECK(irq_ref_list({}) == "none");
  CHECK(KnobId::nic_queue(KnobKind::nic_rps, "eth0", 3)->str() == "nic:eth0:rps:rx-3");
  CHECK(KnobId::nic_queue(KnobKind::nic_xps, "eth0", 3)->str() == "nic:eth0:xps:tx-3");
  CHECK(KnobId::nic_queue(KnobKind::nic_rfs, "eth0", 3)->str() == "nic:eth0:rfs:rx-3");
  // A channel change makes and removes queues: their flow tables go with them.
  CHECK(made_by(*KnobId::nic_queue(KnobKind::nic_rfs, "eth0", 3))->str() == "nic:eth0:channels");
  CHECK(!KnobId::nic_queue(KnobKind::nic_link, "eth0", 3).ok());
  CHECK(!KnobId::nic_queue(KnobKind::nic_rps, "../x", 3).ok());
  CHECK(!KnobId::nic_queue(KnobKind::nic_rps, "eth0", kMaxQueueNumber + 1).ok());
  CHECK(KnobId::cpu_policy(KnobKind::cpu_epp, 4)->str() == "cpu:policy4:epp");
  CHECK(KnobId::cpu_resume_latency(7)->str() == "cpu:7:resume_latency");
  CHECK(!KnobId::cpu_policy(KnobKind::mm_thp, 4).ok());
  CHECK(!KnobId::cpu_resume_latency(kMaxCpuNumber + 1).ok());
}

TEST_CASE("knob id: each row of the kind table parses its example and claims only its own") {
  for (const KnobKindInfo& k : kAllKnobKinds) {
    CAPTURE(k.name);
    CHECK(knob_kind_info(k.kind).name == k.name);
    auto id = parse_knob_id(k.example);
    REQUIRE_MESSAGE(id.ok(), (id.ok() ? "" : id.error().message()));
    CHECK(id->kind == k.kind);
    CHECK(id->str() == k.example);
    CHECK(k.example.substr(0, k.family.size() + 1) == std::string(k.family) + ":");
    for (const KnobKindInfo& other : kAllKnobKinds)
      if (other.kind != k.kind) CHECK_FALSE(other.claims(k.example));
  }
  // An id of no kind's shape is told what its family has, from the table.
  CHECK(parse_knob_id("nic:eth0:bogus").error().what ==
        "unknown nic knob 'eth0:bogus' (expected nic:IFNAME:link, nic:IFNAME:mtu, "
        "nic:IFNAME:channels, "
        "nic:IFNAME:rings, nic:IFNAME:coalesce, nic:IFNAME:rps:rx-N, nic:IFNAME:xps:tx-N, "
        "nic:IFNAME:rfs:rx-N)");
  CHECK(parse_knob_id("mm:thp_enabled").error().what ==
        "unknown mm knob 'thp_enabled' (expected mm:thp, mm:thp_defrag)");
  CHECK(parse_knob_id("bogus:x").error().what ==
        "unknown knob kind (expected sysctl:..., irq:..., nic:..., numa:..., irqbalance:..., "
        "cpu:..., mm:...)");
  CHECK(parse_knob_id("cpu:0:governor").error().what ==
        "expected cpu:policyN:governor (a cpufreq policy, not a CPU)");
}

TEST_CASE("knob id: hostile and malformed ids are refused, naming the id") {
  for (const char* bad : {"",
                          "bogus:x",
                          "sysctl:",
                          "sysctl:net..core",
                          "sysctl:../etc",
                          "sysctl:net.*",
                          "irq:57",
                          "irq:x:affinity",
                          "irq:057:affinity",
                          "irq:-1:affinity",
                          "irq: 5:affinity",
                          "irq:5:mask",
                          "irq:99999999:affinity",
                          "irq:0000:3b:00.0/msi:affinity",
                          "irq:0000:3b:00.0/msi05:affinity",
                          "irq:0000:3b:00.0/msi2048:affinity",
                          "irq:0000:3b:00.0/5:affinity",
                          "irq:0000:3b:00.0/msi-1:affinity",
                          "irq:../../../x/msi1:affinity",
                          "irq:0000:3b:00.0/../msi1:affinity",
                          "irq:0000:3b:00.8/msi1:affinity",
                          "irq:000000000:3b:00.0/msi1:affinity",
                          "irq:3b:00.0/msi1:affinity",
                          "irq:0000:3b:00.0/msi1",
                          "irq:0000:3b:00.0:affinity",
                          "nic:../x:link",
                          "nic:..:link",
                          "nic:.:link",
                          "nic::link",
                          "nic:eth0",
                          "nic:eth0:bogus",
                          "nic:a/b:link",
                          "nic:eth 0:link",
                          "nic:eth0:1:link",
                          "nic:abcdefghijklmnop:link",
                          "nic:eth0:",
                          "nic:eth0\n:link",
                          "nic:eth0:rps",
                          "nic:eth0:rps:",
                          "nic:eth0:rps:tx-0",
                          "nic:eth0:xps:rx-0",
                          "nic:eth0:rps:rx-",
                          "nic:eth0:rps:rx-01",
                          "nic:eth0:rps:rx--1",
                          "nic:eth0:rps:rx-65536",
                          "nic:eth0:rps:rx-0:x",
                          "nic:../x:rps:rx-0",
                          "nic::xps:tx-0",
                          "nic:eth0:rps:0",
                          "nic:eth0:rfs:tx-0",
                          "nic:eth0:rfs:rx-01",
                          "nic:eth0:rfs",
                          "numa:unit:a/b.service",
                          "numa:unit:../x.service",
                          "numa:unit:trainer",
                          "numa:unit:.service",
                          "numa:unit:x.timer",
                          "numa:unit:a b.service",
                          "numa:unit:a\\x2db.service",
                          "numa:cgroup:../../etc",
                          "numa:cgroup:/etc",
                          "numa:cgroup:a//b",
                          "numa:cgroup:a/./b",
                          "numa:cgroup:",
                          "numa:cgroup:x/..",
                          "numa:cgroup:/sys/fs/cgroup/../../etc",
                          "numa:cgroup:/sys/fs/cgroup/",
                          "numa:cgroup:a/b/",
                          "numa:pid:1",
                          "numa:pid:abc@1",
                          "numa:pid:0@1",
                          "numa:pid:1@x",
                          "numa:pid:-1@5",
                          "numa:pid:4194305@1",
                          "numa:bogus:x",
                          "irqbalance:",
                          "irqbalance:bogus",
                          "cpu:",
                          "cpu:policy0",
                          "cpu:0:governor",
                          "cpu:policy:governor",
                          "cpu:policy00:governor",
                          "cpu:policy-1:epp",
                          "cpu:policy0:scaling_max_freq",
                          "cpu:policy0:epp:x",
                          "cpu:policy../..:governor",
                          "cpu:policy0:resume_latency",
                          "cpu:01:resume_latency",
                          "cpu:65536:resume_latency",
                          "cpu:x:resume_latency",
                          "mm:",
                          "mm:thp_enabled",
                          "mm:shmem_enabled"}) {
    CAPTURE(bad);
    auto id = parse_knob_id(bad);
    CHECK_FALSE(id.ok());
    if (!id.ok()) {
      CHECK(id.error().where == bad);
      CHECK(id.error().is(ErrorKind::invalid));
    }
  }
  // 15 characters is the longest name IFNAMSIZ allows.
  CHECK(parse_knob_id("nic:abcdefghijklmno:link").ok());
  CHECK(parse_knob_id("nic:eth0:rps:tx-0").error().what == "not a queue: 'tx-0' (expected rx-N)");
  CHECK(parse_knob_id("nic:eth0:rfs:tx-0").error().what == "not a queue: 'tx-0' (expected rx-N)");
  CHECK(parse_knob_id("sysctl:net..core").error().what.find("bad sysctl key 'net..core'") == 0);
}

TEST_CASE("knob id: one validator per part, shared with the profile parser") {
  CHECK(validate_unit_name("trainer.service").ok());
  CHECK(validate_unit_name("session-3.scope").ok());
  CHECK(validate_unit_name("../../etc/evil.service").error().what ==
        "unit name '../../etc/evil.service' has '/': only [A-Za-z0-9:_.@-] are allowed");
  CHECK(validate_unit_name("cron.timer").error().what.find("must end in .service") !=
        std::string::npos);
  CHECK(validate_cgroup_path("jobs.slice/trainer").ok());
  CHECK(validate_cgroup_path("/sys/fs/cgroup/x").error().what.find("must be relative") !=
        std::string::npos);
  CHECK(validate_cgroup_path("a/../b").error().what.find("may not contain '..'") !=
        std::string::npos);
  CHECK(*parse_cgroup_path("/sys/fs/cgroup/a/b") == "a/b");
  CHECK(*parse_irq_number("0") == 0u);
  CHECK(!parse_irq_number("").ok());
  CHECK(parse_pid_start("77@123")->pid == 77u);
  CHECK(validate_ifname("eth0").ok());
  CHECK(!validate_ifname("eth0:1").ok());  // an alias, not an interface
  // Errors leave `where` to the caller (the parser adds file:line:col).
  CHECK(validate_unit_name("x").error().where.empty());
  CHECK(validate_cgroup_path("").error().where.empty());
}

}  // namespace tuner
