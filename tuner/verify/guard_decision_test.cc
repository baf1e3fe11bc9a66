#include "tuner/verify/guard_decision.h"

#include <doctest/doctest.h>

using namespace tuner;
using namespace tuner::verify;
using bench::GuardDelta;
using bench::GuardMetric;

namespace {

/// An arm of `trials` trials: namespace TCP counters and eth0's counters.
GuardDelta arm(unsigned trials, uint64_t segs, uint64_t retrans, uint64_t drops = 0,
               uint64_t errors = 0, uint64_t flaps = 0) {
  GuardDelta d;
  d.trials = trials;
  d.out_segs = segs;
  d.retrans_segs = retrans;
  bench::NicCounters& n = d.nics["eth0"];
  n.rx_dropped = drops;
  n.rx_errors = errors;
  n.carrier_changes = flaps;
  return d;
}

bench::GuardLimits shipped() {
  bench::GuardLimits l = bench::GuardLimits::defaults();
  l.set({GuardMetric::tcp_retrans_pct, 0.5});
  return l;
}

const GuardJudgement& find(const std::vector<GuardJudgement>& js, GuardMetric m) {
  for (const GuardJudgement& j : js)
    if (j.metric == m) return j;
  FAIL("no judgement");
  return js.front();
}

}  // namespace

TEST_CASE("guards: the field case trips, on the NIC alone and diluted to 5% of the segments") {
  // 0.3% -> 7.8% of 100000 segments per arm.
  auto trips = guard_trips(arm(5, 100000, 300), arm(5, 100000, 7800), shipped());
  REQUIRE(trips.size() == 1);
  CHECK(trips[0].metric == GuardMetric::tcp_retrans_pct);
  CHECK(trips[0].p == doctest::Approx(0.001));  // the floor: gamma, spent on the baseline bound
  CHECK(trips[0].text.find("tcp_retrans_pct: 0.30% -> 7.80%, limit +0.50%") == 0);
  CHECK(trips[0].text.find("namespace") != std::string::npos);
  // Tested against the smaller of 0.3 + 0.5 and 2 x 0.3 + 0.05 (the report shows it).
  CHECK(trips[0].bound == doctest::Approx(0.65));
  // The NIC carries 5000 of the 100000: 0.015% -> 0.39%, +0.375 points, below the
  // +0.5 limit in points; the old rule could not trip, the ratio margin does.
  auto diluted = judge_guards(arm(5, 100000, 15), arm(5, 100000, 390), shipped());
  CHECK(find(diluted, GuardMetric::tcp_retrans_pct).tripped);
  CHECK(find(diluted, GuardMetric::tcp_retrans_pct).bound == doctest::Approx(0.08));
  CHECK(bench::check_guards(arm(5, 100000, 15), arm(5, 100000, 390), shipped()).empty());
}

TEST_CASE("guards: no trip on background noise the raw difference rolled back") {
  // One flap and one error in the candidate arm, none in the baseline: the old rule
  // trips on both zero limits.
  GuardDelta a = arm(10, 200000, 200), b = arm(10, 200000, 260, 0, 1, 1);
  CHECK(bench::check_guards(a, b, shipped()).size() == 2);
  CHECK(guard_trips(a, b, shipped()).empty());
  // Stray drops at 3 per trial on both arms, a few more in one: within +10 per trial.
  CHECK(guard_trips(arm(10, 200000, 200, 30), arm(10, 200000, 200, 45), shipped()).empty());
}

