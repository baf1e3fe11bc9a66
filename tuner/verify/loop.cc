#include "tuner/verify/loop.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/core.h>

#include "tuner/verify/guard_decision.h"
#include "tuner/verify/soak.h"
#include "tuner/verify/stats.h"

namespace tuner::verify {

namespace {

nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

Direction direction_of(bench::Direction d) {
  return d == bench::Direction::lower ? Direction::lower : Direction::higher;
}

}  // namespace

nlohmann::json stats_json(const Stats& s, const std::string& bench, const std::string& unit,
                          Verdict verdict) {
  return {{"bench", bench},
          {"unit", unit},
          {"verdict", std::string(verdict_name(verdict))},
          {"baseline", number_or_null(s.baseline_median)},
          {"candidate", number_or_null(s.candidate_median)},
          {"effect", number_or_null(s.effect)},
          {"ci", {number_or_null(s.ci_low), number_or_null(s.ci_high)}},
          {"ci_level", s.ci_level},
          {"p", number_or_null(s.p)},
          {"trials", {{"baseline", s.trials}, {"candidate", s.trials}}},
          {"look", s.look},
          {"looks", s.looks},
          {"alpha_spent", s.alpha_spent},
          {"scale", std::string(scale_name(s.scale))}};
}

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
  nlohmann::json watches = nlohmann::json::array();  // each watch's numbers
  std::vector<std::string> watch_harm;               // "benchmark NAME: effect ..." for proven harm
  std::string failure;                               // the benchmark failed: why
  bool over_budget = false;

  bool tripped() const { return !trips.empty() || !watch_harm.empty(); }
  bool hurts() const { return failure.empty() && (decision.verdict == Verdict::harm || tripped()); }
};

namespace {

using Measured = VerifyLoop::Measured;

/// The numbers of a measurement, as journaled and reported.
nlohmann::json measured_json(const Measured& m, const std::string& bench, Design design) {
  nlohmann::json j = stats_json(m.decision.stats, bench, m.arms.unit, m.decision.verdict);
  j["design"] = std::string(design_name(design));
  j["trials"] = {{"baseline", m.arms.baseline.size()}, {"candidate", m.arms.candidate.size()}};
  j["guards"] = guards_json(m.arms.guards_baseline, m.arms.guards_candidate, m.trips);
  if (!m.watches.empty()) j["watches"] = m.watches;
  if (!m.failure.empty()) {
    j["error"] = m.failure;
  } else if (m.tripped()) {
    std::string text;
    for (const auto& t : m.trips) text += (text.empty() ? "" : "; ") + t.text;
    for (const auto& t : m.watch_harm) text += (text.empty() ? "" : "; ") + t;
    j["error"] = "guard tripped: " + text;
  }
  return j;
}

/// Keep or roll back, and why, from a measurement of the whole group (or of what a
/// bisect left of it).
std::pair<GroupDecision, std::string> classify(const Measured& m, bool keep_if_neutral) {
  using D = GroupDecision;
  if (!m.failure.empty()) return {D::rolled_back, "bench_failed"};
  if (m.tripped()) return {D::rolled_back, "guard"};
  if (m.decision.verdict == Verdict::keep) return {D::kept, "gain"};
  if (m.decision.verdict == Verdict::harm) return {D::rolled_back, "harm"};
  if (keep_if_neutral) return {D::kept, "neutral_kept"};
  if (m.over_budget) return {D::rolled_back, "budget"};
  return {D::rolled_back, std::string(verdict_name(m.decision.verdict))};
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
  std::vector<Arm> order = trial_order(g.design, cfg.max_trials, options_.seed, options_.block);
  Measured out;
  unsigned k = 0;
  for (Arm arm : order) {
    if (clock_.now() - started_ > options_.budget) {
      out.over_budget = true;
      break;
    }
    auto ok = run_trial(g, candidate, arm, out.arms, &out.failure);
    if (!ok.ok()) return ok.error();
    if (!*ok) break;
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
    }
    if (progress_)
      progress_({g.name, step, k, static_cast<unsigned>(order.size()), arm, out.decision.stats});
    if (out.decision.verdict != Verdict::more_trials) break;
  }
  if (out.decision.verdict == Verdict::more_trials && out.failure.empty())
    out.decision.verdict = Verdict::inconclusive;
  if (out.failure.empty()) {
    out.trips = guard_trips(out.arms.guards_baseline, out.arms.guards_candidate, options_.guards);
    check_watches(cfg, out);
  }
  return out;
}

