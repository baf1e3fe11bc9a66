#include <doctest/doctest.h>

#include "tests/support/temp_dir.h"
#include "tuner/plan/plan_test_util.h"
#include "tuner/plan/planner.h"

using namespace tuner;
using testing::FakeCurrent;

namespace {

Profile bind_profile(NumaBind bind) {
  Profile p;
  p.name = "dl";
  p.chain = {"dl"};
  bind.loc = testing::loc(20);
  p.binds = {bind};
  return p;
}

Inventory gpu_machine() {
  Inventory inv = testing::smt_machine(2, 4);
  testing::add_nic(inv, "eth0", 1, 1, 40);
  PciDevice nic;
  nic.address = "0000:3b:00.0";
  nic.kind = "infiniband";
  nic.numa_node = 1;
  nic.os_devices = {"mlx5_0", "ib0"};
  PciDevice gpu;
  gpu.address = "0000:86:00.0";
  gpu.kind = "gpu";
  gpu.numa_node = 0;
  gpu.os_devices = {"cuda0"};
  PciDevice lost;
  lost.address = "0000:af:00.0";
  lost.kind = "gpu";
  inv.topology.pci = {nic, gpu, lost};
  return inv;
}

}  // namespace

TEST_CASE("planner numa: near resolves netdevs, PCI addresses, OS devices and gpuN") {
  Inventory inv = gpu_machine();
  FakeCurrent cur;
  cur.values_["numa:unit:trainer.service"] = "none";
  NumaBind bind;
  bind.unit = "trainer.service";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"eth0", "cpus=4-7,12-15,mems=1"},
      {"mlx5_0", "cpus=4-7,12-15,mems=1"},
      {"3b:00.0", "cpus=4-7,12-15,mems=1"},
      {"0000:86:00.0", "cpus=0-3,8-11,mems=0"},
      {"gpu0", "cpus=0-3,8-11,mems=0"}};
  for (const auto& c : cases) {
    // Named copies: clang 14 cannot capture structured bindings (CAPTURE is a lambda).
    const std::string& near = c.first;
    const std::string& want = c.second;
    CAPTURE(near);
    bind.near = near;
    auto plan = make_plan_with(bind_profile(bind), inv, cur);
    REQUIRE(plan.ok());
    REQUIRE(plan->changes.size() == 1);
    CHECK(plan->changes[0].knob == "numa:unit:trainer.service");
    CHECK(plan->changes[0].current == "none");
    CHECK(plan->changes[0].desired == want);
    CHECK(plan->changes[0].group == "numa");
  }
  bind.near = "eth0";
  auto plan = make_plan_with(bind_profile(bind), inv, cur);
  CHECK(plan->changes[0].reason ==
        "trainer.service near eth0, which is on NUMA node 1 (test.toml:20)");
}

TEST_CASE("planner numa: unknown devices and nodes are errors; no locality is a note") {
  Inventory inv = gpu_machine();
  FakeCurrent cur;
  cur.values_["numa:unit:trainer.service"] = "none";
  NumaBind bind;
  bind.unit = "trainer.service";
  bind.near = "mlx9_0";
  auto unknown = make_plan_with(bind_profile(bind), inv, cur);
  REQUIRE(!unknown.ok());
  CHECK(unknown.error().where == "/etc/tuner/profiles/test.toml:20:1");
  bind.near = "gpu2";
  auto gpu = make_plan_with(bind_profile(bind), inv, cur);
  REQUIRE(!gpu.ok());
  CHECK(gpu.error().what == "near = 'gpu2': this machine has 2 GPUs");
  bind.near = std::nullopt;
  bind.node = 3;
  auto node = make_plan_with(bind_profile(bind), inv, cur);
  REQUIRE(!node.ok());
  CHECK(node.error().what == "NUMA node 3 does not exist on this machine (it has nodes 0-1)");

  bind.node = std::nullopt;
  bind.near = "gpu1";
  auto skipped = make_plan_with(bind_profile(bind), inv, cur);
  REQUIRE(skipped.ok());
  CHECK(skipped->changes.empty());
  REQUIRE(skipped->notes.size() == 1);
  CHECK(skipped->notes[0] ==
        "gpu1 (0000:af:00.0): no NUMA locality: binding trainer.service near it skipped");
}

TEST_CASE("planner numa: unit names and cgroup paths cannot leave their trees") {
  Inventory inv = gpu_machine();
  FakeCurrent cur;
  NumaBind bind;
  bind.node = 0;
  bind.unit = "../../etc/passwd";
  CHECK(!make_plan_with(bind_profile(bind), inv, cur).ok());
  bind.unit = std::nullopt;
  bind.cgroup = "/sys/fs/cgroup/../../etc";
  CHECK(!make_plan_with(bind_profile(bind), inv, cur).ok());
  bind.cgroup = "/sys/fs/cgroup/jobs.slice/trainer";
  cur.values_["numa:cgroup:/sys/fs/cgroup/jobs.slice/trainer"] = "cpus=0-3,8-11,mems=0";
  auto ok = make_plan_with(bind_profile(bind), inv, cur);
  REQUIRE(ok.ok());
  CHECK(ok->changes.empty());
  CHECK(ok->unchanged == 1);
  bind.cgroup = "jobs.slice/trainer";  // the same cgroup, written relative
  CHECK(make_plan_with(bind_profile(bind), inv, cur)->unchanged == 1);
}