TEST_CASE("guards: flaps, errors and drops trip on proven increases") {
  // 8 carrier changes against none: p = 0.5^8.
  auto js = judge_guards(arm(10, 0, 0), arm(10, 0, 0, 0, 0, 8), shipped());
  const GuardJudgement& flaps = find(js, GuardMetric::link_flaps);
  CHECK(flaps.tripped);
  CHECK(flaps.p == doctest::Approx(1.0 / 256));
  CHECK(flaps.interface == "eth0");
  CHECK(flaps.text.find("link_flaps eth0: 0 -> 0.8 per trial, limit +0") == 0);
  // 6 against none is not proof at 1%: 0.5^6 = 0.016.
  CHECK_FALSE(
      find(judge_guards(arm(10, 0, 0), arm(10, 0, 0, 0, 0, 6), shipped()), GuardMetric::link_flaps)
          .tripped);
  // A ring too small under load: thousands of drops.
  CHECK(
      find(judge_guards(arm(10, 0, 0, 20), arm(10, 0, 0, 15000), shipped()), GuardMetric::nic_drops)
          .tripped);
  // 25 per trial against 2: +23, but is +10 proven with 10 trials? Yes, 250 vs 20 + 100.
  CHECK(find(judge_guards(arm(10, 0, 0, 20), arm(10, 0, 0, 250), shipped()), GuardMetric::nic_drops)
            .tripped);
  // 8 per trial against 2: +6, under the limit.
  CHECK_FALSE(
      find(judge_guards(arm(10, 0, 0, 20), arm(10, 0, 0, 80), shipped()), GuardMetric::nic_drops)
          .tripped);
}

namespace {

/// One trial as the loop reads it: the namespace's counter moved by `ns_segs` and
/// `ns_retrans`; the benchmark's client sockets sent `bench_segs` (none retransmitted),
/// over loopback (subtracted) or across an interface (peer: nothing to subtract).
GuardDelta trial(uint64_t ns_segs, uint64_t ns_retrans, uint64_t bench_segs, bool loopback = true) {
  bench::GuardSample before, after;
  before.tcp = {1000, 10};
  after.tcp = {1000 + ns_segs, 10 + ns_retrans};
  bench::Measurement m;
  m.connections = bench::ConnectionCounters{bench_segs, 0};
  if (loopback) m.loopback = m.connections;
  return bench::guard_delta(before, after, m);
}

}  // namespace

TEST_CASE("guards: the node's traffic, not the loopback benchmark's sockets, is judged") {
  // The field case beside a loopback benchmark: 20000 segments per trial in the
  // namespace, 19000 of them the benchmark's own (loopback never retransmits), 1000 on
  // the NIC, retransmitting 0.3% -> 7.8%. The benchmark's sockets alone (the source
  // before issue 40) show 0 retransmits on both arms: p = 1, kept.
  GuardDelta a, b;
  for (int i = 0; i < 10; ++i) {
    a += trial(20000, 3, 19000);
    b += trial(20000, 78, 19000);
  }
  auto js = judge_guards(a, b, shipped());
  const GuardJudgement& t = find(js, GuardMetric::tcp_retrans_pct);
  CHECK(t.source == bench::RetransSource::node_traffic);
  CHECK(t.counts.x_b == 30);
  CHECK(t.counts.t_b == 10000);
  CHECK(t.counts.x_c == 780);
  CHECK(t.counts.t_c == 10000);
  CHECK(t.baseline == doctest::Approx(0.3));
  CHECK(t.candidate == doctest::Approx(7.8));
  CHECK(t.tripped);
  CHECK(t.text.find("node_traffic") != std::string::npos);
  CHECK(t.note.find("less the benchmark's 190000 and 190000 on loopback (0 and 0 retransmitted)") !=
        std::string::npos);
  CHECK(b.connections.retrans == 0);  // what the old source judged: nothing
  CHECK(guard_json(t)["source"] == "node_traffic");
  // One trial without the benchmark's connections (a script benchmark): the namespace,
  // where the loopback segments dilute the rate, 0.015% -> 0.39%.
  GuardDelta c = b;
  c.connection_trials = 9;
  auto without = judge_guards(a, c, shipped());  // find() returns into it: keep it alive
  const GuardJudgement& n = find(without, GuardMetric::tcp_retrans_pct);
  CHECK(n.source == bench::RetransSource::namespace_counter);
  CHECK(n.counts.t_c == 200000);
}

