#include "tuner/verify/benches.h"

#include <doctest/doctest.h>
#include <fmt/core.h>

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

TEST_CASE("benches: if_missing = \"skip\": a node without the program runs without it") {
  const std::string allreduce = R"(
[verify]
bench = ["allreduce", "rate"]

[group.numa]
bench = ["allreduce"]

[bench.rate]
kind = "exec"
command = ["/bin/echo", "5 ops/s"]
metric = { regex = '([0-9]+) ops/s' }
unit = "ops/s"

[bench.allreduce]
kind = "exec"
command = ["all_reduce_perf_not_installed_here", "-b", "8M", "-g", "{gpus}"]
metric = { regex = '# Avg bus bandwidth\s*:\s*([0-9.]+)' }
unit = "GB/s"
if_missing = "skip"
)";
  Profile p = profile_of(allreduce);
  Topology gpus;
  gpus.pci.push_back(
      PciDevice{"0000:3b:00.0", "gpu", 0x10de, 0x2330, 0x0302, 0, {}, {}, {}, {}, {}});
  auto set = BenchSet::build(p, gpus, {"irq", "numa"}, {});
  REQUIRE_MESSAGE(set.ok(), set.error().message());
  // irq falls back to the next benchmark; numa had only allreduce: not measured.
  REQUIRE(set->for_group("irq"));
  CHECK(set->for_group("irq")->name() == "rate");
  CHECK(set->watches_for("irq").empty());
  CHECK(set->for_group("numa") == nullptr);
  REQUIRE(set->skipped().size() == 1);
  CHECK(set->skipped()[0].find("benchmark 'allreduce' skipped (if_missing = \"skip\"): "
                               "'all_reduce_perf_not_installed_here' not found in PATH") !=
        std::string::npos);
  CHECK(set->skipped()[0].find("irq by rate, numa not measured") != std::string::npos);

  // Found, but the node has no GPUs for {gpus}: skipped the same way.
  p.benches.at("allreduce").exec.command = {"/bin/echo", "-g", "{gpus}"};
  auto none = BenchSet::build(p, {}, {"irq", "numa"}, {});
  REQUIRE(none.ok());
  CHECK(none->for_group("numa") == nullptr);
  CHECK(none->skipped()[0].find("asks for {gpus}, and this node has none") != std::string::npos);
  // With GPUs, {gpus} is their number in the command (echo prints it as the metric).
  gpus.pci.push_back(gpus.pci.front());
  gpus.pci.back().address = "0000:5e:00.0";
  p.benches.at("allreduce").exec.command = {"/bin/echo", "# Avg bus bandwidth : ", "{gpus}"};
  auto two = BenchSet::build(p, gpus, {"numa"}, {});
  REQUIRE(two.ok());
  REQUIRE(two->for_group("numa"));
  auto m = two->for_group("numa")->run();
  REQUIRE_MESSAGE(m.ok(), m.error().message());
  REQUIRE(m->metrics.size() == 1);
  CHECK(m->metrics[0].value == doctest::Approx(2));

  // Without if_missing = "skip" the missing program is an error before any change.
  p.benches.at("allreduce").exec.command = {"all_reduce_perf_not_installed_here"};
  p.benches.at("allreduce").exec.skip_if_missing = false;
  auto strict = BenchSet::build(p, gpus, {"numa"}, {});
  REQUIRE_FALSE(strict.ok());
  CHECK(strict.error().message().find("cannot run here") != std::string::npos);
  // A program that is there but fails the trust check is never skipped.
}

TEST_CASE("benches: every kind of the table parses from a profile and builds; built-ins by name") {
  for (const BenchKindInfo& k : kAllBenchKinds) {
    CAPTURE(k.name);
    // A [bench.NAME] table of this kind (exec needs its command and metric).
    std::string text = fmt::format("[bench.mine]\nkind = \"{}\"\n", k.name);
    if (k.kind == BenchSpec::Kind::exec)
      text +=
          "command = [\"/bin/echo\", \"5\"]\nmetric = { regex = '([0-9]+)' }\nunit = \"ops/s\"\n";
    Profile p = profile_of(text);
    REQUIRE(p.benches.contains("mine"));
    CHECK(p.benches.at("mine").kind == k.kind);
    auto made = make_benchmark("mine", p, {});
    CHECK_MESSAGE(made.ok(), (made.ok() ? "" : made.error().message()));
    // A built-in kind also runs by its name alone, with its defaults.
    auto by_name = make_benchmark(std::string(k.name), Profile{}, {});
    CHECK(by_name.ok() == k.builtin);
    if (by_name.ok()) CHECK((*by_name)->name() == k.name);
  }
  // Messages list the table's names.
  CHECK(builtin_bench_list() == "tcp, membw, latency");
  CHECK(bench_kind_choices() == "\"exec\", \"tcp\", \"membw\" or \"latency\"");
  auto bad = parse_profile_file("[bench.x]\nkind = \"iperf\"\n", "p.toml");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message().find("expected \"exec\", \"tcp\", \"membw\" or \"latency\"") !=
        std::string::npos);
  CHECK(make_benchmark("exec", Profile{}, {}).error().what ==
        "no benchmark named 'exec' (built in: tcp, membw, latency; or define a [bench.exec] "
        "table)");
}
