// The group outcome's one JSON writer and one reader: what the loop journals reads back
// the same, documents of earlier versions read, damage is an Error naming its path.
#include "tuner/verify/outcome.h"

#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "tests/support/files.h"

using namespace tuner;
using namespace tuner::verify;
using nlohmann::json;

namespace {

/// Every kind of member set: numbers with unknown ones, a tripped guard on a NIC, a
/// watch, an error, a bisect with a step and a rest, overhead and a soak.
GroupOutcome full_outcome() {
  GroupOutcome o;
  o.decision = GroupDecision::kept;
  o.reason = Reason::partly_kept;
  Comparison c;
  c.bench = "tcp";
  c.unit = "bit/s";
  c.verdict = Verdict::harm;
  c.stats.baseline_median = 9.4e9;
  c.stats.candidate_median = 8.1e9;
  c.stats.effect = -0.138;
  c.stats.ci_low = -std::numeric_limits<double>::infinity();  // written as null
  c.stats.ci_high = -0.1;
  c.stats.ci_level = 0.95;
  c.stats.p = 1;
  c.stats.look = 1;
  c.stats.looks = 6;
  c.stats.alpha_spent = 0.000277;
  c.stats.scale = Scale::difference;
  c.trials_baseline = 5;
  c.trials_candidate = 6;
  c.design = Design::blocked;
  GuardResult retrans, drops;
  retrans.baseline = 0.3;
  retrans.candidate = 0.31;
  drops.metric = bench::GuardMetric::nic_drops;
  drops.interface = "eth0";
  drops.candidate = 1532;
  drops.tripped = true;
  drops.limit = 10;
  drops.text = "nic_drops eth0: 0 -> 1532 per trial, limit +10";
  c.guards = {retrans, drops};
  WatchResult w;
  w.bench = "lat";
  w.unit = "us";
  w.verdict = Verdict::no_gain;
  w.stats.effect = std::nan("");
  w.trials_baseline = w.trials_candidate = 5;
  w.tripped = false;
  c.watches = {w};
  c.error = "guard tripped: nic_drops eth0: 0 -> 1532 per trial, limit +10";
  BisectStep step;
  static_cast<Comparison&>(step) = c;
  step.watches.clear();
  step.knobs = {"sysctl:b"};
  step.outcome = StepOutcome::guard;
  BisectRest rest;
  static_cast<Comparison&>(rest) = c;
  rest.error.clear();
  rest.knobs = {"sysctl:a"};
  rest.outcome = Reason::gain;
  o.measured = c;
  Bisect& b = o.bisect.emplace();
  b.steps = {step};
  b.culprit = std::vector<std::string>{"sysctl:b"};
  b.rest = rest;
  b.note = "kept without sysctl:b";
  o.overhead_ms = Overhead{0.25, 1.5};
  o.soak = {{"window_s", 30}};
  return o;
}

json fixture(const std::string& name) {
  return json::parse(testing::read_test_data("outcome/" + name));
}

}  // namespace

TEST_CASE("outcome: every reason and step outcome has one name that parses back") {
  for (Reason r : {Reason::gain, Reason::neutral_kept, Reason::no_gain, Reason::harm,
                   Reason::inconclusive, Reason::guard, Reason::bench_failed, Reason::budget,
                   Reason::not_measurable, Reason::not_measurable_kept, Reason::partly_kept,
                   Reason::soak_undecided, Reason::interference})
    CHECK(parse_reason(reason_name(r)) == r);
  for (StepOutcome s : {StepOutcome::harm, StepOutcome::guard, StepOutcome::no_harm,
                        StepOutcome::bench_failed, StepOutcome::budget, StepOutcome::interference})
    CHECK(parse_step_outcome(step_outcome_name(s)) == s);
  CHECK_FALSE(parse_reason("kept").has_value());
  CHECK_FALSE(parse_reason("").has_value());
  CHECK(decision_of(Reason::partly_kept) == GroupDecision::kept);
  CHECK(decision_of(Reason::not_measurable_kept) == GroupDecision::kept);
  CHECK(decision_of(Reason::soak_undecided) == GroupDecision::kept);  // kept as chosen
  CHECK(std::string(reason_name(Reason::soak_undecided)) == "soak_undecided");
  CHECK(decision_of(Reason::inconclusive) == GroupDecision::rolled_back);
  CHECK(decision_of(Reason::interference) == GroupDecision::rolled_back);  // never a keep
}