TEST_CASE("guards: a benchmark across an interface (peer) counts as real traffic") {
  // The peer benchmark's sockets cross the NIC: nothing is subtracted, and its own
  // retransmits count like any other traffic's.
  GuardDelta a, b;
  for (int i = 0; i < 10; ++i) {
    a += trial(20000, 6, 19000, false);
    b += trial(20000, 1560, 19000, false);
  }
  auto js = judge_guards(a, b, shipped());
  const GuardJudgement& t = find(js, GuardMetric::tcp_retrans_pct);
  CHECK(t.source == bench::RetransSource::node_traffic);
  CHECK(t.counts.t_b == 200000);
  CHECK(t.note.empty());
  CHECK(t.tripped);
}

TEST_CASE("guards: a node with no traffic but the loopback benchmark says so") {
  // The namespace's counter is the benchmark's segments and a few of the handshakes'.
  GuardDelta a, b;
  for (int i = 0; i < 10; ++i) {
    a += trial(20030, 0, 20000);
    b += trial(20020, 0, 20000);
  }
  auto js = judge_guards(a, b, shipped());
  const GuardJudgement& t = find(js, GuardMetric::tcp_retrans_pct);
  // Said so; the benchmark's own connections (which carried enough) judged instead.
  CHECK(t.source == bench::RetransSource::benchmark_connections);
  CHECK(t.judged);
  CHECK_FALSE(t.tripped);
  CHECK(t.note ==
        "too little node TCP traffic to judge: 300 and 200 segments, 1000 needed per arm; the "
        "benchmark's own connections judged instead");
  CHECK(t.counts.t_b == 200000);
  // The loop's row carries the source and the note (the report prints both).
  auto rows = guard_results(a, b, {});
  CHECK(rows[0].source == "benchmark_connections");
  CHECK(rows[0].note == t.note);
  // A short benchmark too: nothing judged, and the note says why.
  GuardDelta c, d;
  for (int i = 0; i < 5; ++i) {
    c += trial(130, 0, 100);
    d += trial(130, 0, 100);
  }
  auto short_js = judge_guards(c, d, shipped());
  const GuardJudgement& u = find(short_js, GuardMetric::tcp_retrans_pct);
  CHECK(u.source == bench::RetransSource::node_traffic);
  CHECK_FALSE(u.judged);
  CHECK(u.note ==
        "too little node TCP traffic to judge: 150 and 150 segments, 1000 needed per arm");
  CHECK(guard_json(u)["judged"] == false);
}

TEST_CASE("guards: retransmits in loss bursts are judged with their dispersion") {
  // 10 trials per arm of 2000 segments. The baseline lost one window of 10 segments;
  // the candidate two windows of 50: 0.05% -> 0.5%. As independent retransmits (the
  // exact Poisson test) that is proof; one loss episode against two is not.
  GuardDelta a, b;
  for (int i = 0; i < 10; ++i) {
    a += trial(2000, i == 9 ? 10 : 0, 0, false);
    b += trial(2000, i == 1 || i == 7 ? 50 : 0, 0, false);
  }
  GuardTestConfig poisson;
  poisson.dispersion = false;
  const GuardJudgement exact =
      find(judge_guards(a, b, shipped(), poisson), GuardMetric::tcp_retrans_pct);
  CHECK(exact.tripped);
  CHECK(exact.dispersion == 1);
  const GuardJudgement quasi = find(judge_guards(a, b, shipped()), GuardMetric::tcp_retrans_pct);
  CHECK_FALSE(quasi.tripped);
  // Pearson: baseline 9 x 1 + 81 = 90, candidate 8 x 10 + 2 x 160 = 400, over 18 df.
  CHECK(quasi.dispersion == doctest::Approx(490.0 / 18));
  CHECK(guard_json(quasi)["dispersion"] == doctest::Approx(490.0 / 18));
  // The field case in bursts of 10 still trips: 3 -> 78 per trial of 1000.
  GuardDelta c, d;
  for (int i = 0; i < 10; ++i) {
    c += trial(1000, i % 3 == 0 ? 10 : 0, 0, false);
    d += trial(1000, i % 2 == 0 ? 80 : 70, 0, false);
  }
  const GuardJudgement field = find(judge_guards(c, d, shipped()), GuardMetric::tcp_retrans_pct);
  CHECK(field.dispersion > 1);
  CHECK(field.tripped);
}

