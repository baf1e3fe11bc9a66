#include "tuner/verify/benches.h"

#include <doctest/doctest.h>

#include "tuner/profile/parse.h"

using namespace tuner;
using namespace tuner::verify;

namespace {

Profile profile_of(const std::string& text) {
  auto f = parse_profile_file(text, "p.toml");
  REQUIRE_MESSAGE(f.ok(), f.error().message());
  return f->profile;
}

const char* kTwoBenches = R"(
[verify]
bench = ["rate", "lat"]

[group.sysctl]
bench = ["lat"]

[bench.rate]
kind = "exec"
command = ["/bin/echo", "5 ops/s"]
metric = { regex = '([0-9]+) ops/s' }
unit = "ops/s"

[bench.lat]
kind = "exec"
command = ["/bin/echo", "7 us"]
metric = { regex = '([0-9]+) us' }
direction = "lower"
unit = "us"
)";

}  // namespace

TEST_CASE("benches: the first named benchmark decides, the others watch") {
  Profile p = profile_of(kTwoBenches);
  auto set = BenchSet::build(p, {}, {"irq", "sysctl"}, {});
  REQUIRE_MESSAGE(set.ok(), set.error().message());
  REQUIRE(set->for_group("irq"));
  CHECK(set->for_group("irq")->name() == "rate");
  REQUIRE(set->watches_for("irq").size() == 1);
  CHECK(set->watches_for("irq")[0]->name() == "lat");
  // A group's own list replaces [verify]'s: one benchmark, no watches.
  CHECK(set->for_group("sysctl")->name() == "lat");
  CHECK(set->watches_for("sysctl").empty());
  // The same name is built once and shared.
  CHECK(set->watches_for("irq")[0] == set->for_group("sysctl"));
  CHECK(set->for_group("nic") == nullptr);
}

TEST_CASE("benches: apply --bench replaces every group's list; a name twice runs once") {
  Profile p = profile_of(kTwoBenches);
  auto set = BenchSet::build(p, {}, {"irq", "sysctl"}, {"lat", "rate", "lat"});
  REQUIRE(set.ok());
  CHECK(set->for_group("sysctl")->name() == "lat");
  REQUIRE(set->watches_for("sysctl").size() == 1);
  CHECK(set->watches_for("sysctl")[0]->name() == "rate");
}

TEST_CASE("benches: a watch that cannot run here is an error before any change") {
  Profile p = profile_of(std::string(kTwoBenches) + R"(
[bench.gone]
kind = "exec"
command = ["/nonexistent/bench"]
metric = { regex = '([0-9]+)' }
unit = "x"
)");
  p.verify.bench = {"rate", "gone"};
  auto set = BenchSet::build(p, {}, {"irq"}, {});
  REQUIRE_FALSE(set.ok());
  CHECK(set.error().kind == ErrorKind::invalid);
  CHECK(set.error().message().find("benchmark 'gone' cannot run here") != std::string::npos);
}

TEST_CASE("benches: a group with bench = [] has no benchmark: not measurable") {
  Profile p = profile_of(std::string(kTwoBenches) + R"(
[group.irq]
bench = []
)");
  auto set = BenchSet::build(p, {}, {"irq", "sysctl", "nic"}, {});
  REQUIRE(set.ok());
  CHECK(set->for_group("irq") == nullptr);
  CHECK(set->watches_for("irq").empty());
  CHECK(set->for_group("nic")->name() == "rate");  // no group table: [verify] decides
}