TEST_CASE("outcome: what the writer writes reads back to the same document") {
  GroupOutcome o = full_outcome();
  json j = to_json(o);
  INFO(j.dump(1));
  // The shape DESIGN.md documents: nothing the loop does not set, NaN and infinities null.
  CHECK(j["outcome"] == "partly_kept");
  CHECK(j["ci"][0].is_null());
  CHECK(j["watches"][0]["effect"].is_null());
  CHECK_FALSE(j["guards"][0].contains("interface"));
  CHECK_FALSE(j["guards"][0].contains("limit"));
  CHECK(j["guards"][1]["limit"] == 10.0);
  CHECK(j["trials"] == json{{"baseline", 5}, {"candidate", 6}});
  CHECK(j["bisect"]["steps"][0]["outcome"] == "guard");
  CHECK_FALSE(j["bisect"]["steps"][0].contains("watches"));
  CHECK(j["bisect"]["rest"]["outcome"] == "gain");
  CHECK_FALSE(j.contains("reason"));

  auto back = outcome_from_json(j);
  REQUIRE_MESSAGE(back.ok(), back.error().message());
  CHECK(to_json(*back).dump() == j.dump());
  CHECK(back->decision == GroupDecision::kept);
  REQUIRE(back->measured);
  CHECK(back->measured->design == Design::blocked);
  CHECK(back->measured->stats.scale == Scale::difference);
  CHECK(std::isnan(back->measured->stats.ci_low));
  CHECK(back->measured->guards[1].metric == bench::GuardMetric::nic_drops);
  CHECK(back->measured->guards[1].interface == "eth0");
  REQUIRE(back->bisect);
  CHECK(back->bisect->culprit == std::vector<std::string>{"sysctl:b"});
  REQUIRE(back->bisect->rest);
  CHECK(back->bisect->rest->knobs == std::vector<std::string>{"sysctl:a"});
  CHECK(back->soak == json{{"window_s", 30}});
}

TEST_CASE("outcome: documents tuner wrote, this version and earlier, read back unchanged") {
  // gain.json, bisect.json, watch_guard.json, not_measurable.json: journaled by the
  // loop's tests before the outcome became a struct; v1_gain.json: a document of the
  // first verify loop (143bc73: no overhead_ms, watches or bisect).
  for (const char* name :
       {"gain.json", "bisect.json", "watch_guard.json", "not_measurable.json", "v1_gain.json"}) {
    CAPTURE(name);
    json doc = fixture(name);
    auto o = outcome_from_json(doc);
    REQUIRE_MESSAGE(o.ok(), o.error().message());
    CHECK(to_json(*o).dump() == doc.dump());
  }
  auto gain = outcome_from_json(fixture("v1_gain.json"));
  REQUIRE(gain.ok());
  CHECK(gain->reason == Reason::gain);
  CHECK(gain->decision == GroupDecision::kept);
  REQUIRE(gain->measured);
  CHECK(gain->measured->stats.effect > 0.05);
  CHECK_FALSE(gain->overhead_ms.has_value());
  auto none = outcome_from_json(fixture("not_measurable.json"));
  REQUIRE(none.ok());
  CHECK_FALSE(none->measured.has_value());
  CHECK(none->unmeasured == "no benchmark on this node can measure this group");
}

TEST_CASE("outcome: keys this version does not know are ignored") {
  json doc = fixture("gain.json");
  doc["ordering_v9"] = "ABBABAAB";
  doc["guards"][0]["witness_v9"] = "tcp_info";
  doc["something_new"] = {{"x", 1}};
  auto o = outcome_from_json(doc);
  REQUIRE_MESSAGE(o.ok(), o.error().message());
  CHECK(to_json(*o).dump() == fixture("gain.json").dump());
}

