#include "tuner/verify/loop.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/interrupt.h"
#include "tuner/verify/guard_decision.h"
#include "tuner/verify/loop_measured.h"
#include "tuner/verify/soak.h"
#include "tuner/verify/stats.h"

namespace tuner::verify {

namespace {

using Measured = VerifyLoop::Measured;

/// The knobs in one of a and b but not both: what a flip from a to b writes.
std::vector<std::string> flipped_knobs(std::vector<std::string> a, std::vector<std::string> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::vector<std::string> out;
  std::set_symmetric_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

/// Moves what the settle windows counted into an arm's expected carrier changes.
void credit(std::map<std::string, uint64_t>& from, std::map<std::string, uint64_t>& to) {
  for (const auto& [ifname, n] : from) to[ifname] += n;
  from.clear();
}

}  // namespace

bool may_renegotiate(const std::string& id) {
  auto k = parse_knob_id(id);
  if (!k.ok()) return false;
  switch (k->kind) {
    case KnobKind::nic_link:
    case KnobKind::nic_mtu:
    case KnobKind::nic_channels:
    case KnobKind::nic_rings: return true;
    default: return false;
  }
}

std::pair<GroupDecision, Reason> classify(const VerifyLoop::Measured& m, bool keep_if_neutral) {
  using D = GroupDecision;
  if (!m.failure.empty()) return {D::rolled_back, Reason::bench_failed};
  // Before anything the numbers say: with the rest of the node's load following the
  // arms they say nothing (also for a keep_if_neutral group).
  if (m.interfered()) return {D::rolled_back, Reason::interference};
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
  std::map<std::string, uint64_t> before = carrier_changes();
  std::vector<std::string> changed = flipped_knobs(live_, live);
  if (Status s = run_.set_live(group, live); !s.ok()) return s.error();
  live_ = live;
  settle_after_write(changed, before);
  return true;
}

std::map<std::string, uint64_t> VerifyLoop::carrier_changes() const {
  std::map<std::string, uint64_t> out;
  if (options_.guard_interfaces.empty()) return out;
  auto nics = bench::sample_nic_counters(root_, options_.guard_interfaces);
  if (!nics.ok()) return out;  // the trials' own samples then fail and say why
  for (const auto& [ifname, c] : *nics) out[ifname] = c.carrier_changes;
  return out;
}

void VerifyLoop::settle_after_write(const std::vector<std::string>& changed,
                                    const std::map<std::string, uint64_t>& before) {
  // Carrier changes are counted from just before the write to the end of the window:
  // the write's own renegotiation (both directions), however late in the window it
  // comes, is expected and stays out of the trials' counts.
  auto t0 = clock_.now();
  clock_.sleep_for(options_.settle);
  if (!before.empty()) {
    std::map<std::string, uint64_t> now = carrier_changes();
    bool moved = false;
    for (const auto& [ifname, n] : now)
      if (auto b = before.find(ifname); b != before.end() && n != b->second) moved = true;
    bool link = std::any_of(changed.begin(), changed.end(), may_renegotiate);
    if ((link || moved) && options_.link_settle > options_.settle) {
      clock_.sleep_for(options_.link_settle - options_.settle);
      now = carrier_changes();
    }
    for (const auto& [ifname, n] : now)
      if (auto b = before.find(ifname); b != before.end() && n > b->second)
        settle_flaps_[ifname] += n - b->second;
  }
  last_settle_ = clock_.now() - t0;
}

Result<bool> VerifyLoop::run_trial(const GroupPlan& g, const std::vector<std::string>& candidate,
                                   Arm arm, Arms& arms, std::string* failure) {
  // The loop's own time in a trial: flipping knobs, sampling guards, deciding; not
  // the benchmark and not the settling pause.
  auto t0 = clock_.now();
  // Settle windows not yet credited (the group's first write, a bisect's setting up)
  // belong to the arm the machine is at; the flip's own to the arm it flips to.
  credit(settle_flaps_,
         live_.empty() ? arms.expected_flaps_baseline : arms.expected_flaps_candidate);
  auto flipped = set_live(g.name, arm == Arm::baseline ? std::vector<std::string>{} : candidate);
  if (!flipped.ok()) return flipped.error();
  credit(settle_flaps_,
         arm == Arm::baseline ? arms.expected_flaps_baseline : arms.expected_flaps_candidate);
  const char* side = arm == Arm::baseline ? "baseline" : "candidate";
  LoadReading load0 = read_load_before(root_, options_.interference);
  auto before = bench::sample_guards(root_, options_.guard_interfaces);
  auto b0 = clock_.now();
  auto m = g.bench->run();
  std::vector<Result<bench::Measurement>> watched;
  if (m.ok())
    for (bench::Benchmark* w : g.watches) watched.push_back(w->run());
  auto b1 = clock_.now();
  auto after = bench::sample_guards(root_, options_.guard_interfaces);
  LoadReading load1 = read_load_after(root_, options_.interference);
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
    options_.decision.direction = main.direction;
    arms.unit = main.unit;
    arms.direction_known = true;
  }
  if (arms.watches.size() != watched.size()) {
    arms.watches.clear();
    for (std::size_t i = 0; i < watched.size(); ++i) {
      const bench::Metric& w = watched[i]->metrics.front();
      arms.watches.push_back({g.watches[i]->name(), w.unit, w.direction, {}, {}});
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
  bool commands = runs_a_command(*g.bench) ||
                  std::any_of(g.watches.begin(), g.watches.end(),
                              [](const bench::Benchmark* w) { return runs_a_command(*w); });
  (arm == Arm::baseline ? arms.other_baseline : arms.other_candidate)
      .add(load0, load1, *m, commands, root_, options_.interference);
  Clock::duration settled = *flipped ? last_settle_ : Clock::duration{};
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
    // A neutral keep's share ends at or before the budget: it is what stopped it.
    if (cap_until_ && clock_.now() > *cap_until_) {
      out.capped = true;
      break;
    }
    if (clock_.now() - started_ > options_.budget) {
      out.over_budget = true;
      break;
    }
    if (wash_before(order, i, cfg.unit)) {
      // A unit must not share the state the previous unit's last flip left: flip to the
      // other arm and back before it.
      Arm other = arm == Arm::baseline ? Arm::candidate : Arm::baseline;
      credit(settle_flaps_,
             live_.empty() ? out.arms.expected_flaps_baseline : out.arms.expected_flaps_candidate);
      for (Arm a : {other, arm}) {
        if (auto s = set_live(g.name, a == Arm::baseline ? std::vector<std::string>{} : candidate);
            !s.ok())
          return s.error();
        credit(settle_flaps_, a == Arm::baseline ? out.arms.expected_flaps_baseline
                                                 : out.arms.expected_flaps_candidate);
      }
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
      // So does a load on the rest of the node that differs between the arms by a
      // floor or more without proof yet: more trials tell a steer from chance.
      if (out.decision.verdict == Verdict::keep &&
          out.decision.stats.look < out.decision.stats.looks &&
          (watches_pending(cfg, out) ||
           interference_pending(out.arms.other_baseline, out.arms.other_candidate,
                                options_.interference)))
        out.decision.verdict = Verdict::more_trials;
    }
    if (progress_)
      progress_({g.name, step, k, static_cast<unsigned>(order.size()), arm, out.decision.stats});
    if (out.decision.verdict != Verdict::more_trials) break;
  }
  if (out.decision.verdict == Verdict::more_trials && out.failure.empty())
    out.decision.verdict = Verdict::inconclusive;
  out.config = cfg;
  if (out.failure.empty()) {
    out.trips = guard_trips(out.arms.guards_baseline, out.arms.guards_candidate, options_.guards,
                            options_.guard_test);
    check_watches(cfg, out);
    out.interference = judge_interference(out.arms.other_baseline, out.arms.other_candidate,
                                          options_.interference);
  }
  return out;
}

std::string class_decision_text(const nlohmann::json& info) {
  auto text = [&](const char* key) {
    auto it = info.find(key);
    return it != info.end() && it->is_string() ? it->get<std::string>() : std::string("?");
  };
  std::vector<std::string> canaries;
  if (auto it = info.find("canaries"); it != info.end() && it->is_array())
    for (const auto& c : *it)
      if (c.is_string()) canaries.push_back(c.get<std::string>());
  std::string decision = text("decision");
  std::string what = decision == "kept"          ? "kept it: written, and watched by the soak only"
                     : decision == "rolled_back" ? "rolled it back: not written"
                     : decision == "disagree"    ? "disagree: not written"
                                                 : "did not decide it: not written";
  if (auto c = info.find("chosen"); decision == "kept" && c != info.end() && c->is_string())
    what = "chose " + c->get<std::string>() + ": written, and watched by the soak only";
  return fmt::format(
      "class {} ({}): canaries {} {}", text("class"), text("file"),
      canaries.empty() ? std::string("(none)") : fmt::format("{}", fmt::join(canaries, ", ")),
      what);
}

SoakOptions VerifyLoop::soak_options(const GroupPlan& g) const {
  // Without the flap prior: the two windows judge each other alone. The second starts
  // before the write, so a link knob's own down/up is in it (2 against none: p = 0.25).
  GuardTestConfig soak_test = options_.guard_test;
  soak_test.flap_prior.clear();
  return SoakOptions{g.soak.value_or(options_.soak), options_.guards, options_.guard_interfaces,
                     soak_test};
}

Result<GroupOutcome> VerifyLoop::reuse_group(const GroupPlan& g) {
  GroupOutcome out;
  out.class_decision = g.reuse->info;
  out.class_decision["suspect"] = false;
  out.unmeasured = class_decision_text(out.class_decision);
  if (!g.reuse->write) {
    out.decision = GroupDecision::rolled_back;
    out.reason = g.reuse->reason;
  } else {
    auto soaked =
        soak_group(root_, clock_, soak_options(g), [&] { return run_.write_group(g.name); });
    if (!soaked.ok()) return soaked.error();
    if (Status s = check_interrupt(); !s.ok()) return s.error();
    if (soaked->ran) out.soak = soaked->json;
    out.decision = soaked->tripped ? GroupDecision::rolled_back : GroupDecision::kept;
    out.reason = soaked->tripped ? Reason::guard : Reason::class_kept;
    if (soaked->tripped) {
      // This node disagrees with its class: put it back here, and say the class's
      // decision is suspect (tuner report names it).
      out.error = "guard tripped: " + tripped_text(*soaked) +
                  "; put back on this node, and the class's decision is suspect";
      out.class_decision["suspect"] = true;
      live_ = run_.written_knobs(g.name);
      if (auto s = set_live(g.name, {}); !s.ok()) return s.error();
    }
  }
  if (Status s = run_.decide(g.name, out.decision, to_json(out)); !s.ok()) return s.error();
  return out;
}

Result<GroupOutcome> VerifyLoop::verify_group(const GroupPlan& g) {
  if (g.reuse) return reuse_group(g);
  GroupOutcome out;
  if (!g.bench) {
    // Nothing here can see this group's effect: say so; keep it only when asked to.
    out.unmeasured = "no benchmark on this node can measure this group";
    if (g.keep_if_neutral) {
      // The node's own traffic is the witness: guards before and after the write.
      SoakOptions so = soak_options(g);
      auto soaked = soak_group(root_, clock_, so, [&] { return run_.write_group(g.name); });
      if (!soaked.ok()) return soaked.error();
      if (Status s = check_interrupt(); !s.ok()) return s.error();  // a cut-short window
      if (soaked->ran) out.soak = soaked->json;
      out.decision = soaked->tripped ? GroupDecision::rolled_back : GroupDecision::kept;
      // A soak that saw no workload traffic judged nothing: kept as chosen, undecided.
      bool undecided = soaked->ran && !soaked->tripped && !soaked->traffic;
      out.reason = soaked->tripped ? Reason::guard
                   : undecided     ? Reason::soak_undecided
                                   : Reason::not_measurable_kept;
      if (undecided)
        out.unmeasured += "; the guard soak saw no workload traffic: undecided, kept as chosen "
                          "(not shown harmless)";
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

  std::map<std::string, uint64_t> before_write = carrier_changes();
  if (Status s = run_.write_group(g.name); !s.ok()) return s.error();
  std::map<std::size_t, std::string> refused;
  if (g.search) {
    auto r = write_search_start(g);
    if (!r.ok()) return r.error();
    refused = std::move(r).value();
  }
  std::vector<std::string> written = run_.written_knobs(g.name);
  live_ = written;
  // The group's first write has its settle window too: a first candidate trial follows
  // it without a flip (run_trial credits it to the candidate).
  settle_flaps_.clear();
  settle_after_write(written, before_write);
  overhead_ms_.clear();
  step_index_ = 0;
  Config cfg = options_.decision;
  if (g.false_keep_rate > 0) cfg.false_keep_rate = g.false_keep_rate;
  cfg.unit = unit_trials(g.design, options_.block);
  if (g.design == Design::blocked) cfg.min_trials = cfg.look_every = 2 * cfg.unit;
  if (cfg.max_trials < cfg.min_trials) cfg.max_trials = cfg.min_trials;
  Config whole_cfg = cfg;
  if (g.keep_if_neutral) whole_cfg.power_effect = 0.0;  // stop early only on proven harm

  if (g.search) {
    auto chosen = screen(g, written, refused, out.search);
    if (!chosen.ok()) return chosen.error();
    if (!*chosen) {
      // Every candidate went in screening (or it could not finish): nothing to confirm.
      out.decision = GroupDecision::rolled_back;
      bool failed = out.search.contains("error");
      bool over_budget = failed && clock_.now() - started_ > options_.budget;
      out.reason = over_budget ? Reason::budget : failed ? Reason::bench_failed : Reason::no_gain;
      if (failed) out.error = out.search["error"].get<std::string>();
      out.run_seed = options_.seed;
      out.alpha_share = cfg.false_keep_rate;
      if (auto s = set_live(g.name, {}); !s.ok()) return s.error();
      if (Status s = run_.decide(g.name, out.decision, to_json(out)); !s.ok()) return s.error();
      ++group_index_;
      return out;
    }
  }
  std::string step = out.search.is_object() ? "confirm " + out.search.value("chosen", std::string())
                                            : "";
  if (g.time_share > 0 && g.keep_if_neutral) {
    // Its trials can only rule out harm: at most its share of what is left, so the
    // neutral-keep groups after it get theirs (verified_apply decides gain-only first).
    auto left = std::max<Clock::duration>(options_.budget - (clock_.now() - started_), {});
    cap_until_ = clock_.now() + left / g.time_share;
    out.time_cap = TimeCap{std::chrono::duration<double>(left / g.time_share).count(), false};
  }
  auto m = measure(g, written, whole_cfg, step);
  cap_until_.reset();
  if (!m.ok()) return m.error();
  if (out.time_cap) out.time_cap->reached = m->capped;
  auto [decision, reason] = classify(*m, g.keep_if_neutral);
  out.decision = decision;
  out.reason = reason;
  out.measured = comparison_of(*m, g.bench->name(), g.design);
  if (g.search) {
    const Stats& st = m->decision.stats;
    out.search["confirm"] = {{"verdict", verdict_name(m->decision.verdict)},
                             {"effect", number_or_null(st.effect)},
                             {"ci_low", number_or_null(st.ci_low)},
                             {"ci_high", number_or_null(st.ci_high)},
                             {"trials", st.trials}};
  }

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

}  // namespace tuner::verify
