#include "tuner/verify/loop.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/core.h>

#include "base/interrupt.h"
#include "tuner/verify/guard_decision.h"
#include "tuner/verify/soak.h"
#include "tuner/verify/stats.h"

namespace tuner::verify {

namespace {

Direction direction_of(bench::Direction d) {
  return d == bench::Direction::lower ? Direction::lower : Direction::higher;
}

/// A decision's numbers for one benchmark, at the trials it used.
template <typename T = BenchStats>
T bench_stats(const Decision& d, const std::string& bench, const std::string& unit) {
  T b;
  b.bench = bench;
  b.unit = unit;
  b.verdict = d.verdict;
  b.stats = d.stats;
  b.trials_baseline = b.trials_candidate = d.stats.trials;
  return b;
}

}  // namespace

struct VerifyLoop::Arms {
  std::vector<double> baseline, candidate;
  bench::GuardDelta guards_baseline, guards_candidate;
  std::string unit;
  bool direction_known = false;
  /// A watching benchmark's first metric, per arm.
  struct Watch {
    std::string bench, unit;
    Direction direction = Direction::higher;
    std::vector<double> baseline, candidate;
  };
  std::vector<Watch> watches;
};

/// One measurement of a candidate against the baseline, and how it ended.
struct VerifyLoop::Measured {
  Arms arms;
  Decision decision;
  std::vector<bench::GuardTrip> trips;
  std::vector<WatchResult> watches;     // each watch's numbers
  std::vector<std::string> watch_harm;  // "benchmark NAME: effect ..." for proven harm
  std::string failure;                  // the benchmark failed: why
  bool over_budget = false;
  std::uint64_t seed = 0;  // of the trial order
  std::string order;       // "ABBA...": the trials as run
  unsigned washes = 0;     // flips to the other arm and back between units

