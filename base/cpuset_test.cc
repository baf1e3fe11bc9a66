#include "base/cpuset.h"

#include <string>

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

// Found writing fuzz/cpulist_fuzz.cc: a group near 2^32 wrapped around to CPUs below
// the range ("5-5:1/4294967295" was 0-5), a used count above its group was taken.
TEST_CASE("cpulist stride groups stay inside their range") {
  CHECK(CpuSet::parse("5-5:1/4294967295")->to_string() == "5");
  CHECK(CpuSet::parse("4-20:1/4294967295")->to_string() == "4");
  CHECK(CpuSet::parse("0-9:4294967295/4294967295")->to_string() == "0-9");
  CHECK_FALSE(CpuSet::parse("5-9:3/2").ok());
  // fuzz/corpus/cpulist/{oom,slow}-used-above-group, found by fuzz_cpulist: USED above
  // GROUP pushed USED CPUs from every one of HI-LO bases (out of memory at 2 GiB, or 24 s).
  CHECK_FALSE(CpuSet::parse("2-660617:305264/1").ok());
  CHECK_FALSE(CpuSet::parse("000300,00084-60617:70004/25,006001").ok());
  CHECK_FALSE(CpuSet::parse("5-9:0/2").ok());
  CHECK_FALSE(CpuSet::parse("5-9:1/0").ok());
}

TEST_CASE("cpulists and masks are bounded alike") {
  // Many repeats of the largest range: one set, not a copy per item.
  std::string many;
  for (int i = 0; i < 64; ++i) many += "0-1048575,";
  many += "7";
  auto all = CpuSet::parse(many);
  REQUIRE(all.ok());
  CHECK(all->size() == 1048576);
  CHECK_FALSE(CpuSet::parse("1048576").ok());
  // A mask may carry leading zeros, not a CPU the cpulist could not name.
  CHECK(CpuSet::parse_mask("0" + std::string(300000, '0') + "1")->to_string() == "0");
  CHECK_FALSE(CpuSet::parse_mask("1" + std::string(262144, '0')).ok());
  CHECK(CpuSet::parse_mask("8" + std::string(262143, '0'))->to_string() == "1048575");
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
