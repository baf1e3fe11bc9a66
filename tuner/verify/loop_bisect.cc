// Bisecting a rejected group (README.md "Bisecting a rejected group"): halves measured
// alone against the baseline, by the benchmark (bisect) or, for a group no benchmark
// measures, by a guard soak (soak_bisect); the same halving serves both.
#include <algorithm>
#include <functional>
#include <optional>

#include "base/interrupt.h"
#include "tuner/verify/loop.h"
#include "tuner/verify/loop_measured.h"
#include "tuner/verify/soak.h"

namespace tuner::verify {

namespace {

/// Does this part hurt alone? true / false, or nullopt when it could not be told (a
/// benchmark failed, the budget ran out): the halving stops there.
using HurtsAlone = std::function<Result<std::optional<bool>>(const std::vector<std::string>&)>;

/// Halves `suspects` while a half hurts alone, the first half first: a knob that hurts is
/// found in log2(n) steps of two measurements at most. When neither half hurts alone
/// the knobs hurt only together: the set stays. False when a step could not be told.
Result<bool> halve(std::vector<std::string>& suspects, const HurtsAlone& hurts_alone) {
  while (suspects.size() > 1) {
    auto half = static_cast<long>(suspects.size() / 2);
    std::vector<std::string> first(suspects.begin(), suspects.begin() + half);
    std::vector<std::string> second(suspects.begin() + half, suspects.end());
    bool narrowed = false;
    for (const auto* part : {&first, &second}) {
      auto hurts = hurts_alone(*part);
      if (!hurts.ok()) return hurts.error();
      if (!hurts->has_value()) return false;
      if (**hurts) {
        suspects = *part;
        narrowed = true;
        break;
      }
    }
    if (!narrowed) break;
  }
  return true;
}

/// written less the culprit, in order.
std::vector<std::string> without(const std::vector<std::string>& written,
                                 const std::vector<std::string>& culprit) {
  std::vector<std::string> rest;
  for (const auto& k : written)
    if (std::find(culprit.begin(), culprit.end(), k) == culprit.end()) rest.push_back(k);
  return rest;
}

}  // namespace

Result<GroupOutcome> VerifyLoop::bisect(const GroupPlan& g, const Config& cfg, GroupOutcome whole) {
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
    // A part whose trials the rest of the node's load followed neither hurts nor not:
    // the halving stops there and the group goes back whole.
    step.outcome = m->interfered()       ? S::interference
                   : m->hurts()          ? (m->trips.empty() ? S::harm : S::guard)
                   : !m->failure.empty() ? S::bench_failed
                   : m->over_budget      ? S::budget
                                         : S::no_harm;
    b.steps.push_back(std::move(step));
    if (!m->failure.empty() || m->over_budget || m->interfered()) {
      stopped = step_outcome_name(b.steps.back().outcome);
      return std::optional<bool>();
    }
    return std::optional<bool>(m->hurts());
  };
  auto complete = halve(suspects, try_subset);
  if (!complete.ok()) return complete.error();
  b.complete = *complete;

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
  std::vector<std::string> rest = without(written, suspects);
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
  // A soak for a measurement: each part is soaked alone from the baseline (the whole
  // group put back first), a part that trips holds the culprit, and the rest is soaked
  // once more and kept when it passes.
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
  auto complete =
      halve(suspects, [&](const std::vector<std::string>& part) -> Result<std::optional<bool>> {
        auto r = soak_alone(part);
        if (!r.ok()) return r.error();
        BisectStep& step = b.steps.emplace_back();
        step.knobs = part;
        step.outcome = r->tripped ? StepOutcome::guard : StepOutcome::no_harm;
        step.soak = r->json;
        return std::optional<bool>(r->tripped);
      });
  if (!complete.ok()) return complete.error();
  GroupOutcome out = std::move(whole);
  b.culprit = suspects;
  if (suspects.size() == written.size()) {
    b.note = "no part of the group trips a guard on its own";
    out.bisect = std::move(b);
    return out;
  }
  std::vector<std::string> rest = without(written, suspects);
  auto r = soak_alone(rest);
  if (!r.ok()) return r.error();
  BisectRest& kept = b.rest.emplace();
  kept.knobs = rest;
  kept.outcome = r->tripped   ? Reason::guard
                 : r->traffic ? Reason::not_measurable_kept
                              : Reason::soak_undecided;
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
