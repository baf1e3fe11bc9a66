#include <filesystem>

#include <doctest/doctest.h>

#include "base/strings.h"
#include "tests/support/child.h"
#include "tests/support/fake_systemctl.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"
#include "tuner/knobs/knob.h"
#include "tuner/knobs/numa_knobs.h"
#include "tuner/knobs/numa_value.h"

namespace tuner {

using testing::FakeSystemctl;
using testing::slurp;
using testing::TempDir;

TEST_CASE("numa knob: hostile and malformed ids are refused") {
  KnobContext ctx{Root::live()};
  TempDir tmp;
  ctx.cgroup_root = tmp.path;
  ctx.systemd_dir = tmp.path;
  for (const char* bad :
       {"numa:cgroup:../../etc", "numa:cgroup:/etc", "numa:cgroup:a//b", "numa:cgroup:a/./b",
        "numa:cgroup:", "numa:cgroup:x/..", "numa:cgroup:/sys/fs/cgroup/../../etc",
        "numa:unit:a/b.service", "numa:unit:../x.service", "numa:unit:trainer",
        "numa:unit:.service", "numa:unit:x.timer", "numa:unit:a b.service", "numa:pid:1",
        "numa:pid:abc@1", "numa:pid:0@1", "numa:pid:1@x", "numa:pid:-1@5", "numa:bogus:x"}) {
    auto k = make_knob(bad, ctx);
    CHECK_MESSAGE(!k.ok(), bad);
    if (!k.ok()) CHECK(k.error().where.find(bad) != std::string::npos);
  }
  CHECK(std::filesystem::is_empty(tmp.path));  // nothing was created
}

TEST_CASE("numa knob: a cgroup path cannot leave the root through a symlink") {
  KnobContext ctx{Root::live()};
  TempDir tmp;
  ctx.cgroup_root = tmp.path;
  std::filesystem::create_directory_symlink("/etc", tmp.path + "/evil");
  std::filesystem::create_directories(tmp.path + "/plain/sub");
  std::filesystem::create_directory_symlink(tmp.path + "/plain", tmp.path + "/plain/sub/up");
  auto k = make_knob("numa:cgroup:evil", ctx);
  REQUIRE(!k.ok());
  CHECK(k.error().what.find("symlinks are not followed") != std::string::npos);
  CHECK(!make_knob("numa:cgroup:plain/sub/up", ctx).ok());
  auto plain = make_knob("numa:cgroup:plain", ctx);
  REQUIRE(!plain.ok());
  CHECK(plain.error().what.find("is not a cgroup") != std::string::npos);
  // The absolute form (below /sys/fs/cgroup) names the same path, checked the same way;
  // any other absolute path is not a cgroup path at all.
  auto abs = make_knob("numa:cgroup:/sys/fs/cgroup/plain", ctx);
  REQUIRE(!abs.ok());
  CHECK(abs.error().what == plain.error().what);
  CHECK(!make_knob("numa:cgroup:/sys/fs/cgroup/evil", ctx).ok());
  CHECK(!make_knob("numa:cgroup:" + tmp.path + "/plain", ctx).ok());
  CHECK(!make_knob("numa:cgroup:/sys/fs/cgroup/../etc", ctx).ok());
}

TEST_CASE("numa value: bindings parse, print and check against the machine") {
  auto b = parse_numa_binding("mems=0, cpus=3,0-2", "k");
  REQUIRE(b.ok());
  CHECK(format_numa_binding(*b) == "cpus=0-3,mems=0");
  CHECK(format_numa_binding(*parse_numa_binding("cpus=1", "k")) == "cpus=1");
  CHECK(format_numa_binding(*parse_numa_binding("cpus=8,0-3,mems=1,0", "k")) ==
        "cpus=0-3,8,mems=0-1");
  CHECK(!parse_numa_binding("cpus=0;1", "k").ok());
  CHECK(!parse_numa_binding("8,cpus=0", "k").ok());
  CHECK(!parse_numa_binding("cpus=", "k").ok());
  CHECK(parse_numa_binding("cpus=", "k", true).ok());
  CHECK(!parse_numa_binding("cpus=x", "k").ok());
  CHECK(!parse_numa_binding("nodes=0", "k").ok());
  CHECK(!parse_numa_binding("", "k").ok());
  Root live = Root::live();
  CHECK(check_numa_binding(*parse_numa_binding("cpus=0,mems=0", "k"), live, "k").ok());
  auto far = check_numa_binding(*parse_numa_binding("cpus=0,mems=0-1023", "k"), live, "k");
  REQUIRE(!far.ok());
  CHECK(far.error().what.find("not online") != std::string::npos);
}

TEST_CASE("numa unit: drop-in written atomically, reloaded, removed") {
  TempDir tmp;
  FakeSystemctl sc;
  KnobContext ctx{Root::live()};
  KnobNotes notes;
  ctx.notes = &notes;
  ctx.systemctl = &sc;
  ctx.systemd_dir = tmp.path;
  auto k = make_knob("numa:unit:trainer.service", ctx);
  REQUIRE(k.ok());
  CHECK(*(*k)->read() == "none");
  REQUIRE((*k)->write("mems=0,cpus=0").ok());
  // What the person should know goes to the context, once however often it is said.
  REQUIRE((*k)->write("mems=0,cpus=0").ok());
  CHECK(notes.all() ==
        std::vector<KnobNote>{{"numa:unit:trainer.service",
                               "takes effect when trainer.service next starts; tuner does not "
                               "restart it"}});
  std::string file = tmp.path + "/trainer.service.d/tuner-numa.conf";
  CHECK(slurp(file) ==
        "# Written by tuner (numa:unit:trainer.service); `tuner rollback` removes it.\n"
        "[Service]\nCPUAffinity=0\nNUMAPolicy=bind\nNUMAMask=0\n");
  CHECK(*(*k)->read() == "cpus=0,mems=0");
  CHECK(sc.calls == std::vector<std::string>{"daemon-reload", "daemon-reload"});  // no restart
  // No temp file is left behind.
  CHECK(std::distance(std::filesystem::directory_iterator(tmp.path + "/trainer.service.d"),
                      std::filesystem::directory_iterator()) == 1);
  REQUIRE((*k)->write("none").ok());
  CHECK(!std::filesystem::exists(tmp.path + "/trainer.service.d"));
  CHECK(*(*k)->read() == "none");
  // A directory that holds the admin's own drop-in stays.
  REQUIRE((*k)->write("cpus=0").ok());
  { std::ofstream(tmp.path + "/trainer.service.d/admin.conf") << "[Service]\nNice=5\n"; }
  REQUIRE((*k)->write("none").ok());
  CHECK(std::filesystem::exists(tmp.path + "/trainer.service.d/admin.conf"));
  CHECK(!std::filesystem::exists(file));
  // Bad values change nothing.
  auto bad = (*k)->write("cpus=0-100000");
  CHECK(!bad.ok());
  CHECK(*(*k)->read() == "none");
}

TEST_CASE("numa unit: without systemd the reload is skipped; slices use cgroup settings") {
  TempDir tmp;
  FakeSystemctl sc;
  sc.is_running = false;
  KnobContext ctx{Root::live()};
  KnobNotes notes;
  ctx.notes = &notes;
  ctx.systemctl = &sc;
  ctx.systemd_dir = tmp.path;
  auto k = make_knob("numa:unit:batch.slice", ctx);
  REQUIRE(k.ok());
  REQUIRE((*k)->write("cpus=0,mems=0").ok());
  CHECK(sc.calls.empty());
  REQUIRE(notes.all().size() == 1);
  CHECK(notes.all()[0].text == "systemd is not running here; skipped daemon-reload");
  CHECK(slurp(tmp.path + "/batch.slice.d/tuner-numa.conf")
            .find("[Slice]\nAllowedCPUs=0\nAllowedMemoryNodes=0\n") != std::string::npos);
  CHECK(*(*k)->read() == "cpus=0,mems=0");
}

TEST_CASE("numa unit: drop-ins in systemd's own list syntax parse; others are errors") {
  CHECK(*parse_numa_dropin("[Service]\nCPUAffinity=0 1 2,3\nNUMAPolicy=bind\nNUMAMask=0\n", "f",
                           "k") == "cpus=0-3,mems=0");
  auto pol = parse_numa_dropin("[Service]\nNUMAPolicy=interleave\nNUMAMask=0-1\n", "f", "k");
  REQUIRE(!pol.ok());
  CHECK(pol.error().what.find("interleave") != std::string::npos);
  auto other = parse_numa_dropin("[Service]\nNice=5\n", "f.conf", "k");
  REQUIRE(!other.ok());
  CHECK(other.error().where == "k: f.conf:2");
}

TEST_CASE("numa pid: stat start time and numa_maps nodes parse from real text") {
  // /proc/1/stat of this machine, and one with a hostile command name.
  std::string stat =
      "1 (process_api) S 0 0 0 0 -1 4194560 30655 2296604 0 200 97 444 4185 956 10 -10 13 0 "
      "25 46616576 3641 18446744073709551615 1 1 0 0 0 0 0 4096 1256 0 0 0 17 1 0 0 0 0 0";
  CHECK(*parse_stat_starttime(stat, "s") == 25);
  std::string evil =
      "77 (a) S 1 2 3 (b) R 1 1 1 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 987654 1 1 1";
  CHECK(*parse_stat_starttime(evil, "s") == 987654);
  CHECK(!parse_stat_starttime("77 (trunc) S 1 2", "s").ok());
  std::string maps =
      "5623bd283000 default file=/usr/bin/head mapped=2 mapmax=2 N0=2 kernelpagesize_kB=4\n"
      "5623bd28e000 default file=/usr/bin/head anon=1 dirty=1 active=0 N0=1 kernelpagesize_kB=4\n"
      "7f0000000000 bind:1 anon=7 dirty=7 N1=5 N3=2 kernelpagesize_kB=4\n";
  CHECK(numa_maps_nodes(maps) == "0-1,3");
}

TEST_CASE("numa pid: affinity of a child changes, is read back and restored") {
  CpuSet own = testing::own_cpus();
  if (own.size() < 2) {
    MESSAGE("skipped: needs two CPUs to move a process between");
    return;
  }
  unsigned first = own.cpus().front();
  testing::SleepingChild child;
  pid_t pid = child.pid();
  unsigned long long start = child.start_time();
  Root live = Root::live();
  KnobContext ctx{live};
  std::string id = "numa:pid:" + std::to_string(pid) + "@" + std::to_string(start);
  auto k = make_knob(id, ctx);
  REQUIRE_MESSAGE(k.ok(), (k.ok() ? "" : k.error().message()));
  auto before = (*k)->read();
  REQUIRE(before.ok());
  CHECK(starts_with(*before, "cpus="));
  std::string target = "cpus=" + std::to_string(first);
  REQUIRE((*k)->write(target).ok());
  auto now = (*k)->read();
  REQUIRE(now.ok());
  CHECK(starts_with(*now, target + ",mems="));
  REQUIRE((*k)->write(*before).ok());
  CHECK(*(*k)->read() == *before);
  // A pid whose start time does not match is another process.
  auto reused = make_knob("numa:pid:" + std::to_string(pid) + "@" + std::to_string(start + 1), ctx);
  REQUIRE(!reused.ok());
  CHECK(reused.error().what.find("another process") != std::string::npos);
}

}  // namespace tuner
