#include "base/cpuset.h"

#include <doctest/doctest.h>

using tuner::CpuSet;

TEST_CASE("cpulist round trip") {
  auto s = CpuSet::parse("0-3,8,10-11\n");
  REQUIRE(s.ok());
  CHECK(s->size() == 7);
  CHECK(s->to_string() == "0-3,8,10-11");
  CHECK(CpuSet::parse("")->empty());
  CHECK(CpuSet::parse("3,1,2,2")->to_string() == "1-3");
  CHECK(CpuSet::parse("0-7:2/4")->to_string() == "0-1,4-5");
}

TEST_CASE("cpulist rejects garbage") {
  CHECK_FALSE(CpuSet::parse("a").ok());
  CHECK_FALSE(CpuSet::parse("3-1").ok());
  CHECK_FALSE(CpuSet::parse("1,,2").ok());
  CHECK_FALSE(CpuSet::parse("-1").ok());
  CHECK_FALSE(CpuSet::parse("99999999999").ok());
}

TEST_CASE("hex masks as in /proc/irq/N/smp_affinity") {
  CHECK(CpuSet::parse_mask("ff")->to_string() == "0-7");
  CHECK(CpuSet::parse_mask("00000001,00000000")->to_string() == "32");
  CHECK(CpuSet::parse("32")->to_mask() == "1,00000000");
  CHECK(CpuSet::parse("0-3")->to_mask() == "f");
  CHECK_FALSE(CpuSet::parse_mask("xyz").ok());
}

TEST_CASE("set algebra") {
  auto a = *CpuSet::parse("0-7");
  auto b = *CpuSet::parse("4-11");
  CHECK(a.intersect(b).to_string() == "4-7");
  CHECK(a.unite(b).to_string() == "0-11");
  CHECK(a.minus(b).to_string() == "0-3");
  CHECK(CpuSet::parse("5")->is_subset_of(a));
}