TEST_CASE("outcome: the trial order, the run's seed and share, watches' margins round-trip") {
  json doc = fixture("gain.json");
  doc["seed"] = 12345u;
  doc["order"] = "ABBABA";
  doc["washes"] = 1u;
  doc["units"] = 3u;
  doc["power_at_max"] = 0.5;
  doc["trials_needed"] = 60u;
  doc["run_seed"] = 9007199254740991ULL;
  doc["alpha_share"] = 0.0125;
  auto o = outcome_from_json(doc);
  REQUIRE_MESSAGE(o.ok(), o.error().message());
  CHECK(o->measured->seed == 12345);
  CHECK(o->measured->order == "ABBABA");
  CHECK(*o->run_seed == 9007199254740991ULL);
  json back = to_json(*o);
  for (const char* key : {"seed", "order", "washes", "units", "power_at_max", "trials_needed",
                          "run_seed", "alpha_share"}) {
    CAPTURE(key);
    CHECK(back.at(key) == doc.at(key));
  }
  doc["seed"] = -1;
  CHECK_FALSE(outcome_from_json(doc).ok());
}

TEST_CASE("outcome: the mean's effect and p round-trip; documents without them read NaN") {
  json doc = fixture("gain.json");
  auto before = outcome_from_json(doc);
  REQUIRE(before.ok());
  CHECK(std::isnan(before->measured->stats.mean_effect));  // older documents: unknown
  CHECK_FALSE(to_json(*before).contains("mean_effect"));
  doc["mean_effect"] = -0.013;
  doc["p_mean"] = 0.62;
  auto o = outcome_from_json(doc);
  REQUIRE_MESSAGE(o.ok(), o.error().message());
  CHECK(o->measured->stats.mean_effect == -0.013);
  CHECK(o->measured->stats.p_mean == 0.62);
  json back = to_json(*o);
  CHECK(back.at("mean_effect") == doc.at("mean_effect"));
  CHECK(back.at("p_mean") == doc.at("p_mean"));
  doc["mean_effect"] = "worse";
  CHECK_FALSE(outcome_from_json(doc).ok());
}

