#include "probes/bench/bench_bind.h"

#include <doctest/doctest.h>
#include <sched.h>

#include <cstring>
#include <thread>

namespace tuner::bench {

TEST_CASE("bench bind: a bound thread runs on its CPU, the caller keeps its affinity") {
  CpuSet before = allowed_cpus();
  REQUIRE(!before.empty());
  for (unsigned cpu : before.cpus()) {
    Status st = Error::io("not run");
    int ran_on = -1;
    CpuSet inside;
    std::thread t([&] {
      st = bind_this_thread(CpuSet({cpu}));
      ran_on = ::sched_getcpu();
      inside = allowed_cpus();
    });
    t.join();
    REQUIRE_MESSAGE(st.ok(), st.error().message());
    CHECK(ran_on == static_cast<int>(cpu));
    CHECK(inside == CpuSet({cpu}));
  }
  CHECK(allowed_cpus() == before);
}

TEST_CASE("bench bind: binding to CPUs that do not exist names the syscall and CPUs") {
  Status st = Error::io("not run");
  std::thread t([&] { st = bind_this_thread(CpuSet({4000})); });
  t.join();
  REQUIRE(!st.ok());
  CHECK(st.error().message().find("sched_setaffinity") != std::string::npos);
  CHECK(st.error().message().find("4000") != std::string::npos);
  CHECK(!bind_this_thread(CpuSet()).ok());
}

TEST_CASE("bench bind: node memory lands on its node") {
  if (!numa_policy_available()) {
    MESSAGE("skipped: kernel without NUMA memory policy");
    return;
  }
  auto free0 = node_free_bytes(0);
  REQUIRE_MESSAGE(free0.ok(), free0.error().message());
  CHECK(*free0 > 0);
  auto missing = node_free_bytes(4095);
  REQUIRE(!missing.ok());
  CHECK(missing.error().message().find("node4095/meminfo") != std::string::npos);

  auto mem = NodeMemory::map(3 * 4096 + 1, 0);
  REQUIRE_MESSAGE(mem.ok(), mem.error().message());
  CHECK(mem->bytes() % 4096 == 0);
  CHECK(mem->bytes() >= 3 * 4096 + 1);
  CHECK(!node_of_page(mem->doubles()).ok());  // not touched yet: no page
  std::memset(mem->doubles(), 1, mem->bytes());
  auto where = node_of_page(mem->doubles() + 1000);
  REQUIRE_MESSAGE(where.ok(), where.error().message());
  CHECK(*where == 0);

  NodeMemory moved = std::move(*mem);
  CHECK(mem->doubles() == nullptr);
  CHECK(moved.bytes() >= 3 * 4096);
}

TEST_CASE("bench bind: memory cannot be bound to a node that does not exist") {
  if (!numa_policy_available()) {
    MESSAGE("skipped: kernel without NUMA memory policy");
    return;
  }
  auto mem = NodeMemory::map(4096, 1000);
  REQUIRE(!mem.ok());
  CHECK(mem.error().message().find("mbind") != std::string::npos);
  CHECK(mem.error().message().find("node 1000") != std::string::npos);
}

}  // namespace tuner::bench