TEST_CASE("planner numa: drop-ins and cpuset files are read back through the knobs") {
  testing::TempDir dir("tuner-plan");
  dir.write("etc/systemd/system/trainer.service.d/tuner-numa.conf",
            "[Service]\nCPUAffinity=0-3 8-11\nNUMAMask=0\n");
  // What the numa:unit knob writes for a slice: the cgroup settings, not CPUAffinity.
  dir.write("etc/systemd/system/batch.slice.d/tuner-numa.conf",
            "# Written by tuner (numa:unit:batch.slice); `tuner rollback` removes it.\n"
            "[Slice]\nAllowedCPUs=4-7,12-15\nAllowedMemoryNodes=1\n");
  dir.write("sys/fs/cgroup/jobs.slice/cpuset.cpus", "4-7\n");
  dir.write("sys/fs/cgroup/jobs.slice/cpuset.mems", "1\n");
  dir.write("sys/fs/cgroup/cpuset/legacy/cpuset.cpus", "0-15\n");
  dir.write("sys/fs/cgroup/cpuset/legacy/cpuset.mems", "0-1\n");
  auto root = Root::open(dir.path);
  REQUIRE(root.ok());
  Target target{*root, std::nullopt};
  RootCurrentValues cur(target);
  CHECK(cur.readable());
  CHECK(!cur.live());
  auto get = [&cur](const char* id) { return cur.get(*parse_knob_id(id)); };
  CurrentValue unit = get("numa:unit:trainer.service");
  CHECK(unit.state == CurrentValue::State::known);
  CHECK(unit.value == "cpus=0-3,8-11,mems=0");
  CHECK(get("numa:unit:other.service").value == "none");
  CHECK(get("numa:unit:batch.slice").value == "cpus=4-7,12-15,mems=1");
  CHECK(get("numa:cgroup:/sys/fs/cgroup/jobs.slice").value == "cpus=4-7,mems=1");
  CHECK(get("numa:cgroup:/sys/fs/cgroup/legacy").value == "cpus=0-15,mems=0-1");
  // The irqbalance ban list is read the way the irqbalance knob writes it.
  CHECK(get("irqbalance:banned").value == "none");
  dir.write("etc/systemd/system/irqbalance.service.d/tuner-ban.conf",
            "[Service]\nEnvironment=\"TUNER_IRQBALANCE_BANNED=--banirq=58 --banirq=9\"\n");
  CHECK(get("irqbalance:banned").value == "9,58");
  CurrentValue gone = get("numa:cgroup:/sys/fs/cgroup/nope");
  CHECK(gone.state == CurrentValue::State::missing);
  CHECK(gone.why == "cgroup 'nope' does not exist on this machine (no /sys/fs/cgroup/nope or "
                    "/sys/fs/cgroup/cpuset/nope)");

  // Through make_plan: the unit is already bound, the missing cgroup is an error.
  Inventory inv = gpu_machine();
  NumaBind bind;
  bind.unit = "trainer.service";
  bind.near = "gpu0";
  auto plan = make_plan(bind_profile(bind), inv, target);
  REQUIRE(plan.ok());
  CHECK(plan->changes.empty());
  CHECK(plan->unchanged == 1);
  // A slice bound by tuner reads back as bound: it is not planned again (issue #8).
  bind.unit = "batch.slice";
  bind.near = "eth0";
  auto slice = make_plan(bind_profile(bind), inv, target);
  REQUIRE(slice.ok());
  CHECK(slice->changes.empty());
  CHECK(slice->unchanged == 1);
  bind.unit = std::nullopt;
  bind.cgroup = "nope";
  auto bad = make_plan(bind_profile(bind), inv, target);
  REQUIRE(!bad.ok());
  CHECK(bad.error().where == "/etc/tuner/profiles/test.toml:20:1");
}

TEST_CASE("planner numa: near is the one resolver of exec --near, single-node fallback too") {
  Inventory inv = testing::smt_machine(1, 4);
  Nic veth;
  veth.name = "veth0";
  veth.is_virtual = true;
  inv.nics.push_back(veth);
  FakeCurrent cur;
  cur.values_["numa:unit:trainer.service"] = "none";
  NumaBind bind;
  bind.unit = "trainer.service";
  bind.near = "veth0";  // no locality of its own, but the machine has one node
  auto plan = make_plan_with(bind_profile(bind), inv, cur);
  REQUIRE(plan.ok());
  REQUIRE(plan->changes.size() == 1);
  CHECK(plan->changes[0].desired == "cpus=0-7,mems=0");
  CHECK(plan->changes[0].reason ==
        "trainer.service near veth0, which has no NUMA locality; the machine's only NUMA node "
        "is 0 (test.toml:20)");
  bind.near = "node:0";
  CHECK(make_plan_with(bind_profile(bind), inv, cur)->changes.at(0).desired == "cpus=0-7,mems=0");
  bind.near = "node:3";
  auto none = make_plan_with(bind_profile(bind), inv, cur);
  REQUIRE(!none.ok());
  CHECK(none.error().what ==
        "near = 'node:3': NUMA node 3 does not exist on this machine (it has nodes 0)");
}