TEST_CASE("outcome: damage is an Error that names where, never a crash") {
  struct Case {
    const char* what;
    std::function<void(json&)> damage;
    const char* where;
  };
  const Case cases[] = {
      {"not an object", [](json& j) { j = json::array(); }, "stats"},
      {"no outcome", [](json& j) { j.erase("outcome"); }, "stats"},
      {"unknown outcome", [](json& j) { j["outcome"] = "kept"; }, "stats.outcome"},
      {"effect a string", [](json& j) { j["effect"] = "12%"; }, "stats.effect"},
      {"ci of one", [](json& j) { j["ci"] = {0.1}; }, "stats.ci"},
      {"negative trials", [](json& j) { j["trials"]["baseline"] = -1; }, "stats.trials.baseline"},
      {"unknown verdict", [](json& j) { j["verdict"] = "maybe"; }, "stats.verdict"},
      {"guards an object", [](json& j) { j["guards"] = json::object(); }, "stats.guards"},
      {"unknown guard metric", [](json& j) { j["guards"][0]["metric"] = "x"; },
       "stats.guards[0].metric"},
      {"tripped a string", [](json& j) { j["guards"][0]["tripped"] = "yes"; },
       "stats.guards[0].tripped"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    json doc = fixture("gain.json");
    c.damage(doc);
    auto o = outcome_from_json(doc);
    REQUIRE_FALSE(o.ok());
    CHECK(o.error().where == c.where);
  }
  json doc = fixture("bisect.json");
  doc["bisect"]["steps"][1]["knobs"] = {1, 2};
  auto o = outcome_from_json(doc);
  REQUIRE_FALSE(o.ok());
  CHECK(o.error().message().find("stats.bisect.steps[1].knobs") == 0);
}

TEST_CASE("outcome: every value of a real document replaced by every other type") {
  // Each replacement either reads or is an Error; none throws or crashes.
  const json others[] = {nullptr, true, -1, 1.5, "x", json::array(), json::object()};
  for (const char* name : {"bisect.json", "watch_guard.json"}) {
    json doc = fixture(name);
    std::vector<json::json_pointer> paths;
    std::function<void(const json&, const json::json_pointer&)> walk =
        [&](const json& v, const json::json_pointer& at) {
          paths.push_back(at);
          if (v.is_object())
            for (const auto& [k, e] : v.items()) walk(e, at / k);
          if (v.is_array())
            for (std::size_t i = 0; i < v.size(); ++i) walk(v[i], at / i);
        };
    walk(doc, json::json_pointer());
    CHECK(paths.size() > 40);
    for (const auto& at : paths)
      for (const json& other : others) {
        json bad = doc;
        bad[at] = other;
        CAPTURE(at.to_string());
        CHECK_NOTHROW((void)outcome_from_json(bad));
      }
  }
}

TEST_CASE("outcome: each trial's value in the order run, and what the test was against") {
  json doc = fixture("gain.json");
  doc["seed"] = 7u;
  doc["order"] = "ABBA";
  doc["washes"] = 1u;
  doc["values"] = {1000.5, 1090.25, nullptr, 998.0};
  doc["direction"] = "lower";
  doc["min_effect"] = 0.01;
  doc["power_effect"] = 0.05;
  auto o = outcome_from_json(doc);
  REQUIRE_MESSAGE(o.ok(), o.error().message());
  REQUIRE(o->measured->values.size() == 4);
  CHECK(o->measured->values[1] == 1090.25);
  CHECK(std::isnan(o->measured->values[2]));  // null: not a number
  CHECK(o->measured->direction == Direction::lower);
  CHECK(*o->measured->min_effect == 0.01);
  CHECK(to_json(*o).dump() == doc.dump());
  // Older documents have none of it (fixtures above); damage names where.
  const std::pair<std::function<void(json&)>, const char*> cases[] = {
      {[](json& j) { j["values"].push_back(1.0); }, "stats.values"},  // 5 values, 4 trials
      {[](json& j) { j["values"][0] = "1000"; }, "stats.values"},
      {[](json& j) { j["values"] = 1.0; }, "stats.values"},
      {[](json& j) { j["direction"] = "up"; }, "stats.direction"},
      {[](json& j) { j["min_effect"] = "1%"; }, "stats.min_effect"},
  };
  for (const auto& [damage, where] : cases) {
    json bad = doc;
    damage(bad);
    auto r = outcome_from_json(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().where == where);
  }
}

TEST_CASE("outcome: an interference round-trips, a hostile name as valid UTF-8") {
  GroupOutcome o;
  o.reason = Reason::interference;
  Comparison& c = o.measured.emplace();
  c.bench = "tcp";
  Interference& in = c.interference.emplace();
  in.flagged = true;
  in.cpu = {true, 1.52, 0.03, 0.0079, 0.1, 5, 5, true, ""};
  in.traffic.floor = 1e6;
  in.traffic.note = "not judged: the benchmark does not say that its own traffic stays on lo";
  in.consumers = {{2010, "x) 1 R\n\033[2J 9\xff", 65534U, false, 1.49, 0.0},
                  {14, "ksoftirqd/0", std::nullopt, true, 0.02, 0.01}};
  in.text = "other CPU ...";
  json j = to_json(o);
  INFO(j.dump(1));
  CHECK(j["outcome"] == "interference");
  const json& ij = j["interference"];
  CHECK(ij["flagged"] == true);
  CHECK(ij["cpu"]["unit"] == "CPUs");
  CHECK(ij["cpu"]["proven"] == true);
  CHECK(ij["cpu"]["trials"]["baseline"] == 5);
  CHECK_FALSE(ij["traffic"].contains("p"));                              // not judged: no numbers
  CHECK(ij["consumers"][0]["comm"] == "x) 1 R\n\033[2J 9\xef\xbf\xbd");  // U+FFFD
  CHECK(ij["consumers"][1]["uid"].is_null());
  CHECK_NOTHROW(j.dump());
  auto back = outcome_from_json(j);
  REQUIRE_MESSAGE(back.ok(), back.error().message());
  CHECK(back->decision == GroupDecision::rolled_back);
  REQUIRE(back->measured->interference);
  const Interference& r = *back->measured->interference;
  CHECK(r.flagged);
  CHECK(r.cpu.p == doctest::Approx(0.0079));
  CHECK(r.cpu.trials_candidate == 5);
  CHECK(r.consumers[0].uid == 65534U);
  CHECK_FALSE(r.consumers[1].uid.has_value());
  CHECK(r.consumers[1].kernel_thread);
  CHECK(to_json(*back).dump() == j.dump());
  // Damaged: a consumer that is not an object names where.
  json bad = j;
  bad["interference"]["consumers"][0] = 7;
  auto e = outcome_from_json(bad);
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().message() == "stats.interference.consumers[0]: not an object");
}
