#include "probes/bench/membw.h"

#include <doctest/doctest.h>

#include <cerrno>
#include <string>

#include "probes/bench/bench_bind.h"
#include "probes/topology.h"
#include "tests/support/topology_fixture.h"

namespace tuner::bench {
namespace {

using namespace std::chrono_literals;

Topology load(const std::string& name) { return testing::load_topology_fixture(name); }

const Metric* find(const std::vector<Metric>& ms, const std::string& name) {
  for (const Metric& m : ms)
    if (m.name == name) return &m;
  return nullptr;
}

}  // namespace

TEST_CASE("membw: bytes and bandwidth are counted as STREAM counts the triad") {
  CHECK(triad_bytes(1'000'000) == 24'000'000);  // 3 arrays x 8 bytes, no write-allocate
  // 10^7 elements in 12 ms: 240 MB / 0.012 s = 20 GB/s.
  CHECK(gigabytes_per_second(triad_bytes(10'000'000), 12ms) == doctest::Approx(20.0));
  CHECK(gigabytes_per_second(1000, 0ns) == 0);
}

TEST_CASE("membw: the best repetition after the warm-up is the figure") {
  CHECK(best_time({30ms, 12ms, 11ms, 13ms}) == 11ms);
  CHECK(best_time({5ms, 12ms, 11ms}) == 11ms);  // a fast first one is still a warm-up
  CHECK(best_time({7ms}) == 7ms);
  CHECK(best_time({}) == 0ns);
}

TEST_CASE("membw: metrics put the local sum first, then nodes in numeric order") {
  std::vector<MembwCell> cells = {{10, 10, 30.0}, {2, 2, 20.0}, {2, 10, 9.0}, {10, 2, 8.5}};
  auto ms = membw_metrics(cells);
  REQUIRE(ms.size() == 6);
  CHECK(ms[0].name == "triad_local_sum");
  CHECK(ms[0].value == doctest::Approx(50.0));
  CHECK(ms[1].name == "triad_local_min");
  CHECK(ms[1].value == doctest::Approx(20.0));
  CHECK(ms[2].name == "triad_local_node2");
  CHECK(ms[3].name == "triad_local_node10");
  CHECK(ms[4].name == "triad_node2_mem_node10");
  CHECK(ms[4].value == doctest::Approx(9.0));
  CHECK(ms[5].name == "triad_node10_mem_node2");
  for (const Metric& m : ms) {
    CHECK(m.unit == "GB/s");
    CHECK(m.direction == Direction::higher);
  }
}

TEST_CASE("membw: a 2-node machine is planned from its L3 and split in time") {
  Topology t = load("16intel64-manyVFs.xml");  // 2 nodes x 8 cores, 20 MiB L3 each
  auto plan = plan_membw(t, t.all_pus, {});
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  REQUIRE(plan->nodes.size() == 2);
  CHECK(plan->nodes[0].cpus.to_string() == "0-7");
  CHECK(plan->elements == 4 * (20ull << 20) / 8);  // 4 x the node's L3, per array
  CHECK(plan->matrix);
  // Half the second for the 2 local cells, half for the 2 remote ones.
  CHECK(plan->local_budget == 250ms);
  CHECK(plan->remote_budget == 250ms);

  MembwOptions one;
  one.nodes = {1};
  one.duration = 400ms;
  auto single = plan_membw(t, t.all_pus, one);
  REQUIRE(single.ok());
  REQUIRE(single->nodes.size() == 1);
  CHECK(single->nodes[0].node == 1);
  CHECK(!single->matrix);
  CHECK(single->local_budget == 400ms);

  // A process confined to node 1 cannot measure node 0.
  MembwOptions zero;
  zero.nodes = {0};
  auto refused = plan_membw(t, *CpuSet::parse("8-15"), zero);
  REQUIRE(!refused.ok());
  CHECK(refused.error().message().find("node0") != std::string::npos);
  CHECK(refused.error().message().find("8-15") != std::string::npos);
}

TEST_CASE("membw: array size is clamped, and explicit sizes win") {
  Topology knl = load("64intel64-fakeKNL-SNC4-hybrid.xml");  // 2 GiB memory-side caches
  auto big = plan_membw(knl, knl.all_pus, {});
  REQUIRE(big.ok());
  CHECK(big->elements == (1ull << 30) / 8);
  CHECK(big->nodes.size() == 8);
  CHECK(big->remote_budget == std::chrono::nanoseconds(500ms) / 56);

  Topology bare = load("8intel64-4n2t-memattrs.xml");  // no caches in the export
  auto floor = plan_membw(bare, bare.all_pus, {});
  REQUIRE(floor.ok());
  CHECK(floor->elements == (64ull << 20) / 8);

  MembwOptions exact;
  exact.array_bytes = 1000;  // rounded down to whole cache lines: 120 elements
  exact.threads_per_node = 1;
  auto small = plan_membw(bare, bare.all_pus, exact);
  REQUIRE(small.ok());
  CHECK(small->elements == 120);
}

TEST_CASE("membw: bad options are errors that name the option") {
  Topology t = load("16intel64-manyVFs.xml");
  MembwOptions o;
  o.min_reps = 1;
  CHECK(plan_membw(t, t.all_pus, o).error().message().find("min_reps") != std::string::npos);
  o = {};
  o.duration = 0ms;
  CHECK(plan_membw(t, t.all_pus, o).error().message().find("duration") != std::string::npos);
  o = {};
  o.array_bytes = 64;  // 8 threads cannot each have a cache line of 8 elements
  CHECK(!plan_membw(t, t.all_pus, o).ok());
  CHECK(!plan_membw(t, CpuSet(), {}).ok());
}

TEST_CASE("membw live: a short run reports plausible local bandwidth" * doctest::timeout(60)) {
  auto topo = probe_topology(Root::live(), std::nullopt);
  REQUIRE_MESSAGE(topo.ok(), topo.error().message());
  MembwOptions o;
  o.duration = 200ms;
  o.max_array_bytes = 64ull << 20;  // keep the test light; still past any L3 here
  auto bench = make_membw(*topo, o);
  CHECK(bench->name() == "membw");
  Status st = bench->check();
  REQUIRE_MESSAGE(st.ok(), st.error().message());
  auto m = bench->run();
  REQUIRE_MESSAGE(m.ok(), m.error().message());
  const auto& ms = m->metrics;
  REQUIRE(ms.size() >= 3);
  CHECK(ms[0].name == "triad_local_sum");
  CHECK(ms[0].unit == "GB/s");
  CHECK(ms[0].direction == Direction::higher);
  // DRAM triad: above what even a sanitizer build reaches (0.3 GB/s under TSan), below
  // any HBM part; a byte count off by 1000 lands outside.
  CHECK(ms[0].value > 0.1);
  CHECK(ms[0].value < 5000);
  double sum = 0;
  for (const NumaNode& n : topo->numa_nodes) {
    const Metric* local = find(ms, "triad_local_node" + std::to_string(n.os_index));
    if (n.cpus.intersect(allowed_cpus()).empty()) continue;
    REQUIRE(local != nullptr);
    CHECK(local->value > 0);
    sum += local->value;
  }
  CHECK(ms[0].value == doctest::Approx(sum));
  CHECK(m->elapsed >= 200ms);
  CHECK(m->elapsed < 20s);
}

TEST_CASE("membw live: arrays larger than half a node's free memory are refused up front") {
  auto topo = probe_topology(Root::live(), std::nullopt);
  REQUIRE(topo.ok());
  MembwOptions o;
  o.array_bytes = 1ull << 40;  // 3 TiB in all
  auto bench = make_membw(*topo, o);
  Status st = bench->check();
  REQUIRE(!st.ok());
  CHECK(st.error().err == ENOMEM);
  CHECK(st.error().message().find("more than half of the") != std::string::npos);
  CHECK(st.error().message().find("at most half of a node's free memory") != std::string::npos);
  auto m = bench->run();  // nothing is mapped or touched
  REQUIRE(!m.ok());
  CHECK(m.error().err == ENOMEM);
}

}  // namespace tuner::bench
