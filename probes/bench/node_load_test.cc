// The node's load around a trial (node_load.h), on /proc/stat and /proc/uptime captured
// on a 2-vCPU VM: root-vm/proc, and proc-stat-2cpu-before / -after with
// proc-uptime-before / -after, read one second apart while a shell loop burned a CPU.
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

LoadSample sample_of(const std::string& when) {
  auto stat = parse_proc_stat(fixture("proc-stat-2cpu-" + when));
  REQUIRE_MESSAGE(stat.ok(), (stat.ok() ? "" : stat.error().message()));
  auto uptime = parse_uptime(fixture("proc-uptime-" + when));
  REQUIRE(uptime.ok());
  LoadSample s;
  s.stat = *stat;
  s.clock_s = *uptime;
  return s;
}

}  // namespace

TEST_CASE("node load: /proc/stat's cpu line and its CPUs, as captured") {
  auto s = parse_proc_stat(fixture("proc-stat-2cpu-before"));
  CHECK(parse_uptime(fixture("proc-uptime-before")).value() == doctest::Approx(14501.79));
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message()));
  // cpu  1498476 235689 379047 685749 2528 0 74419 2379 0 0
  CHECK(s->all.user == 1498476);
  CHECK(s->all.nice == 235689);
  CHECK(s->all.system == 379047);
  CHECK(s->all.idle == 685749);
  CHECK(s->all.iowait == 2528);
  CHECK(s->all.irq == 0);
  CHECK(s->all.softirq == 74419);
  CHECK(s->all.steal == 2379);
  CHECK(s->all.idle_all() == 685749 + 2528);
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
  LoadSample before = sample_of("before"), after = sample_of("after");
  // 1.00 s by the clock on 2 CPUs, idle +100 ticks: one CPU busy all the time.
  LoadDelta d = load_delta(before, after, Measurement{});
  CHECK(d.seconds == doctest::Approx(1.00));
  CHECK(d.other_cpu_s == doctest::Approx(1.00));
  CHECK_FALSE(d.traffic_is_others);  // a benchmark that says nothing of its traffic
  // tuner's own 0.6 s and its children's 0.3 s are not the others'.
  before.self_s = 10.0;
  after.self_s = 10.6;
  before.children_s = 1.0;
  after.children_s = 1.3;
  d = load_delta(before, after, Measurement{});
  CHECK(d.other_cpu_s == doctest::Approx(0.10));
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

TEST_CASE("node load: /proc/uptime that is not one is an error naming it") {
  CHECK(parse_uptime("12.5 3.0\n").value() == doctest::Approx(12.5));
  CHECK(parse_uptime("").error().message() == "/proc/uptime: '' is not seconds since boot");
  CHECK(parse_uptime("12x 3").error().message() == "/proc/uptime: '12x' is not seconds since boot");
  CHECK_FALSE(parse_uptime("-1 3").ok());
}

TEST_CASE("node load: a captured root has no tuner in it: interfaces but lo, no rusage") {
  auto root = Root::open(std::string(TUNER_TEST_DATA) + "/bench/root-vm");
  REQUIRE(root.ok());
  auto s = sample_load(*root);
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message()));
  CHECK(s->stat.cpus == 2);
  CHECK(s->clock_s == doctest::Approx(14502.80));  // its proc/uptime
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
  CHECK(d.seconds > 0);
  // The others used at most every CPU (tick quantisation aside).
  CHECK(d.other_cpu_s <= after->stat.cpus * d.seconds + 0.05);
}
