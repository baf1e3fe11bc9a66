// The verify loop's value search on the test rig: screening, confirmation, the journal
// of every candidate written, and rollback.
#include <set>

#include "tuner/verify/loop_rig_test.h"

using namespace tuner;
using namespace tuner::verify;
using namespace tuner::verify::loop_test;

namespace {

/// "throughput" 1000 x (1 + gain of the value sysctl:t.x holds), 2% lognormal noise;
/// 10000 TCP segments a run, of which `retrans` (by value) are retransmitted.
class ValueBench : public bench::Benchmark {
 public:
  ValueBench(Rig& rig, std::map<std::string, double> gains, unsigned seed,
             std::map<std::string, uint64_t> retrans = {})
      : m_(rig.m),
        root_(rig.root_dir()),
        gains_(std::move(gains)),
        retrans_(std::move(retrans)),
        rng_(seed) {
    write_snmp();
  }
  const std::string& name() const override { return name_; }
  Status check() override { return Ok{}; }
  Result<bench::Measurement> run() override {
    ++runs_;
    const std::string& now = m_.values.at("sysctl:t.x");
    auto it = gains_.find(now);
    double v = 1000.0 * (1 + (it == gains_.end() ? 0 : it->second));
    out_segs_ += 10000;
    if (auto r = retrans_.find(now); r != retrans_.end()) retrans_segs_ += r->second;
    write_snmp();
    return bench::Measurement{
        {{"throughput", v * std::exp(noise_(rng_)), "ops/s", bench::Direction::higher}},
        {},
        {},
        {}};
  }
  unsigned runs_ = 0;

