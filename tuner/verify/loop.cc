#include "tuner/verify/loop.h"

#include <cmath>

#include <fmt/core.h>

namespace tuner::verify {

namespace {

nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

Direction direction_of(bench::Direction d) {
  return d == bench::Direction::lower ? Direction::lower : Direction::higher;
}

nlohmann::json guards_json(const bench::GuardDelta& a, const bench::GuardDelta& b,
                           const std::vector<bench::GuardTrip>& trips) {
  nlohmann::json out = nlohmann::json::array();
  auto per_trial = [](uint64_t n, unsigned trials) {
    return trials ? static_cast<double>(n) / trials : 0.0;
  };
  out.push_back({{"metric", "tcp_retrans_pct"},
                 {"baseline", a.retrans_pct()},
                 {"candidate", b.retrans_pct()}});
  for (const auto& [name, nb] : b.nics) {
    auto it = a.nics.find(name);
    bench::NicCounters na = it == a.nics.end() ? bench::NicCounters{} : it->second;
    out.push_back({{"metric", "nic_drops"},
                   {"interface", name},
                   {"baseline", per_trial(na.drops(), a.trials)},
                   {"candidate", per_trial(nb.drops(), b.trials)}});
    out.push_back({{"metric", "nic_errors"},
                   {"interface", name},
                   {"baseline", per_trial(na.errors(), a.trials)},
                   {"candidate", per_trial(nb.errors(), b.trials)}});
    out.push_back({{"metric", "link_flaps"},
                   {"interface", name},
                   {"baseline", per_trial(na.carrier_changes, a.trials)},
                   {"candidate", per_trial(nb.carrier_changes, b.trials)}});
  }
  for (nlohmann::json& g : out) {
    g["tripped"] = false;
    for (const bench::GuardTrip& t : trips)
      if (g["metric"] == bench::guard_metric_name(t.metric) &&
          g.value("interface", std::string()) == t.interface) {
        g["tripped"] = true;
        g["limit"] = t.max_increase;
        g["text"] = t.text;
      }
  }
  return out;
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
};

VerifyLoop::VerifyLoop(ApplyRun& run, const Root& root, Clock& clock, LoopOptions options,
                       ProgressFn progress)
    : run_(run),
      root_(root),
      clock_(clock),
      options_(std::move(options)),
      progress_(std::move(progress)),
      started_(clock.now()) {}

Status VerifyLoop::set_arm(const std::string& group, Arm arm) {
  if (arm == current_) return Ok{};
  Status s = arm == Arm::baseline ? run_.undo_group(group) : run_.redo_group(group);
  if (!s.ok()) return s;
  current_ = arm;
  clock_.sleep_for(options_.settle);
  return Ok{};
}

Result<bool> VerifyLoop::run_trial(const GroupPlan& g, Arm arm, Arms& arms, std::string* failure) {
  if (Status s = set_arm(g.name, arm); !s.ok()) return s.error();
  const char* side = arm == Arm::baseline ? "baseline" : "candidate";
  auto before = bench::sample_guards(root_, options_.guard_interfaces);
  auto m = g.bench->run();
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
  bench::GuardDelta d = bench::guard_delta(*before, *after);
  if (arm == Arm::baseline) {
    arms.baseline.push_back(main.value);
    arms.guards_baseline += d;
  } else {
    arms.candidate.push_back(main.value);
    arms.guards_candidate += d;
  }
  return true;
}

Result<GroupOutcome> VerifyLoop::verify_group(const GroupPlan& g) {
  GroupOutcome out;
  if (!g.bench) {
    // Nothing here can see this group's effect: say so; keep it only when asked to.
    out.stats = {{"reason", "no benchmark on this node can measure this group"}};
    if (g.keep_if_neutral) {
      if (Status s = run_.write_group(g.name); !s.ok()) return s.error();
      out.decision = GroupDecision::kept;
      out.reason = "not_measurable_kept";
    } else {
      out.decision = GroupDecision::rolled_back;
      out.reason = "not_measurable";
    }
    out.stats["outcome"] = out.reason;
    if (Status s = run_.decide(g.name, out.decision, out.stats); !s.ok()) return s.error();
    return out;
  }

  if (Status s = run_.write_group(g.name); !s.ok()) return s.error();
  current_ = Arm::candidate;
  Config cfg = options_.decision;
  if (g.keep_if_neutral) cfg.power_effect = 0.0;  // stop early only on proven harm
  if (g.design == Design::blocked) cfg.min_trials = cfg.look_every = 2 * options_.block;
  if (cfg.max_trials < cfg.min_trials) cfg.max_trials = cfg.min_trials;
  std::vector<Arm> order = trial_order(g.design, cfg.max_trials, options_.seed, options_.block);

  Arms arms;
  Decision decision;
  std::string failure;
  bool over_budget = false;
  unsigned k = 0;
  for (Arm arm : order) {
    if (clock_.now() - started_ > options_.budget) {
      over_budget = true;
      break;
    }
    auto ok = run_trial(g, arm, arms, &failure);
    if (!ok.ok()) return ok.error();
    if (!*ok) break;
    ++k;
    cfg.direction = options_.decision.direction;  // known after the first trial
    if (arms.baseline.size() == arms.candidate.size()) {
      auto d = decide(cfg, arms.baseline, arms.candidate);
      if (!d.ok()) {
        failure = d.error().message();
        break;
      }
      decision = *d;
    }
    if (progress_) progress_({g.name, k, static_cast<unsigned>(order.size()), arm, decision.stats});
    if (decision.verdict != Verdict::more_trials) break;
  }
  if (decision.verdict == Verdict::more_trials && failure.empty())
    decision.verdict = Verdict::inconclusive;

  std::vector<bench::GuardTrip> trips;
  if (failure.empty())
    trips = bench::check_guards(arms.guards_baseline, arms.guards_candidate, options_.guards);

  out.stats = stats_json(decision.stats, g.bench->name(), arms.unit, decision.verdict);
  out.stats["design"] = std::string(design_name(g.design));
  out.stats["trials"] = {{"baseline", arms.baseline.size()}, {"candidate", arms.candidate.size()}};
  out.stats["guards"] = guards_json(arms.guards_baseline, arms.guards_candidate, trips);
  if (!failure.empty()) {
    out.decision = GroupDecision::rolled_back;
    out.reason = "bench_failed";
    out.stats["error"] = failure;
  } else if (!trips.empty()) {
    out.decision = GroupDecision::rolled_back;
    out.reason = "guard";
    std::string text;
    for (const auto& t : trips) text += (text.empty() ? "" : "; ") + t.text;
    out.stats["error"] = "guard tripped: " + text;
  } else if (decision.verdict == Verdict::keep) {
    out.decision = GroupDecision::kept;
    out.reason = "gain";
  } else if (decision.verdict == Verdict::harm) {
    out.decision = GroupDecision::rolled_back;
    out.reason = "harm";
  } else if (g.keep_if_neutral) {
    out.decision = GroupDecision::kept;
    out.reason = "neutral_kept";
  } else {
    out.decision = GroupDecision::rolled_back;
    out.reason = over_budget ? "budget" : std::string(verdict_name(decision.verdict));
  }
  out.stats["outcome"] = out.reason;
  Arm final_arm = out.decision == GroupDecision::kept ? Arm::candidate : Arm::baseline;
  if (Status s = set_arm(g.name, final_arm); !s.ok()) return s.error();
  if (Status s = run_.decide(g.name, out.decision, out.stats); !s.ok()) return s.error();
  return out;
}

}  // namespace tuner::verify