  bool tripped() const { return !trips.empty() || !watch_harm.empty(); }
  bool hurts() const { return failure.empty() && (decision.verdict == Verdict::harm || tripped()); }
};

namespace {

using Measured = VerifyLoop::Measured;

/// The numbers of a measurement, as journaled and reported. T: Comparison, or a bisect's
/// step or rest.
template <typename T = Comparison>
T comparison_of(const Measured& m, const std::string& bench, Design design) {
  T c = bench_stats<T>(m.decision, bench, m.arms.unit);
  c.design = design;
  c.trials_baseline = static_cast<unsigned>(m.arms.baseline.size());
  c.trials_candidate = static_cast<unsigned>(m.arms.candidate.size());
  c.guards = guard_results(m.arms.guards_baseline, m.arms.guards_candidate, m.trips);
  c.watches = m.watches;
  c.seed = m.seed;
  c.order = m.order;
  c.washes = m.washes;
  if (!m.failure.empty()) {
    c.error = m.failure;
  } else if (m.tripped()) {
    std::string text;
    for (const auto& t : m.trips) text += (text.empty() ? "" : "; ") + t.text;
    for (const auto& t : m.watch_harm) text += (text.empty() ? "" : "; ") + t;
    c.error = "guard tripped: " + text;
  }
  return c;
}

/// Keep or roll back, and why, from a measurement of the whole group (or of what a
/// bisect left of it).
std::pair<GroupDecision, Reason> classify(const Measured& m, bool keep_if_neutral) {
  using D = GroupDecision;
  if (!m.failure.empty()) return {D::rolled_back, Reason::bench_failed};
  if (m.tripped()) return {D::rolled_back, Reason::guard};
  if (m.decision.verdict == Verdict::keep) return {D::kept, Reason::gain};
  if (m.decision.verdict == Verdict::harm) return {D::rolled_back, Reason::harm};
  if (keep_if_neutral) return {D::kept, Reason::neutral_kept};
  if (m.over_budget) return {D::rolled_back, Reason::budget};
  // What is left: no_gain, or inconclusive (measure() turns more_trials into it).
  return {D::rolled_back,
          m.decision.verdict == Verdict::no_gain ? Reason::no_gain : Reason::inconclusive};
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

VerifyLoop::VerifyLoop(ApplyRun& run, const Root& root, Clock& clock, LoopOptions options,
                       ProgressFn progress)
    : run_(run),
      root_(root),
      clock_(clock),
      options_(std::move(options)),
      progress_(std::move(progress)),
      started_(clock.now()) {}

Result<bool> VerifyLoop::set_live(const std::string& group, const std::vector<std::string>& live) {
  if (live == live_) return false;
  if (Status s = run_.set_live(group, live); !s.ok()) return s.error();
  live_ = live;
  clock_.sleep_for(options_.settle);
  return true;
}

Result<bool> VerifyLoop::run_trial(const GroupPlan& g, const std::vector<std::string>& candidate,
                                   Arm arm, Arms& arms, std::string* failure) {
  // The loop's own time in a trial: flipping knobs, sampling guards, deciding; not
  // the benchmark and not the settling pause.
  auto t0 = clock_.now();
  auto flipped = set_live(g.name, arm == Arm::baseline ? std::vector<std::string>{} : candidate);
  if (!flipped.ok()) return flipped.error();
  const char* side = arm == Arm::baseline ? "baseline" : "candidate";
  auto before = bench::sample_guards(root_, options_.guard_interfaces);
  auto b0 = clock_.now();
  auto m = g.bench->run();
  std::vector<Result<bench::Measurement>> watched;
  if (m.ok())
    for (bench::Benchmark* w : g.watches) watched.push_back(w->run());
  auto b1 = clock_.now();
  auto after = bench::sample_guards(root_, options_.guard_interfaces);
  if (!m.ok()) {
    *failure = fmt::format("benchmark {} failed on the {}: {}", g.bench->name(), side,
                           m.error().message());
    return false;
  }
  if (m->metrics.empty()) {
    *failure = fmt::format("benchmark {} reported no metric", g.bench->name());
    return false;
  }
  for (std::size_t i = 0; i < watched.size(); ++i) {
    const std::string& name = g.watches[i]->name();
    if (!watched[i].ok()) {
      *failure = fmt::format("benchmark {} failed on the {}: {}", name, side,
                             watched[i].error().message());
      return false;
    }
    if (watched[i]->metrics.empty()) {
      *failure = fmt::format("benchmark {} reported no metric", name);
      return false;
    }
  }
  if (!before.ok() || !after.ok()) {
    *failure = "guard counters could not be read: " +
               (before.ok() ? after.error() : before.error()).message();
    return false;
  }
  const bench::Metric& main = m->metrics.front();
  if (!arms.direction_known) {
    options_.decision.direction = direction_of(main.direction);
    arms.unit = main.unit;
    arms.direction_known = true;
  }
  if (arms.watches.size() != watched.size()) {
    arms.watches.clear();
    for (std::size_t i = 0; i < watched.size(); ++i) {
      const bench::Metric& w = watched[i]->metrics.front();
      arms.watches.push_back({g.watches[i]->name(), w.unit, direction_of(w.direction), {}, {}});
    }
  }
  for (std::size_t i = 0; i < watched.size(); ++i) {
    auto& side_values = arm == Arm::baseline ? arms.watches[i].baseline : arms.watches[i].candidate;
    side_values.push_back(watched[i]->metrics.front().value);
  }
  bench::GuardDelta d = bench::guard_delta(*before, *after, *m);
  d.seconds = std::chrono::duration<double>(b1 - b0).count();
  if (arm == Arm::baseline) {
    arms.baseline.push_back(main.value);
    arms.guards_baseline += d;
  } else {
    arms.candidate.push_back(main.value);
    arms.guards_candidate += d;
  }
  Clock::duration settled = *flipped ? Clock::duration(options_.settle) : Clock::duration{};
  auto own = (clock_.now() - t0) - (b1 - b0) - settled;
  overhead_ms_.push_back(std::chrono::duration<double, std::milli>(own).count());
  return true;
}

Result<Measured> VerifyLoop::measure(const GroupPlan& g, const std::vector<std::string>& candidate,
                                     Config cfg, const std::string& step) {
  Measured out;
  out.seed = derive_seed(options_.seed, group_index_, step_index_++);
  std::vector<Arm> order = trial_order(g.design, cfg.max_trials, out.seed, options_.block);
  unsigned k = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    Arm arm = order[i];
    // A signal ends the run (rolled back by ApplyRun::drive): no trial after it.
    if (Status s = check_interrupt(); !s.ok()) return s.error();
    if (clock_.now() - started_ > options_.budget) {
      out.over_budget = true;
      break;
    }
    if (wash_before(order, i, cfg.unit)) {
      // A unit must not share the state the previous unit's last flip left: flip to the
      // other arm and back before it.
      Arm other = arm == Arm::baseline ? Arm::candidate : Arm::baseline;
      for (Arm a : {other, arm})
        if (auto s = set_live(g.name, a == Arm::baseline ? std::vector<std::string>{} : candidate);
            !s.ok())
          return s.error();
      ++out.washes;
    }
    auto ok = run_trial(g, candidate, arm, out.arms, &out.failure);
    if (!ok.ok()) return ok.error();
    // Not "the benchmark failed": it was stopped.
    if (Status s = check_interrupt(); !s.ok()) return s.error();
    if (!*ok) break;
    out.order += arm == Arm::baseline ? 'A' : 'B';
    ++k;
    cfg.direction = options_.decision.direction;  // known after the first trial
    if (out.arms.baseline.size() == out.arms.candidate.size()) {
      auto t0 = clock_.now();
      auto d = decide(cfg, out.arms.baseline, out.arms.candidate);
      if (!overhead_ms_.empty())
        overhead_ms_.back() += std::chrono::duration<double, std::milli>(clock_.now() - t0).count();
      if (!d.ok()) {
        out.failure = d.error().message();
        break;
      }
      out.decision = *d;
      // A keep needs every watching benchmark shown non-inferior at the same look; until
      // then the trials go on (an intersection-union test: no share of the rate spent).
      // (Proven harm on a watch, or the last look, ends it: check_watches then trips.)
      if (out.decision.verdict == Verdict::keep &&
          out.decision.stats.look < out.decision.stats.looks && watches_pending(cfg, out))
        out.decision.verdict = Verdict::more_trials;
    }
    if (progress_)
      progress_({g.name, step, k, static_cast<unsigned>(order.size()), arm, out.decision.stats});
    if (out.decision.verdict != Verdict::more_trials) break;
  }
  if (out.decision.verdict == Verdict::more_trials && out.failure.empty())
    out.decision.verdict = Verdict::inconclusive;
  if (out.failure.empty()) {
    out.trips = guard_trips(out.arms.guards_baseline, out.arms.guards_candidate, options_.guards,
                            options_.guard_test);
    check_watches(cfg, out);
  }
  return out;
}

Config VerifyLoop::watch_config(Config cfg, Direction direction) const {
  // Non-inferiority: H0 "the watch loses at least the margin" against "it loses less".
  cfg.direction = direction;
  cfg.min_effect =
      -(options_.watch_margin >= 0 ? options_.watch_margin : options_.decision.min_effect);
  return cfg;
}

bool VerifyLoop::watches_pending(const Config& cfg, const Measured& out) const {
  unsigned n = out.decision.stats.trials;
  bool pending = false;
  for (const Arms::Watch& w : out.arms.watches) {
    if (w.baseline.size() < n || w.candidate.size() < n) return false;
    std::span<const double> a = std::span(w.baseline).first(n), b = std::span(w.candidate).first(n);
    Config harm_cfg = cfg;
    harm_cfg.direction = w.direction;
    auto h = decide(harm_cfg, a, b);
    if (h.ok() && h->verdict == Verdict::harm) return false;  // proven worse: stop now
    auto d = decide(watch_config(cfg, w.direction), a, b);
    if (!d.ok() || d->stats.p > d->stats.alpha_look) pending = true;
  }
  return pending;
}

void VerifyLoop::check_watches(Config cfg, Measured& out) const {
  // The same test as the main metric, at the same trials, asked whether the watch's
  // loss is shown smaller than the margin: a watch need not improve, but a keep needs
  // it shown non-inferior, and proven harm on it (or a keep it could not back) rolls
  // the group back like a guard.
  unsigned n = out.decision.stats.trials;
  for (const Arms::Watch& w : out.arms.watches) {
    std::size_t have = std::min(w.baseline.size(), w.candidate.size());
    unsigned use = n ? std::min<unsigned>(n, static_cast<unsigned>(have))
                     : static_cast<unsigned>(have);
    if (use < cfg.min_trials) continue;
    Config wc = watch_config(cfg, w.direction);
    std::span<const double> a(w.baseline.data(), use), b(w.candidate.data(), use);
    auto d = decide(wc, a, b);
    if (!d.ok()) continue;
    bool non_inferior = d->stats.p <= d->stats.alpha_look;
    Config harm_cfg = cfg;
    harm_cfg.direction = w.direction;
    auto h = decide(harm_cfg, a, b);
    bool harm = h.ok() && h->verdict == Verdict::harm;
    bool blocks_keep = out.decision.verdict == Verdict::keep && !non_inferior;
    auto watch = bench_stats<WatchResult>(*d, w.bench, w.unit);
    watch.margin = -wc.min_effect;
    watch.non_inferior = non_inferior;
    watch.tripped = harm || blocks_keep;
    out.watches.push_back(std::move(watch));
    if (harm || blocks_keep)
      out.watch_harm.push_back(
          fmt::format("benchmark {}: effect {:+.1f}% [{:+.1f}%, {:+.1f}%], {}", w.bench,
                      100 * d->stats.effect, 100 * d->stats.ci_low, 100 * d->stats.ci_high,
                      harm ? "proven worse"
                           : fmt::format("a loss of {:.1f}% not ruled out", 100 * -wc.min_effect)));
  }
}

Result<GroupOutcome> VerifyLoop::verify_group(const GroupPlan& g) {
  GroupOutcome out;
  if (!g.bench) {
    // Nothing here can see this group's effect: say so; keep it only when asked to.
    out.unmeasured = "no benchmark on this node can measure this group";
    if (g.keep_if_neutral) {
      // The node's own traffic is the witness: guards before and after the write.
      // Without the flap prior: the soak's second window starts before the write, so a
      // link knob's own renegotiation is in it, and against a since-boot rate that one
      // expected down/up would prove itself a flap.
      GuardTestConfig soak_test = options_.guard_test;
      soak_test.flap_prior.clear();
      SoakOptions so{g.soak.value_or(options_.soak), options_.guards, options_.guard_interfaces,
                     soak_test};
      auto soaked = soak_group(root_, clock_, so, [&] { return run_.write_group(g.name); });
      if (!soaked.ok()) return soaked.error();
      if (Status s = check_interrupt(); !s.ok()) return s.error();  // a cut-short window
      if (soaked->ran) out.soak = soaked->json;
      out.decision = soaked->tripped ? GroupDecision::rolled_back : GroupDecision::kept;
      out.reason = soaked->tripped ? Reason::guard : Reason::not_measurable_kept;
      if (soaked->tripped) {
        out.error = "guard tripped: " + tripped_text(*soaked);
        live_ = run_.written_knobs(g.name);
        if (g.bisect && live_.size() > 1) {
          auto b = soak_bisect(g, so, std::move(out));
          if (!b.ok()) return b.error();
          out = std::move(b).value();
        }
        if (out.decision == GroupDecision::rolled_back)
          if (auto s = set_live(g.name, {}); !s.ok()) return s.error();
      }
    } else {
      out.decision = GroupDecision::rolled_back;
      out.reason = Reason::not_measurable;
    }
    if (Status s = run_.decide(g.name, out.decision, to_json(out)); !s.ok()) return s.error();
    return out;
  }

  if (Status s = run_.write_group(g.name); !s.ok()) return s.error();
  std::vector<std::string> written = run_.written_knobs(g.name);
  live_ = written;
  overhead_ms_.clear();
  step_index_ = 0;
  Config cfg = options_.decision;
  if (g.false_keep_rate > 0) cfg.false_keep_rate = g.false_keep_rate;
  cfg.unit = unit_trials(g.design, options_.block);
  if (g.design == Design::blocked) cfg.min_trials = cfg.look_every = 2 * cfg.unit;
  if (cfg.max_trials < cfg.min_trials) cfg.max_trials = cfg.min_trials;
  Config whole_cfg = cfg;
  if (g.keep_if_neutral) whole_cfg.power_effect = 0.0;  // stop early only on proven harm

  auto m = measure(g, written, whole_cfg, "");
  if (!m.ok()) return m.error();
  auto [decision, reason] = classify(*m, g.keep_if_neutral);
  out.decision = decision;
  out.reason = reason;
  out.measured = comparison_of(*m, g.bench->name(), g.design);

  bool bisectable = reason == Reason::harm || reason == Reason::guard ||
                    reason == Reason::no_gain || reason == Reason::inconclusive;
  if (decision == GroupDecision::rolled_back && g.bisect && written.size() > 1 && bisectable) {
    auto b = bisect(g, cfg, std::move(out));
    if (!b.ok()) return b.error();
    out = std::move(b).value();
  }
  out.run_seed = options_.seed;
  out.alpha_share = cfg.false_keep_rate;
  if (!overhead_ms_.empty())
    out.overhead_ms =
        Overhead{median(overhead_ms_), *std::max_element(overhead_ms_.begin(), overhead_ms_.end())};
  // Leave the machine as decided: the last trial may have run on either arm.
  if (out.decision == GroupDecision::rolled_back) {
    if (auto s = set_live(g.name, {}); !s.ok()) return s.error();
  } else if (out.reason != Reason::partly_kept) {  // bisect() left the rest live
    if (auto s = set_live(g.name, written); !s.ok()) return s.error();
  }
  if (Status s = run_.decide(g.name, out.decision, to_json(out)); !s.ok()) return s.error();
  ++group_index_;
  return out;
}

Result<GroupOutcome> VerifyLoop::bisect(const GroupPlan& g, const Config& cfg, GroupOutcome whole) {
  // Halve the set that hurts until a half does not hurt alone: a knob that hurts is
  // found in log2(n) steps of two measurements at most. When neither half hurts alone
  // the knobs hurt only together (or the group only failed to help): the set stays.
  std::vector<std::string> written = run_.written_knobs(g.name);
  Bisect b;
  std::vector<std::string> suspects = written;
  std::string stopped;
  // A half is asked only "does it hurt?": no early stop for futility, which would end a
  // half that helps a little before its harm or innocence shows (README.md, bisect).
  Config half_cfg = cfg;
  half_cfg.power_effect = 0.0;
  auto try_subset = [&](const std::vector<std::string>& subset) -> Result<std::optional<bool>> {
    auto m = measure(g, subset, half_cfg, "bisect " + join(subset));
    if (!m.ok()) return m.error();
    auto step = comparison_of<BisectStep>(*m, g.bench->name(), g.design);
    step.knobs = subset;
    using S = StepOutcome;
    step.outcome = m->hurts()            ? (m->trips.empty() ? S::harm : S::guard)
                   : !m->failure.empty() ? S::bench_failed
                   : m->over_budget      ? S::budget
                                         : S::no_harm;
    b.steps.push_back(std::move(step));
    if (!m->failure.empty() || m->over_budget) {
      stopped = step_outcome_name(b.steps.back().outcome);
      return std::optional<bool>();
    }
    return std::optional<bool>(m->hurts());
  };
  while (suspects.size() > 1 && b.complete) {
    std::size_t half = suspects.size() / 2;
    std::vector<std::string> first(suspects.begin(), suspects.begin() + static_cast<long>(half));
    std::vector<std::string> second(suspects.begin() + static_cast<long>(half), suspects.end());
    bool narrowed = false;
    for (const auto* part : {&first, &second}) {
      auto hurts = try_subset(*part);
      if (!hurts.ok()) return hurts.error();
      if (!hurts->has_value()) {
        b.complete = false;
        break;
      }
      if (**hurts) {
        suspects = *part;
        narrowed = true;
        break;
      }
    }
    if (!narrowed) break;
  }

  GroupOutcome out = std::move(whole);
  if (!b.complete) {
    b.note = "bisect stopped: " + stopped;
    out.bisect = std::move(b);
    return out;
  }
  b.culprit = suspects;
  if (suspects.size() == written.size()) {
    b.note = "no part of the group hurts on its own";
    out.bisect = std::move(b);
    return out;
  }
  // Verify what is left without the culprit, as a group of its own.
  std::vector<std::string> rest;
  for (const auto& k : written)
    if (std::find(suspects.begin(), suspects.end(), k) == suspects.end()) rest.push_back(k);
  Config rest_cfg = cfg;
  if (g.keep_if_neutral) rest_cfg.power_effect = 0.0;
  auto m = measure(g, rest, rest_cfg, "without " + join(suspects));
  if (!m.ok()) return m.error();
  auto [decision, reason] = classify(*m, g.keep_if_neutral);
  BisectRest& r = b.rest.emplace(comparison_of<BisectRest>(*m, g.bench->name(), g.design));
  r.knobs = rest;
  r.outcome = reason;
  if (decision == GroupDecision::kept) {
    if (auto s = set_live(g.name, rest); !s.ok()) return s.error();
    out.decision = GroupDecision::kept;
    out.reason = Reason::partly_kept;
    b.note = "kept without " + join(suspects);
  } else {
    b.note = "the rest of the group, without " + join(suspects) +
             ", was not kept: " + reason_name(reason);
  }
  out.bisect = std::move(b);
  return out;
}

Result<GroupOutcome> VerifyLoop::soak_bisect(const GroupPlan& g, const SoakOptions& so,
                                             GroupOutcome whole) {
  // The same halving as bisect(), with a soak for a measurement: each part is soaked
  // alone from the baseline (the whole group put back first), a part that trips holds
  // the culprit, and the rest is soaked once more and kept when it passes.
  std::vector<std::string> written = run_.written_knobs(g.name);
  Bisect b;
  auto soak_alone = [&](const std::vector<std::string>& part) -> Result<SoakResult> {
    if (auto s = set_live(g.name, {}); !s.ok()) return s.error();
    auto r = soak_group(root_, clock_, so, [&]() -> Status {
      if (auto s = set_live(g.name, part); !s.ok()) return s.error();
      return Ok{};
    });
    if (!r.ok()) return r.error();
    if (Status s = check_interrupt(); !s.ok()) return s.error();
    return r;
  };
  std::vector<std::string> suspects = written;
  while (suspects.size() > 1) {
    std::size_t half = suspects.size() / 2;
    std::vector<std::string> first(suspects.begin(), suspects.begin() + static_cast<long>(half));
    std::vector<std::string> second(suspects.begin() + static_cast<long>(half), suspects.end());
    bool narrowed = false;
    for (const auto* part : {&first, &second}) {
      auto r = soak_alone(*part);
      if (!r.ok()) return r.error();
      BisectStep& step = b.steps.emplace_back();
      step.knobs = *part;
      step.outcome = r->tripped ? StepOutcome::guard : StepOutcome::no_harm;
      step.soak = r->json;
      if (r->tripped) {
        suspects = *part;
        narrowed = true;
        break;
      }
    }
    if (!narrowed) break;
  }
  GroupOutcome out = std::move(whole);
  b.culprit = suspects;
  if (suspects.size() == written.size()) {
    b.note = "no part of the group trips a guard on its own";
    out.bisect = std::move(b);
    return out;
  }
  std::vector<std::string> rest;
  for (const auto& k : written)
    if (std::find(suspects.begin(), suspects.end(), k) == suspects.end()) rest.push_back(k);
  auto r = soak_alone(rest);
  if (!r.ok()) return r.error();
  BisectRest& kept = b.rest.emplace();
  kept.knobs = rest;
  kept.outcome = r->tripped ? Reason::guard : Reason::not_measurable_kept;
  kept.soak = r->json;
  if (r->tripped) {
    b.note = "the rest of the group, without " + join(suspects) + ", tripped a guard too";
  } else {
    out.decision = GroupDecision::kept;
    out.reason = Reason::partly_kept;
    b.note = "kept without " + join(suspects);
  }
  out.bisect = std::move(b);
  return out;
}

}  // namespace tuner::verify
