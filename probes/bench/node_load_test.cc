// The node's load around a trial (node_load.h), on /proc/stat captured on a 2-vCPU VM:
// root-vm/proc/stat, and proc-stat-2cpu-before / -after, read one second apart while
// a shell loop burned a CPU beside another engineer's build.
#include "probes/bench/node_load.h"

#include <doctest/doctest.h>

#include <string>

#include "tests/support/files.h"

using namespace tuner;
using namespace tuner::bench;

namespace {

std::string fixture(const std::string& name) {
  return tuner::testing::read_test_data("bench/" + name);
}

LoadSample sample_of(const std::string& stat_file) {
  auto stat = parse_proc_stat(fixture(stat_file));
  REQUIRE_MESSAGE(stat.ok(), (stat.ok() ? "" : stat.error().message()));
  LoadSample s;
  s.stat = *stat;
  return s;
}

}  // namespace

TEST_CASE("node load: /proc/stat's cpu line and its CPUs, as captured") {
  auto s = parse_proc_stat(fixture("proc-stat-2cpu-before"));
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message()));
  // cpu  1256437 235689 283127 549334 1705 0 49925 2033 0 0
  CHECK(s->all.user == 1256437);
  CHECK(s->all.nice == 235689);
  CHECK(s->all.system == 283127);
  CHECK(s->all.idle == 549334);
  CHECK(s->all.iowait == 1705);
  CHECK(s->all.irq == 0);
  CHECK(s->all.softirq == 49925);
  CHECK(s->all.steal == 2033);
  CHECK(s->all.busy() == 1256437 + 235689 + 283127 + 49925 + 2033);
  CHECK(s->all.total() == s->all.busy() + 549334 + 1705);
  CHECK(s->cpus == 2);
}

TEST_CASE("node load: a /proc/stat that is not one is an error naming it") {
  CHECK(parse_proc_stat("intr 1 2 3\nctxt 9\n").error().message() == "/proc/stat: no cpu line");
  CHECK(parse_proc_stat("cpu  1 2 3\ncpu0 1 2 3 4 5 6 7 8\n").error().message() ==
        "/proc/stat: the cpu line has 3 fields, expected 8 or more");
  CHECK(parse_proc_stat("cpu  1 2 3 4 5 6 x 8\ncpu0 1 2 3 4 5 6 7 8\n").error().message() ==
        "/proc/stat: cpu line: 'x' is not a tick count");
  CHECK_FALSE(parse_proc_stat("cpu  1 2 3 4 5 6 7 8\n").ok());  // no cpuN
}

TEST_CASE("node load: a second's delta of two captures: the window and the others' CPU") {
  LoadSample before = sample_of("proc-stat-2cpu-before"), after = sample_of("proc-stat-2cpu-after");
  // busy +128 user +45 system +27 softirq = 200 ticks; idle +2: 202 ticks of 2 CPUs.
  LoadDelta d = load_delta(before, after, Measurement{});
  CHECK(d.seconds == doctest::Approx(1.01));
  CHECK(d.other_cpu_s == doctest::Approx(2.00));
  CHECK_FALSE(d.traffic_is_others);  // a benchmark that says nothing of its traffic
  // tuner's own 0.6 s and its children's 0.3 s are not the others'.
  before.self_s = 10.0;
  after.self_s = 10.6;
  before.children_s = 1.0;
  after.children_s = 1.3;
  d = load_delta(before, after, Measurement{});
  CHECK(d.other_cpu_s == doctest::Approx(1.10));
  // Interface bytes count; a counter that went down (the interface re-created) from 0.
  before.interface_bytes = {{"eth0", 1000}, {"veth1", 5000}};
  after.interface_bytes = {{"eth0", 4000}, {"veth1", 700}, {"wg0", 50}};
  Measurement loopback;
  loopback.loopback = ConnectionCounters{};
  d = load_delta(before, after, loopback);
  CHECK(d.interface_bytes == 3000 + 700 + 50);
  CHECK(d.traffic_is_others);
  // The same sample twice: no time, nothing.
  d = load_delta(before, before, loopback);
  CHECK(d.seconds == 0);
  CHECK(d.interface_bytes == 0);
}

TEST_CASE("node load: a captured root has no tuner in it: interfaces but lo, no rusage") {
  auto root = Root::open(std::string(TUNER_TEST_DATA) + "/bench/root-vm");
  REQUIRE(root.ok());
  auto s = sample_load(*root);
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message()));
  CHECK(s->stat.cpus == 2);
  CHECK(s->interface_bytes.count("lo") == 0);
  CHECK(s->interface_bytes.at("eth0") == 39448400 + 47317);
  CHECK(s->interface_bytes.at("ifb0") == 0);
  CHECK(s->self_s == 0);
  CHECK(s->children_s == 0);
}

TEST_CASE("node load: the live machine: invariants of two readings around some work") {
  auto before = sample_load(Root::live());
  REQUIRE_MESSAGE(before.ok(), (before.ok() ? "" : before.error().message()));
  volatile double x = 0;
  for (int i = 0; i < 20'000'000; ++i) x = x + 1e-9 * i;
  auto after = sample_load(Root::live());
  REQUIRE(after.ok());
  CHECK(after->ticks_per_s > 0);
  CHECK(after->stat.cpus >= 1);
  CHECK(after->self_s > before->self_s);  // this test's own loop
  LoadDelta d = load_delta(*before, *after, Measurement{});
  CHECK(d.seconds >= 0);
}
