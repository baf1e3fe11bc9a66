// The verify loop's value search on the test rig: screening, confirmation, the journal
// of every candidate written, and rollback.
#include <set>

#include "tuner/verify/loop_rig_test.h"

using namespace tuner;
using namespace tuner::verify;
using namespace tuner::verify::loop_test;

namespace {

/// "throughput" 1000 x (1 + gain of the value sysctl:t.x holds), 2% lognormal noise.
class ValueBench : public bench::Benchmark {
 public:
  ValueBench(Rig& rig, std::map<std::string, double> gains, unsigned seed)
      : m_(rig.m), gains_(std::move(gains)), rng_(seed) {
    // Guard counters that never move: the guards have nothing to say here.
    std::ofstream f(rig.root_dir() + "/proc/net/snmp");
    f << "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails "
         "EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
      << "Tcp: 1 200 120000 -1 18 4 0 2 0 42026 100000 0 0 3 0\n";
  }
  const std::string& name() const override { return name_; }
  Status check() override { return Ok{}; }
  Result<bench::Measurement> run() override {
    ++runs_;
    auto it = gains_.find(m_.values.at("sysctl:t.x"));
    double v = 1000.0 * (1 + (it == gains_.end() ? 0 : it->second));
    return bench::Measurement{
        {{"throughput", v * std::exp(noise_(rng_)), "ops/s", bench::Direction::higher}}, {}, {}};
  }
  unsigned runs_ = 0;

 private:
  Machine& m_;
  std::map<std::string, double> gains_;
  std::normal_distribution<double> noise_{0.0, 0.02};
  std::mt19937_64 rng_;
  std::string name_ = "value";
};

struct SearchRun {
  GroupOutcome outcome;
  std::vector<JournalRecord> records;
};

SearchRun search(Rig& rig, ValueBench& bench, std::uint64_t seed,
                 const std::vector<std::string>& values = {"a", "b", "c", "d"}) {
  Plan plan;
  plan.profiles = {"test"};
  plan.changes.push_back({"sysctl:t.x", "net", std::string("default"), "a", ""});
  auto run = ApplyRun::prepare(plan, rig.dir, rig.factory(), {});
  REQUIRE(run.ok());
  REQUIRE(run->begin().ok());
  LoopOptions options;
  options.decision.min_effect = 0.02;
  options.decision.false_keep_rate = 0.01;
  options.decision.max_trials = 30;
  options.seed = seed;
  VerifyLoop loop(*run, rig.root, rig.clock, options);
  GroupPlan g{"net", &bench, false, Design::interleaved, false, {}};
  std::vector<std::vector<std::string>> desired;
  desired.reserve(values.size());
  for (const std::string& v : values) desired.push_back({v});
  g.search = SearchPlan{"sysctl:t.x", {"sysctl:t.x"}, values, desired};
  auto out = loop.verify_group(g);
  REQUIRE_MESSAGE(out.ok(), out.error().message());
  REQUIRE(run->finish().ok());
  auto runs = list_runs(rig.dir);
  REQUIRE(runs.ok());
  auto text = read_journal(rig.dir, runs->back());
  REQUIRE(text.ok());
  return {*out, text->records};
}

std::set<std::string> intents_of(const std::vector<JournalRecord>& records) {
  std::set<std::string> out;
  for (const JournalRecord& r : records)
    if (r.type == RecordType::intent) {
      CHECK(r.before == "default");  // every candidate's intent names the value to restore
      out.insert(r.after);
    }
  return out;
}

}  // namespace

TEST_CASE("value search: the one helpful candidate is found, confirmed and kept") {
  Rig rig;
  ValueBench bench(rig, {{"c", 0.10}}, 11);
  SearchRun r = search(rig, bench, 7);
  CHECK(r.outcome.decision == GroupDecision::kept);
  CHECK(rig.m.values.at("sysctl:t.x") == "c");
  REQUIRE(r.outcome.search.is_object());
  CHECK(r.outcome.search["chosen"] == "c");
  CHECK(r.outcome.search["knob"] == "sysctl:t.x");
  CHECK(r.outcome.search["candidates"].size() == 4);
  CHECK(r.outcome.search["confirm"]["verdict"] == "keep");
  CHECK(r.outcome.search["confirm"]["effect"].get<double>() > 0.05);
  // The journal lists every candidate the screening wrote, each undoable to "default".
  CHECK(intents_of(r.records) == std::set<std::string>{"a", "b", "c", "d"});
  // Rolled back, the machine holds what it had before the run.
  auto runs = list_runs(rig.dir);
  REQUIRE(runs.ok());
  auto rolled = rollback_run(rig.dir, runs->back(), rig.factory(), {});
  REQUIRE(rolled.ok());
  CHECK(rig.m.values.at("sysctl:t.x") == "default");
}

TEST_CASE("value search: with no helpful candidate nothing is kept") {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    Rig rig;
    ValueBench bench(rig, {}, static_cast<unsigned>(seed) + 20);
    SearchRun r = search(rig, bench, seed);
    CHECK(r.outcome.decision == GroupDecision::rolled_back);
    CHECK(rig.m.values.at("sysctl:t.x") == "default");
    CHECK(intents_of(r.records).count("a") == 1);
  }
}

TEST_CASE("value search: every candidate worse ends in screening, without confirmation") {
  Rig rig;
  ValueBench bench(rig, {{"a", -0.2}, {"b", -0.2}, {"c", -0.25}, {"d", -0.3}}, 5);
  SearchRun r = search(rig, bench, 3);
  CHECK(r.outcome.decision == GroupDecision::rolled_back);
  CHECK(r.outcome.reason == Reason::no_gain);
  CHECK(r.outcome.search["chosen"].is_null());
  CHECK_FALSE(r.outcome.search.contains("confirm"));
  CHECK(bench.runs_ <= 5 * 3);  // three blocks of five arms at most
  CHECK(rig.m.values.at("sysctl:t.x") == "default");
}

TEST_CASE("value search: one candidate besides the current value is verified directly") {
  Rig rig;
  ValueBench bench(rig, {{"a", 0.10}}, 9);
  SearchRun r = search(rig, bench, 4, {"a"});
  CHECK(r.outcome.decision == GroupDecision::kept);
  CHECK(r.outcome.search["blocks"] == 0);
  CHECK(r.outcome.search["chosen"] == "a");
  REQUIRE(r.outcome.measured);
  // Every run was the confirmation's: no screening.
  CHECK(bench.runs_ == r.outcome.measured->trials_baseline + r.outcome.measured->trials_candidate);
}