TEST_CASE("guards: counts as dispersed as Poisson's are judged by the exact test") {
  // Equal per-trial counts: X^2 = 0, the dispersion floors at 1, the p-value is the
  // exact test's.
  GuardDelta a, b;
  for (int i = 0; i < 5; ++i) {
    a += trial(20000, 60, 0, false);
    b += trial(20000, 200, 0, false);
  }
  GuardTestConfig poisson;
  poisson.dispersion = false;
  const GuardJudgement quasi = find(judge_guards(a, b, shipped()), GuardMetric::tcp_retrans_pct);
  const GuardJudgement exact =
      find(judge_guards(a, b, shipped(), poisson), GuardMetric::tcp_retrans_pct);
  CHECK(quasi.dispersion == 1);
  CHECK(quasi.p == exact.p);
  CHECK(quasi.tripped);
}

TEST_CASE("guards: too little TCP traffic is not judged, and says so") {
  auto js = judge_guards(arm(5, 50, 0), arm(5, 50, 10), shipped());
  const GuardJudgement& t = find(js, GuardMetric::tcp_retrans_pct);
  CHECK_FALSE(t.judged);
  CHECK_FALSE(t.tripped);
  CHECK(t.note == "too little TCP traffic to judge: 50 and 50 segments, 1000 needed per arm");
  nlohmann::json j = guard_json(t);
  CHECK(j["judged"] == false);
  CHECK(j["note"] == t.note);
  CHECK(j["source"] == "namespace");
}

TEST_CASE("guards: the loop's rows keep their shape and add source, counts and p") {
  GuardDelta a = arm(5, 100000, 300), b = arm(5, 100000, 7800);
  auto trips = guard_trips(a, b, shipped());
  GroupOutcome o;  // the rows as the run document carries them
  o.reason = Reason::guard;
  o.measured.emplace().guards = guard_results(a, b, trips);
  nlohmann::json rows = to_json(o)["guards"];
  REQUIRE(rows.size() == 4);  // tcp, and eth0's drops, errors and flaps
  const nlohmann::json& tcp = rows[0];
  CHECK(tcp["metric"] == "tcp_retrans_pct");
  CHECK_FALSE(tcp.contains("interface"));
  CHECK(tcp["source"] == "namespace");
  CHECK(tcp["baseline"] == doctest::Approx(0.3));
  CHECK(tcp["candidate"] == doctest::Approx(7.8));
  CHECK(tcp["tripped"] == true);
  CHECK(tcp["limit"] == 0.5);
  CHECK(tcp["p"].get<double>() <= 0.0011);
  CHECK(tcp["text"] == trips[0].text);
  CHECK(tcp["bound"] == doctest::Approx(0.65));
  auto back = outcome_from_json(to_json(o));
  REQUIRE(back.ok());
  CHECK(back->measured->guards[0].bound == doctest::Approx(0.65));
  CHECK_FALSE(back->measured->guards[1].bound);
  CHECK(tcp["counts"]["candidate"]["events"] == 7800);
  CHECK(tcp["counts"]["candidate"]["exposure"] == 100000);
  CHECK(rows[1]["interface"] == "eth0");
  CHECK(rows[1]["tripped"] == false);
  CHECK_FALSE(rows[1].contains("limit"));
}

TEST_CASE("guards: a knob that renegotiates on every write is not a flap at any uptime") {
  // 12 trials per arm of 5 s, blocked: each arm's first trials after a write saw the
  // link's late down/up, 4 carrier changes on each arm. The trials alone: no evidence.
  GuardDelta b = arm(12, 240000, 240, 0, 0, 4), c = arm(12, 240000, 240, 0, 0, 4);
  b.seconds = c.seconds = 60;
  auto alone = find(judge_guards(b, c, shipped()), GuardMetric::link_flaps);
  CHECK_FALSE(alone.tripped);
  CHECK_FALSE(alone.floored);
  // With the link's 2 boot carrier changes over 10 minutes, an hour and a day: the
  // boot rate is a floor under the baseline trials' 4 in 60 s, never pooled with it
  // (pooled, 6 in 3660 s against 4 in 60 s tripped at p < 0.001).
  for (double up : {600.0, 3600.0, 86400.0}) {
    CAPTURE(up);
    GuardTestConfig cfg;
    cfg.flap_prior["eth0"] = {2, up};
    auto j = find(judge_guards(b, c, shipped(), cfg), GuardMetric::link_flaps);
    CHECK_FALSE(j.tripped);
    CHECK(j.floored);
    CHECK(j.p == doctest::Approx(alone.p));  // the trials' test decides
    CHECK(j.floor_p < 0.001);                // the floor alone would have tripped
    CHECK(j.counts.x_b == 4);                // the trials' counts, per trial
    CHECK(j.counts.t_b == 12);
  }
}

