// The verify loop's value search: screening blocks of the baseline and the candidates
// in the race (search.h), then the candidate in front goes to the ordinary
// verification of verify_group on fresh trials.
#include <chrono>
#include <cmath>

#include <fmt/core.h>

#include "base/interrupt.h"
#include "tuner/verify/guard_decision.h"
#include "tuner/verify/loop.h"
#include "tuner/verify/search.h"

namespace tuner::verify {

namespace {

// The JSON of the screening: every candidate with its effect over the baseline, an
// approximate 95% interval from the pooled spread, the blocks it ran, and where it went.
nlohmann::json screen_json(const SearchPlan& sp, const Screen& s, unsigned unit) {
  nlohmann::json cands = nlohmann::json::array();
  for (std::size_t i = 0; i < s.arms.size(); ++i) {
    const ScreenArm& a = s.arms[i];
    double log_gain = std::log1p(a.effect), half = 1.96 * a.se;
    nlohmann::json c = {
        {"value", sp.values[i]},
        {"effect", number_or_null(a.effect)},
        {"ci_low", number_or_null(std::expm1(log_gain - half))},
        {"ci_high", number_or_null(std::expm1(log_gain + half))},
        {"trials", a.blocks * unit},
        {"dropped_at", a.dropped_at ? nlohmann::json(*a.dropped_at * unit) : nlohmann::json()}};
    if (a.dropped_at)
      c["dropped_for"] = !a.refused.empty() ? "refused"
                         : !a.guard.empty() ? "guard"
                         : a.behind_best    ? "behind_best"
                                            : "short_of_min_effect";
    if (!a.guard.empty()) c["guard"] = a.guard;
    if (!a.refused.empty()) c["refused"] = a.refused;
    cands.push_back(std::move(c));
  }
  return {{"knob", sp.setting},
          {"knobs", sp.knobs},
          {"candidates", std::move(cands)},
          {"blocks", s.blocks},
          {"chosen", s.best ? nlohmann::json(sp.values[*s.best]) : nlohmann::json()}};
}

}  // namespace

Status VerifyLoop::set_arm(const GroupPlan& g, const std::vector<std::string>& written,
                           std::size_t arm) {
  // Screening reports no expected carrier changes: only the last setting's window (the
  // candidate sent to confirmation) is left for the confirmation's first trial.
  settle_flaps_.clear();
  if (arm == 0) {
    auto flipped = set_live(g.name, {});
    if (!flipped.ok()) return flipped.error();
    return Ok{};
  }
  const SearchPlan& sp = *g.search;
  bool wrote = false;
  std::map<std::string, uint64_t> before = carrier_changes();
  for (std::size_t k = 0; k < sp.knobs.size(); ++k) {
    // A live knob is written by retarget itself; a journaled intent comes first.
    bool live = std::find(live_.begin(), live_.end(), sp.knobs[k]) != live_.end();
    if (Status s = run_.retarget(sp.knobs[k], sp.desired[arm - 1][k]); !s.ok()) return s;
    wrote = wrote || live;
  }
  auto flipped = set_live(g.name, written);
  if (!flipped.ok()) return flipped.error();
  // A retarget of a live knob is a write too: its settle window (the link's, for a
  // knob that may renegotiate it).
  if (wrote && !*flipped) settle_after_write(sp.knobs, before);
  return Ok{};
}

Result<std::map<std::size_t, std::string>> VerifyLoop::write_search_start(const GroupPlan& g) {
  const SearchPlan& sp = *g.search;
  std::map<std::size_t, std::string> refused;
  // Why write_group left a searched knob unwritten: its change's error.
  auto first_refusal = [&]() -> std::string {
    for (const GroupReport& gr : run_.report().groups)
      if (gr.name == g.name)
        for (const ChangeReport& c : gr.changes)
          if (c.status != ChangeStatus::applied && !c.error.empty()) return c.error;
    return "refused";
  };
  auto is_refusal = [](const Error& e) {
    return e.is(ErrorKind::refused) || e.is(ErrorKind::invalid);
  };
  std::string why;
  for (std::size_t next = 0; run_.written_knobs(g.name).size() < sp.knobs.size();) {
    refused[next] = why.empty() ? first_refusal() : why;
    if (++next >= sp.values.size()) break;
    why.clear();
    for (std::size_t k = 0; k < sp.knobs.size() && why.empty(); ++k)
      if (Status s = run_.retarget(sp.knobs[k], sp.desired[next][k]); !s.ok()) {
        if (!is_refusal(s.error())) return s.error();
        why = s.error().message();
      }
    if (!why.empty()) continue;
    if (Status s = run_.write_refused(g.name); !s.ok()) {
      if (!is_refusal(s.error())) return s.error();
      why = s.error().message();
    }
  }
  return refused;
}

Result<bool> VerifyLoop::screen(const GroupPlan& g, const std::vector<std::string>& written,
                                const std::map<std::size_t, std::string>& refused,
                                nlohmann::json& report) {
  const SearchPlan& sp = *g.search;
  ScreenConfig sc = screen_config_for(ScreenConfig{}, g.design);
  sc.min_effect = options_.decision.min_effect;
  unsigned unit = unit_trials(g.design, options_.block);
  Screen screen = start_screen(sp.values.size());
  for (const auto& [i, why] : refused) {
    screen.arms[i].refused = why;
    screen.arms[i].dropped_at = 0;
  }
  if (arms_in_race(screen).size() == 1) {
    // The kernel took none of them: nothing to screen or confirm.
    report = screen_json(sp, screen, unit);
    return false;
  }
  if (sp.values.size() == 1) {
    // One candidate besides the value the machine has: nothing to screen, it is verified
    // directly, as a stated value would be.
    screen.best = 0;
    Status s = set_arm(g, written, 1);
    if (!s.ok() && (s.error().is(ErrorKind::refused) || s.error().is(ErrorKind::invalid))) {
      // The kernel will not take the one candidate: nothing to verify, the group back.
      screen.arms[0].refused = s.error().message();
      screen.arms[0].dropped_at = 0;
      screen.best.reset();
      report = screen_json(sp, screen, unit);
      if (Status back = set_arm(g, written, 0); !back.ok()) return back.error();
      return false;
    }
    report = screen_json(sp, screen, unit);
    if (!s.ok()) return s.error();
    return true;
  }
  std::vector<std::vector<double>> values(sp.values.size() + 1);
  // Each arm's guard counters over its screening trials: a candidate that trips a guard
  // against the baseline leaves the race at the next look, as a single value would be
  // rolled back (the chosen one is guarded again in its confirmation).
  std::vector<bench::GuardDelta> guards(values.size());
  std::uint64_t seed = derive_seed(options_.seed, group_index_, step_index_++);
  unsigned trial = 0;
  unsigned most = sc.max_blocks * static_cast<unsigned>(values.size()) * unit;
  auto stop = [&](std::string failure) {
    report = screen_json(sp, screen, unit);
    report["error"] = std::move(failure);
    return false;
  };
  while (!screen.done) {
    for (std::size_t arm : block_order(arms_in_race(screen), seed + screen.blocks)) {
      if (Status s = set_arm(g, written, arm); !s.ok()) {
        // A candidate the kernel will not take (plan checked it as it checks a stated
        // value; the kernel has the last word) leaves the race with a note, the group
        // back at the baseline; anything else (the journal, the baseline) ends the run.
        bool refused = s.error().is(ErrorKind::refused) || s.error().is(ErrorKind::invalid);
        if (arm == 0 || !refused) return s.error();
        ScreenArm& a = screen.arms[arm - 1];
        a.refused = s.error().message();
        a.dropped_at = screen.blocks;
        if (screen.best == arm - 1) screen.best.reset();
        if (Status back = set_arm(g, written, 0); !back.ok()) return back.error();
        if (arms_in_race(screen).size() == 1) break;  // every candidate refused
        continue;
      }
      double sum = 0;
      for (unsigned u = 0; u < unit; ++u) {
        if (Status s = check_interrupt(); !s.ok()) return s.error();
        auto before = bench::sample_guards(root_, options_.guard_interfaces);
        auto b0 = clock_.now();
        auto m = g.bench->run();
        auto b1 = clock_.now();
        auto after = bench::sample_guards(root_, options_.guard_interfaces);
        if (Status s = check_interrupt(); !s.ok()) return s.error();  // stopped, not failed
        if (clock_.now() - started_ > options_.budget)
          return stop("the budget ran out while screening the candidates");
        if (!m.ok())
          return stop(fmt::format("benchmark {} failed while screening: {}", g.bench->name(),
                                  m.error().message()));
        if (m->metrics.empty())
          return stop(fmt::format("benchmark {} reported no metric", g.bench->name()));
        if (!before.ok() || !after.ok())
          return stop("guard counters could not be read: " +
                      (before.ok() ? after.error() : before.error()).message());
        const bench::Metric& main = m->metrics.front();
        if (!(main.value > 0) || !std::isfinite(main.value))
          return stop(fmt::format("benchmark {} reported {} {}: a search compares ratios and "
                                  "needs positive values",
                                  g.bench->name(), main.value, main.unit));
        sc.direction = main.direction;
        sum += main.value;
        bench::GuardDelta d = bench::guard_delta(*before, *after, *m);
        d.seconds = std::chrono::duration<double>(b1 - b0).count();
        guards[arm] += d;
        if (progress_) {
          Progress p{g.name,
                     fmt::format("screen {}, block {}, {} in race",
                                 arm == 0 ? "baseline" : sp.values[arm - 1], screen.blocks + 1,
                                 arms_in_race(screen).size() - 1),
                     ++trial,
                     most,
                     arm == 0 ? Arm::baseline : Arm::candidate,
                     {}};
          progress_(p);
        }
      }
      values[arm].push_back(sum / unit);
    }
    if (arms_in_race(screen).size() == 1) break;  // every candidate refused
    for (std::size_t arm : arms_in_race(screen)) {
      if (arm == 0) continue;
      auto trips = guard_trips(guards[0], guards[arm], options_.guards, options_.guard_test);
      std::string text;
      for (const bench::GuardTrip& t : trips) text += (text.empty() ? "" : "; ") + t.text;
      screen.arms[arm - 1].guard = text;
    }
    if (Status s = screen_look(sc, values, screen); !s.ok())
      return s.error().context("screening " + sp.setting);
  }
  report = screen_json(sp, screen, unit);
  if (!screen.best) return false;
  if (Status s = set_arm(g, written, *screen.best + 1); !s.ok()) return s.error();
  return true;
}

}  // namespace tuner::verify