 private:
  void write_snmp() const {
    std::ofstream f(root_ + "/proc/net/snmp");
    f << "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails "
         "EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
      << "Tcp: 1 200 120000 -1 18 4 0 2 0 42026 " << out_segs_ << " " << retrans_segs_
      << " 0 3 0\n";
  }
  Machine& m_;
  std::string root_;
  std::map<std::string, double> gains_;
  std::map<std::string, uint64_t> retrans_;
  std::normal_distribution<double> noise_{0.0, 0.02};
  std::mt19937_64 rng_;
  std::string name_ = "value";
  uint64_t out_segs_ = 100000, retrans_segs_ = 0;
};

struct SearchRun {
  GroupOutcome outcome;
  std::vector<JournalRecord> records;
};

SearchRun search(Rig& rig, ValueBench& bench, std::uint64_t seed,
                 const std::vector<std::string>& values = {"a", "b", "c", "d"},
                 LoopOptions options = {}) {
  Plan plan;
  plan.profiles = {"test"};
  plan.changes.push_back({"sysctl:t.x", "net", std::string("default"), "a", ""});
  auto run = ApplyRun::prepare(plan, rig.dir, rig.factory(), {});
  REQUIRE(run.ok());
  REQUIRE(run->begin().ok());
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

TEST_CASE("value search: a candidate that trips a guard in screening leaves the race") {
  // "c" is the fastest by far but retransmits 5% of its segments: a single value would be
  // rolled back for it, so the search drops it and confirms the next best, "b".
  Rig rig;
  ValueBench bench(rig, {{"b", 0.08}, {"c", 0.15}}, 13, {{"c", 500}});
  LoopOptions options;
  options.guards.set({bench::GuardMetric::tcp_retrans_pct, 0.5});
  SearchRun r = search(rig, bench, 6, {"a", "b", "c", "d"}, options);
  REQUIRE(r.outcome.search.is_object());
  const nlohmann::json& c = r.outcome.search["candidates"][2];
  CHECK(c["value"] == "c");
  CHECK(c["dropped_for"] == "guard");
  CHECK(c["guard"].get<std::string>().find("tcp_retrans_pct") == 0);
  CHECK(c["dropped_at"] == 1);  // after its first block: the counts leave no doubt
  CHECK(r.outcome.search["chosen"] == "b");
  CHECK(r.outcome.decision == GroupDecision::kept);
  CHECK(rig.m.values.at("sysctl:t.x") == "b");
}

TEST_CASE("value search: when a guard trips on every candidate, nothing is confirmed") {
  Rig rig;
  ValueBench bench(rig, {{"a", 0.1}, {"b", 0.1}}, 17, {{"a", 800}, {"b", 800}});
  LoopOptions options;
  options.guards.set({bench::GuardMetric::tcp_retrans_pct, 0.5});
  SearchRun r = search(rig, bench, 8, {"a", "b"}, options);
  CHECK(r.outcome.search["chosen"].is_null());
  CHECK(r.outcome.search["blocks"] == 1);  // no further block once the race is empty
  CHECK(r.outcome.decision == GroupDecision::rolled_back);
  CHECK(rig.m.values.at("sysctl:t.x") == "default");
}

TEST_CASE("value search: a benchmark value a ratio cannot use ends the search, not the run") {
  Rig rig;
  ValueBench bench(rig, {{"a", -1.0}}, 19);  // 0 ops/s at "a"
  SearchRun r = search(rig, bench, 9, {"a", "b"});
  CHECK(r.outcome.decision == GroupDecision::rolled_back);
  CHECK(r.outcome.reason == Reason::bench_failed);
  CHECK(r.outcome.search["error"].get<std::string>().find("needs positive values") !=
        std::string::npos);
  CHECK(rig.m.values.at("sysctl:t.x") == "default");
}

TEST_CASE("value search: the run's budget running out in screening is outcome budget") {
  Rig rig;
  ValueBench bench(rig, {{"c", 0.10}}, 23);
  LoopOptions options;
  options.budget = std::chrono::seconds(1);  // ten flips of 100 ms settling on the fake clock
  SearchRun r = search(rig, bench, 10, {"a", "b", "c", "d"}, options);
  CHECK(r.outcome.decision == GroupDecision::rolled_back);
  CHECK(r.outcome.reason == Reason::budget);
  CHECK(r.outcome.search["error"] == "the budget ran out while screening the candidates");
  CHECK(rig.m.values.at("sysctl:t.x") == "default");
}

TEST_CASE("value search: a candidate the kernel refuses leaves the race, the others race on") {
  Rig rig;
  rig.m.refuse = {"sysctl:t.x=b"};
  ValueBench bench(rig, {{"c", 0.10}}, 11);
  SearchRun r = search(rig, bench, 7);
  CHECK(r.outcome.decision == GroupDecision::kept);
  CHECK(rig.m.values.at("sysctl:t.x") == "c");
  const auto& b = r.outcome.search["candidates"][1];
  CHECK(b["value"] == "b");
  CHECK(b["dropped_for"] == "refused");
  CHECK(b["refused"].get<std::string>().find("refused 'b'") != std::string::npos);
  CHECK(b["trials"] == 0);
  // Never written, never measured: the machine never held it.
  CHECK(std::count(rig.m.writes.begin(), rig.m.writes.end(), "sysctl:t.x=b") == 0);
}

TEST_CASE("value search: a refused first candidate hands the group's first write to the next") {
  Rig rig;
  rig.m.refuse = {"sysctl:t.x=a"};
  ValueBench bench(rig, {{"c", 0.10}}, 11);
  SearchRun r = search(rig, bench, 7);
  CHECK(r.outcome.decision == GroupDecision::kept);
  CHECK(rig.m.values.at("sysctl:t.x") == "c");
  CHECK(r.outcome.search["candidates"][0]["dropped_for"] == "refused");
  CHECK(r.outcome.search["candidates"][0]["dropped_at"] == 0);
  // The journal still undoes it: rolled back, the machine holds what it had.
  auto runs = list_runs(rig.dir);
  REQUIRE(runs.ok());
  REQUIRE(rollback_run(rig.dir, runs->back(), rig.factory(), {}).ok());
  CHECK(rig.m.values.at("sysctl:t.x") == "default");
}

TEST_CASE(
    "value search: when the kernel refuses every candidate nothing is kept, the run goes on") {
  Rig rig;
  rig.m.refuse = {"sysctl:t.x=a", "sysctl:t.x=b"};
  ValueBench bench(rig, {{"b", 0.10}}, 11);
  SearchRun r = search(rig, bench, 7, {"a", "b"});
  CHECK(r.outcome.decision == GroupDecision::rolled_back);
  CHECK(rig.m.values.at("sysctl:t.x") == "default");
  CHECK(r.outcome.search["candidates"][1]["dropped_for"] == "refused");
  CHECK(r.outcome.search["chosen"].is_null());
  CHECK(bench.runs_ == 0);
}