void VerifyLoop::check_watches(Config cfg, Measured& out) {
  // The same test as the main metric, at the same trials, asked only about harm: a
  // watch does not have to improve, it must not be proven worse.
  for (const Arms::Watch& w : out.arms.watches) {
    std::size_t n = std::min(w.baseline.size(), w.candidate.size());
    if (n < cfg.min_trials) continue;
    cfg.direction = w.direction;
    cfg.min_trials = std::min<unsigned>(cfg.min_trials, static_cast<unsigned>(n));
    std::span<const double> a(w.baseline.data(), n), b(w.candidate.data(), n);
    auto d = decide(cfg, a, b);
    if (!d.ok()) continue;
    bool harm = d->verdict == Verdict::harm;
    nlohmann::json j = stats_json(d->stats, w.bench, w.unit, d->verdict);
    j["tripped"] = harm;
    out.watches.push_back(std::move(j));
    if (harm)
      out.watch_harm.push_back(fmt::format("benchmark {}: effect {:+.1f}% [{:+.1f}%, {:+.1f}%]",
                                           w.bench, 100 * d->stats.effect, 100 * d->stats.ci_low,
                                           100 * d->stats.ci_high));
  }
}

Result<GroupOutcome> VerifyLoop::verify_group(const GroupPlan& g) {
  GroupOutcome out;
  if (!g.bench) {
    // Nothing here can see this group's effect: say so; keep it only when asked to.
    out.stats = {{"reason", "no benchmark on this node can measure this group"}};
    if (g.keep_if_neutral) {
      // The node's own traffic is the witness: guards before and after the write.
      SoakOptions so{
          g.soak.value_or(options_.soak), options_.guards, options_.guard_interfaces, {}};
      auto soaked = soak_group(root_, clock_, so, [&] { return run_.write_group(g.name); });
      if (!soaked.ok()) return soaked.error();
      if (soaked->ran) out.stats["soak"] = soaked->json;
      out.decision = soaked->tripped ? GroupDecision::rolled_back : GroupDecision::kept;
      out.reason = soaked->tripped ? "guard" : "not_measurable_kept";
      if (soaked->tripped) {
        out.stats["error"] = "guard tripped: " + tripped_text(*soaked);
        live_ = run_.written_knobs(g.name);
        if (auto s = set_live(g.name, {}); !s.ok()) return s.error();
      }
    } else {
      out.decision = GroupDecision::rolled_back;
      out.reason = "not_measurable";
    }
    out.stats["outcome"] = out.reason;
    if (Status s = run_.decide(g.name, out.decision, out.stats); !s.ok()) return s.error();
    return out;
  }

  if (Status s = run_.write_group(g.name); !s.ok()) return s.error();
  std::vector<std::string> written = run_.written_knobs(g.name);
  live_ = written;
  overhead_ms_.clear();
  Config cfg = options_.decision;
  if (g.design == Design::blocked) cfg.min_trials = cfg.look_every = 2 * options_.block;
  if (cfg.max_trials < cfg.min_trials) cfg.max_trials = cfg.min_trials;
  Config whole_cfg = cfg;
  if (g.keep_if_neutral) whole_cfg.power_effect = 0.0;  // stop early only on proven harm

  auto m = measure(g, written, whole_cfg, "");
  if (!m.ok()) return m.error();
  auto [decision, reason] = classify(*m, g.keep_if_neutral);
  out.decision = decision;
  out.reason = reason;
  out.stats = measured_json(*m, g.bench->name(), g.design);

  bool bisectable = reason == "harm" || reason == "guard" || reason == "no_gain" ||
                    reason == "inconclusive";
  if (decision == GroupDecision::rolled_back && g.bisect && written.size() > 1 && bisectable) {
    auto b = bisect(g, cfg, std::move(out));
    if (!b.ok()) return b.error();
    out = std::move(b).value();
  }
  out.stats["outcome"] = out.reason;
  if (!overhead_ms_.empty())
    out.stats["overhead_ms"] = {
        {"median", median(overhead_ms_)},
        {"max", *std::max_element(overhead_ms_.begin(), overhead_ms_.end())}};
  // Leave the machine as decided: the last trial may have run on either arm.
  if (out.decision == GroupDecision::rolled_back) {
    if (auto s = set_live(g.name, {}); !s.ok()) return s.error();
  } else if (out.reason != "partly_kept") {  // bisect() left the rest live
    if (auto s = set_live(g.name, written); !s.ok()) return s.error();
  }
  if (Status s = run_.decide(g.name, out.decision, out.stats); !s.ok()) return s.error();
  return out;
}

