// Node lists folded as clush and pdsh write them, and capped for the text.
#include "tuner/cli/report/fleet_nodeset.h"

#include <doctest/doctest.h>

#include <fmt/core.h>

namespace tuner {

TEST_CASE("nodeset: ranges keep zero padding; prefixes comma-separated; plain names") {
  CHECK(nodeset({}) == "");
  CHECK(nodeset({"gpu-0005"}) == "gpu-0005");
  CHECK(nodeset({"gpu-0011", "gpu-0005", "gpu-0006"}) == "gpu-[0005-0006,0011]");
  CHECK(nodeset({"node9", "node10", "node11"}) == "node[9-11]");
  CHECK(nodeset({"node08", "node09", "node10"}) == "node[08-10]");
  CHECK(nodeset({"n098", "n099", "n100"}) == "n[098-100]");
  CHECK(nodeset({"n98", "n99", "n100"}) == "n[98-100]");
  // 9 and 09 are different names: each is listed as it is written.
  CHECK(nodeset({"n9", "n09", "n10"}) == "n[09,9-10]");
  CHECK(nodeset({"login", "gpu-01", "cpu-3", "gpu-02", "head"}) == "cpu-3,gpu-[01-02],head,login");
  // The last number varies; the rest of the name is the prefix and the suffix.
  CHECK(nodeset({"r1n01.example.com", "r1n02.example.com", "r2n01.example.com"}) ==
        "r1n[01-02].example.com,r2n01.example.com");
  // Nodeset syntax, blanks or controls in a name: listed as it is.
  CHECK(nodeset({"a[1]", "b,2", "c 3", "d\n4"}) == "a[1],b,2,c 3,d\n4");
  // A number too long for 64 bits is not folded.
  CHECK(nodeset({"x12345678901234567890"}) == "x12345678901234567890");
  CHECK(nodeset({"h1", "h1"}) == "h1");
}

TEST_CASE("nodeset: capped between numbers, brackets closed, the rest counted") {
  std::vector<std::string> every_other;
  for (int i = 0; i < 10000; i += 2) every_other.push_back(fmt::format("gpu-{:05}", i));
  std::string capped = nodeset_capped(every_other);
  INFO(capped);
  CHECK(capped.starts_with("gpu-[00000,00002,00004,"));
  const auto more = capped.find("] ... and ");
  REQUIRE(more != std::string::npos);
  CHECK(more < 200);
  CHECK(capped.ends_with(fmt::format(" ... and {} more", 5000 - (more - 4) / 6)));
  // Ranges cost one piece each: 10,000 consecutive names are short.
  std::vector<std::string> all;
  all.reserve(10000);
  for (int i = 0; i < 10000; ++i) all.push_back(fmt::format("gpu-{:05}", i));
  CHECK(nodeset_capped(all) == "gpu-[00000-09999]");
  // Past the cap between two prefixes: the next is left out whole.
  CHECK(nodeset_capped({"aaaa1", "bbbb1", "cccc1"}, 12) == "aaaa1,bbbb1 ... and 1 more");
  // One name longer than the cap is still shown.
  CHECK(nodeset_capped({std::string(300, 'x'), "y"}, 200) ==
        std::string(300, 'x') + " ... and 1 more");
}

}  // namespace tuner
