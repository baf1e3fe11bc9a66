#include "probes/bench/latency.h"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "probes/bench/bench_bind.h"
#include "probes/topology.h"
#include "tests/support/topology_fixture.h"

namespace tuner::bench {
namespace {

using namespace std::chrono_literals;

Topology load(const std::string& name) { return testing::load_topology_fixture(name); }

const Metric& get(const std::vector<Metric>& ms, const std::string& name) {
  for (const Metric& m : ms)
    if (m.name == name) return m;
  FAIL("no metric " << name);
  return ms.front();
}

bool mentions(const std::vector<std::string>& notes, const std::string& part) {
  return std::ranges::any_of(
      notes, [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

}  // namespace

TEST_CASE("latency: the main metric is the worst CPU's p99, in microseconds") {
  // Percentiles: count, min, p50, p99, p99.99, max (ns).
  std::vector<CpuLatency> cpus = {{3, {1000, 1000, 2500, 9000, 30000, 40000}, 0},
                                  {7, {1000, 1500, 4000, 6000, 10000, 12000}, 2}};
  auto ms = latency_metrics(cpus, 80);
  CHECK(ms[0].name == "wakeup_p99");
  CHECK(ms[0].value == doctest::Approx(9.0));  // CPU 3's p99, not a pooled one
  CHECK(get(ms, "wakeup_p50").value == doctest::Approx(4.0));
  CHECK(get(ms, "wakeup_max").value == doctest::Approx(40.0));
  CHECK(get(ms, "wakeup_overruns").value == 2);
  CHECK(get(ms, "wakeup_overruns").unit == "count");
  CHECK(get(ms, "wakeup_p99_cpu7").value == doctest::Approx(6.0));
  CHECK(get(ms, "wakeup_max_cpu3").value == doctest::Approx(40.0));
  for (const Metric& m : ms) {
    if (m.name == "sched_priority") continue;
    CHECK(m.direction == Direction::lower);
    if (m.name != "wakeup_overruns") CHECK(m.unit == "us");
  }
  CHECK(ms.back().name == "sched_priority");
  CHECK(ms.back().value == 80);

  CHECK(get(ms, "wakeup_p9999").value == doctest::Approx(30.0));

  auto one = latency_metrics({cpus[0]}, 0);
  CHECK(one.size() == 6);  // no per-CPU copies of the same figures
  CHECK(one.back().value == 0);

  // metric = "max" / "p99.99": that one decides; the rest follow, none lost.
  auto by_max = latency_metrics(cpus, 80, LatencyOptions::Main::max);
  CHECK(by_max[0].name == "wakeup_max");
  CHECK(by_max[0].value == doctest::Approx(40.0));
  CHECK(by_max.size() == ms.size());
  auto by_tail = latency_metrics(cpus, 80, LatencyOptions::Main::p9999);
  CHECK(by_tail[0].name == "wakeup_p9999");
  CHECK(by_tail[1].name == "wakeup_p99");
}

TEST_CASE("latency: CPUs default to the last of each node, and must be allowed") {
  Topology t = load("24em64t-2n6c2t-pci.xml");
  auto def = latency_cpus(t, t.all_pus, {});
  REQUIRE(def.ok());
  CHECK(def->to_string() == "22-23");

  LatencyOptions o;
  o.cpus = *CpuSet::parse("4,30");
  auto bad = latency_cpus(t, t.all_pus, o);
  REQUIRE(!bad.ok());
  CHECK(bad.error().message().find("CPUs 30") != std::string::npos);
  o.cpus = *CpuSet::parse("4");
  CHECK(latency_cpus(t, t.all_pus, o)->to_string() == "4");
  CHECK(!latency_cpus(t, CpuSet(), {}).ok());
}

TEST_CASE("latency: bad options are refused by check") {
  Topology t = load("24em64t-2n6c2t-pci.xml");
  LatencyOptions o;
  o.interval = 0us;
  CHECK(LatencyBench(t, o).check().error().message().find("interval") != std::string::npos);
  o = {};
  o.duration = 0ms;
  CHECK(LatencyBench(t, o).check().error().message().find("duration") != std::string::npos);
  o = {};
  o.priority = 100;
  CHECK(LatencyBench(t, o).check().error().message().find("priority") != std::string::npos);
}

TEST_CASE("latency live: a short run gives ordered, plausible percentiles" * doctest::timeout(30)) {
  auto topo = probe_topology(Root::live(), std::nullopt);
  REQUIRE_MESSAGE(topo.ok(), topo.error().message());
  for (int priority : {0, 80}) {
    CAPTURE(priority);
    LatencyOptions o;
    o.duration = 200ms;
    o.priority = priority;
    LatencyBench bench(*topo, o);
    CHECK(bench.name() == "latency");
    REQUIRE(bench.check().ok());
    auto m = bench.run();
    REQUIRE_MESSAGE(m.ok(), m.error().message());
    const auto& ms = m->metrics;
    const double p50 = get(ms, "wakeup_p50").value, p99 = get(ms, "wakeup_p99").value,
                 max = get(ms, "wakeup_max").value;
    CHECK(ms[0].name == "wakeup_p99");
    CHECK(p50 > 0);  // a wake-up never comes before its deadline
    CHECK(p50 <= p99);
    CHECK(p99 <= max);
    CHECK(max < 200'000);  // no wake-up a whole run late
    CHECK(m->elapsed >= 200ms);
    CHECK(m->elapsed < 5s);
    const double got = get(ms, "sched_priority").value;
    if (priority == 0 || got == priority) CHECK(!mentions(bench.notes(), "SCHED_FIFO"));
    else CHECK(mentions(bench.notes(), "SCHED_FIFO 80 refused"));
    CHECK((got == priority || got == 0));
  }
}

TEST_CASE("latency live: without privilege SCHED_FIFO is refused and noted, not fatal" *
          doctest::timeout(30)) {
  if (::geteuid() != 0) {
    MESSAGE("skipped: needs root to drop to an unprivileged user");
    return;
  }
  auto topo = probe_topology(Root::live(), std::nullopt);
  REQUIRE(topo.ok());
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // nobody: no CAP_SYS_NICE, and RLIMIT_RTPRIO is 0 for it by default.
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(10);
    LatencyOptions o;
    o.duration = 50ms;
    LatencyBench bench(*topo, o);
    auto m = bench.run();
    if (!m.ok()) ::_exit(11);
    if (get(m->metrics, "sched_priority").value != 0) ::_exit(12);
    if (!mentions(bench.notes(), "SCHED_FIFO 80 refused")) ::_exit(13);
    ::_exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

}  // namespace tuner::bench