Result<GroupOutcome> VerifyLoop::bisect(const GroupPlan& g, const Config& cfg, GroupOutcome whole) {
  // Halve the set that hurts until a half does not hurt alone: a knob that hurts is
  // found in log2(n) steps of two measurements at most. When neither half hurts alone
  // the knobs hurt only together (or the group only failed to help): the set stays.
  std::vector<std::string> written = run_.written_knobs(g.name);
  nlohmann::json steps = nlohmann::json::array();
  std::vector<std::string> suspects = written;
  bool complete = true;
  std::string stopped;
  auto try_subset = [&](const std::vector<std::string>& subset) -> Result<std::optional<bool>> {
    auto m = measure(g, subset, cfg, "bisect " + join(subset));
    if (!m.ok()) return m.error();
    nlohmann::json j = measured_json(*m, g.bench->name(), g.design);
    j["knobs"] = subset;
    std::string verdict = m->hurts()            ? (m->trips.empty() ? "harm" : "guard")
                          : !m->failure.empty() ? "bench_failed"
                          : m->over_budget      ? "budget"
                                                : "no_harm";
    j["outcome"] = verdict;
    steps.push_back(std::move(j));
    if (!m->failure.empty() || m->over_budget) {
      stopped = verdict;
      return std::optional<bool>();
    }
    return std::optional<bool>(m->hurts());
  };
  while (suspects.size() > 1 && complete) {
    std::size_t half = suspects.size() / 2;
    std::vector<std::string> first(suspects.begin(), suspects.begin() + static_cast<long>(half));
    std::vector<std::string> second(suspects.begin() + static_cast<long>(half), suspects.end());
    bool narrowed = false;
    for (const auto* part : {&first, &second}) {
      auto hurts = try_subset(*part);
      if (!hurts.ok()) return hurts.error();
      if (!hurts->has_value()) {
        complete = false;
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
  nlohmann::json b = {{"steps", steps}, {"complete", complete}};
  if (!complete) {
    b["note"] = "bisect stopped: " + stopped;
    out.stats["bisect"] = b;
    return out;
  }
  b["culprit"] = suspects;
  if (suspects.size() == written.size()) {
    b["note"] = "no part of the group hurts on its own";
    out.stats["bisect"] = b;
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
  nlohmann::json r = measured_json(*m, g.bench->name(), g.design);
  r["knobs"] = rest;
  r["outcome"] = reason;
  b["rest"] = r;
  if (decision == GroupDecision::kept) {
    if (auto s = set_live(g.name, rest); !s.ok()) return s.error();
    out.decision = GroupDecision::kept;
    out.reason = "partly_kept";
    b["note"] = "kept without " + join(suspects);
  } else {
    b["note"] = "the rest of the group, without " + join(suspects) + ", was not kept: " + reason;
  }
  out.stats["bisect"] = b;
  return out;
}

}  // namespace tuner::verify