TEST_CASE("guards: a link that flaps more now than its boot average, in both arms, is kept") {
  // 0.5 carrier changes per trial on both arms; the link's boot average: 2 in a day.
  GuardDelta b = arm(20, 400000, 400, 0, 0, 9), c = arm(20, 400000, 400, 0, 0, 13);
  b.seconds = c.seconds = 100;
  GuardTestConfig cfg;
  cfg.flap_prior["eth0"] = {2, 86400};
  auto j = find(judge_guards(b, c, shipped(), cfg), GuardMetric::link_flaps);
  CHECK_FALSE(j.tripped);
  CHECK(j.p > 0.1);
  CHECK(j.note.find("floor under the baseline: 2 carrier changes in the 86400 s before the run") ==
        0);
}

TEST_CASE("guards: a link flapping in the candidate's trials trips above the boot floor") {
  // 8 carrier changes in the candidate's 12 trials, none in the baseline's: p = 2^-8
  // from the trials.
  GuardDelta b = arm(12, 240000, 240, 0, 0, 0), c = arm(12, 240000, 240, 0, 0, 8);
  b.seconds = c.seconds = 60;
  GuardTestConfig cfg;
  cfg.flap_prior["eth0"] = {2, 3600};
  auto j = find(judge_guards(b, c, shipped(), cfg), GuardMetric::link_flaps);
  CHECK(j.tripped);
  CHECK(j.p == doctest::Approx(1.0 / 256));  // the larger of the two: the trials'
  CHECK(j.floor_p < j.p);
  CHECK(j.text ==
        "link_flaps eth0: 0 -> 0.666667 per trial, limit +0 (0 in 12 and 8 in 12 trials; floor "
        "under the baseline: 2 carrier changes in the 3600 s before the run (p = 2.3e-13); "
        "p = 0.0039)");
  // A link that always flapped this often (10 a minute since boot): its habit, not the
  // knob's doing; the floor keeps it.
  cfg.flap_prior["eth0"] = {600, 3600};
  auto habit = find(judge_guards(b, c, shipped(), cfg), GuardMetric::link_flaps);
  CHECK_FALSE(habit.tripped);
  CHECK(habit.floor_p > 0.5);
  // A prior for another NIC, or arms that were not timed: the trials alone.
  GuardTestConfig other;
  other.flap_prior["eth1"] = {600, 3600};
  auto eth0 = find(judge_guards(b, c, shipped(), other), GuardMetric::link_flaps);
  CHECK(eth0.tripped);
  CHECK_FALSE(eth0.floored);
  b.seconds = 0;
  CHECK_FALSE(find(judge_guards(b, c, shipped(), cfg), GuardMetric::link_flaps).floored);
}

TEST_CASE("guards: expected carrier changes are shown on the link_flaps rows") {
  GuardDelta b = arm(5, 100000, 100), c = arm(5, 100000, 100);
  std::vector<GuardResult> rows = guard_results(b, c, {});
  note_expected_flaps(rows, {{"eth0", 6}}, {{"eth0", 8}, {"eth9", 2}});
  int flaps = 0;
  for (const GuardResult& g : rows) {
    if (g.metric != GuardMetric::link_flaps) {
      CHECK_FALSE(g.expected);
      continue;
    }
    ++flaps;
    REQUIRE(g.expected);
    CHECK(g.expected->baseline == 6);
    CHECK(g.expected->candidate == 8);
  }
  CHECK(flaps == 1);
}
