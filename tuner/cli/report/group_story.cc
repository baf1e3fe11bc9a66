#include "tuner/cli/report/group_story.h"

#include <algorithm>

#include <fmt/core.h>

#include "tuner/cli/report/progress.h"

namespace tuner {

namespace {

using verify::Reason;

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

/// "sysctl:a 1 -> 2, sysctl:b 3 -> 4": the part's knobs with the values the report
/// recorded for them (only the id where it has none).
std::string part_settings(const std::vector<std::string>& knobs,
                          const std::vector<ChangeReport>& changes) {
  std::vector<std::string> out;
  for (const std::string& k : knobs) {
    auto c = std::find_if(changes.begin(), changes.end(),
                          [&](const ChangeReport& x) { return x.knob == k; });
    out.push_back(c == changes.end() ? k : change_line(*c));
  }
  return join(out);
}

std::string part_effect(const GroupPart& p, const char* alone) {
  if (!p.measured) return p.outcome.empty() ? "" : fmt::format(" ({}: {})", alone, p.outcome);
  const verify::Stats& s = p.measured->stats;
  return fmt::format(" ({}: {}, effect {})", alone, p.outcome,
                     format_effect(s.effect, s.ci_low, s.ci_high));
}

}  // namespace

const char* reason_words(Reason r) {
  switch (r) {
    case Reason::gain: return "the gain is proven";
    case Reason::neutral_kept: return "no proven effect, and the group is keep_if_neutral";
    case Reason::no_gain: return "a gain of power_effect is ruled out";
    case Reason::harm: return "proven worse";
    case Reason::inconclusive: return "max_trials ran out with nothing proven";
    case Reason::guard: return "a guard tripped, or a watching benchmark proved harm";
    case Reason::bench_failed: return "a benchmark failed or reported nothing";
    case Reason::budget: return "the time budget ran out";
    case Reason::not_measurable: return "no benchmark can measure it: not written";
    case Reason::not_measurable_kept:
      return "no benchmark can measure it, kept because keep_if_neutral";
    case Reason::partly_kept: return "a bisect put back the settings that hurt and kept the rest";
    case Reason::class_kept: return "its class's canaries kept it and the soak saw no harm";
    case Reason::class_rolled_back: return "its class's canaries rolled it back: not written";
    case Reason::class_disagree: return "its class's canaries disagree: not written";
    case Reason::class_undecided:
      return "--require-decision, and its class has no decision: not written";
    case Reason::soak_undecided:
      return "kept as chosen: its soak saw no traffic, so nothing was judged";
    case Reason::interference:
      return "the rest of the node's load followed the arms: the measurement cannot be trusted";
  }
  return "?";
}

const char* change_status_words(ChangeStatus s) {
  switch (s) {
    case ChangeStatus::applied: return "applied";
    case ChangeStatus::skipped: return "refused by the kernel, never changed";
    case ChangeStatus::failed: return "write failed";
    case ChangeStatus::restored: return "restored";
    case ChangeStatus::rolled_back: return "rolled back";
    case ChangeStatus::restore_failed: return "rolled back, but putting it back failed";
    case ChangeStatus::not_applied: return "not written";
    case ChangeStatus::gone: return "its object is gone";
    case ChangeStatus::changed_since: return "changed by someone else since: left as it is";
  }
  return "?";
}

std::string change_line(const ChangeReport& c) {
  if (!c.before && c.after.empty()) return c.knob + " (values unknown)";
  return fmt::format("{} {} -> {}", c.knob, c.before ? *c.before : "?", c.after);
}

PartlyKept partly_kept_parts(const verify::GroupOutcome& o) {
  PartlyKept p;
  if (!o.bisect) return p;
  const verify::Bisect& b = *o.bisect;
  if (b.rest) {
    p.kept.knobs = b.rest->knobs;
    p.kept.outcome = verify::reason_name(b.rest->outcome);
    if (b.rest->soak.is_null()) p.kept.measured = *b.rest;
  }
  if (b.culprit) {
    p.rolled_back.knobs = *b.culprit;
    // The step that measured the culprit alone, the last such one.
    for (const verify::BisectStep& s : b.steps)
      if (s.knobs == *b.culprit) {
        p.rolled_back.outcome = verify::step_outcome_name(s.outcome);
        if (s.soak.is_null()) p.rolled_back.measured = s;
        else p.rolled_back.measured.reset();
      }
  }
  return p;
}

std::string group_why(GroupDecision decision, const verify::GroupOutcome* o,
                      const std::vector<ChangeReport>& changes, bool run_failed) {
  std::string refused, failed;
  for (const ChangeReport& c : changes) {
    std::string what = c.knob + (c.error.empty() ? "" : " (" + c.error + ")");
    if (c.status == ChangeStatus::skipped) refused += (refused.empty() ? "" : ", ") + what;
    if (c.status == ChangeStatus::failed) failed += (failed.empty() ? "" : ", ") + what;
  }
  std::string out;
  if (!failed.empty()) {
    out = "rolled back: the run failed writing " + failed + ", and everything was put back";
  } else if (decision == GroupDecision::rolled_back && run_failed &&
             (!o || verify::decision_of(o->reason) != GroupDecision::rolled_back)) {
    // The loop kept it (or never decided it); the run's failure put it back.
    out = o ? fmt::format("rolled back because the run failed (its own outcome: {}, {})",
                          verify::reason_name(o->reason), reason_words(o->reason))
            : "rolled back because the run failed before this group was decided";
  } else if (decision == GroupDecision::rolled_back && o &&
             verify::decision_of(o->reason) != GroupDecision::rolled_back) {
    out = fmt::format("rolled back after it was decided (its own outcome: {}, {})",
                      verify::reason_name(o->reason), reason_words(o->reason));
  } else if (o && o->reason == Reason::partly_kept) {
    PartlyKept p = partly_kept_parts(*o);
    out = "partly kept";
    if (!p.kept.knobs.empty())
      out += ": kept " + part_settings(p.kept.knobs, changes) + part_effect(p.kept, "the rest");
    if (!p.rolled_back.knobs.empty())
      out += "; rolled back " + part_settings(p.rolled_back.knobs, changes) +
             part_effect(p.rolled_back, "alone");
    if (o->measured)
      out += "; the whole group's effect was " +
             fmt::format("{:+.1f}%", 100 * o->measured->stats.effect);
  } else if (o) {
    const char* d = decision == GroupDecision::kept          ? "kept"
                    : decision == GroupDecision::rolled_back ? "rolled back"
                                                             : "applied";
    out = fmt::format("{}: {}", d, reason_words(o->reason));
  } else if (decision == GroupDecision::rolled_back && run_failed) {
    out = "rolled back because the run failed";
  } else if (decision == GroupDecision::applied) {
    out = "applied without verification";
  }
  if (!refused.empty())
    out += (out.empty() ? "" : "; ") + std::string("the kernel refused ") + refused +
           ": never changed";
  return out;
}

std::string guard_bound_text(const verify::GuardResult& g) {
  bool pct = g.metric == bench::GuardMetric::tcp_retrans_pct;
  auto v = [&](double x) { return pct ? fmt::format("{:.2f}%", x) : fmt::format("{:.3g}", x); };
  std::string out =
      fmt::format("{} -> {}{}", v(g.baseline), v(g.candidate), pct ? "" : " per trial");
  if (!g.tripped) return out;
  std::string limit = pct ? fmt::format("+{:.2f}%", g.limit) : fmt::format("+{:g}", g.limit);
  if (!g.bound) return out + ", limit " + limit + " over the baseline";
  // tcp_retrans_pct's bound is the smaller of the two (guard_decision.h): a ratio is
  // not diluted by segments that cannot retransmit.
  if (pct)
    return out + fmt::format(", proven above {} (the smaller of the baseline {} and 2 x the "
                             "baseline + {:.2f}%; limit {})",
                             v(*g.bound), limit, g.limit / 10, limit);
  return out +
         fmt::format(", proven above {} (the baseline {}; limit {})", v(*g.bound), limit, limit);
}

std::string profile_text(const std::vector<std::string>& profiles, const std::string& digest) {
  if (profiles.empty() && digest.empty()) return "";
  std::string out = profiles.empty() ? "(none recorded)" : profiles.back();
  if (profiles.size() > 1)
    out += " (parents: " + join(std::vector<std::string>(profiles.begin(), profiles.end() - 1)) +
           ")";
  if (!digest.empty()) out += ", digest " + digest;
  return out;
}

std::vector<ChangeReport> changes_from_json(const nlohmann::json& changes) {
  std::vector<ChangeReport> out;
  if (!changes.is_array()) return out;
  auto text = [](const nlohmann::json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  for (const nlohmann::json& c : changes) {
    if (!c.is_object()) continue;
    ChangeReport& r = out.emplace_back();
    r.knob = text(c, "knob");
    if (auto b = c.find("before"); b != c.end() && b->is_string()) r.before = b->get<std::string>();
    r.after = text(c, "after");
    r.error = text(c, "error");
    std::string status = text(c, "status");
    if (auto s = parse_change_status(status)) {
      r.status = *s;
    } else {
      r.status = ChangeStatus::not_applied;
      r.error = "status \"" + status + "\", unknown to this version" +
                (r.error.empty() ? "" : ": " + r.error);
    }
  }
  return out;
}

}  // namespace tuner
