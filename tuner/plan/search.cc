// Value searches: each candidate of a searched setting planned as a stated value.
#include <algorithm>

#include "base/strings.h"
#include "tuner/plan/builder.h"
#include "tuner/profile/value_search.h"

namespace tuner::planner_detail {
namespace {

// Whether knob `id` is one the searched setting writes.
bool writes(const SearchedSetting& s, const std::string& id) {
  const std::string& set = s.setting;
  if (starts_with(set, "sysctl:")) return id == set;
  if (starts_with(set, "nic:"))
    return starts_with(id, "nic:") &&
           id.ends_with(set.find(":coalesce.") != std::string::npos ? ":coalesce" : ":rings");
  if (set == "cpu:resume_latency")
    return starts_with(id, "cpu:") && id.ends_with(":resume_latency");
  return id == set;  // mm:thp, mm:thp_defrag
}

// Ring changes reset the link on many drivers (ixgbe, i40e, bnxt): flip them rarely.
// Coalescing takes effect without a reset on the common drivers (the link-flap guard
// watches the ones that do).
std::string design_for(const SearchedSetting& s) {
  return starts_with(s.setting, "nic:") && s.setting.find(":rings.") != std::string::npos
             ? "blocked"
             : "interleaved";
}

}  // namespace

Status plan_searches(const Profile& profile, const Inventory& inventory,
                     const CurrentValues& current, Plan& plan) {
  if (Status st = check_one_search_per_group(profile); !st.ok()) return st;
  const std::vector<std::string> first_notes = plan.notes;  // the first candidates' plan's
  for (const SearchedSetting& s : searched_settings(profile)) {
    PlanSearch out{s.group, s.setting, {}, {}, design_for(s), 0};
    std::vector<Plan> plans;
    for (std::size_t i = 0; i < s.candidates.size(); ++i) {
      auto variant = with_candidate(profile, s.setting, i);
      if (!variant.ok()) return variant.error();
      auto p = plan_settings(*variant, inventory, current);
      if (!p.ok())
        return Error::invalid(
            "candidate " + s.candidates[i] + " of " + s.setting + ": " + p.error().what,
            p.error().where.empty() ? s.loc.str() : p.error().where);
      // What only this candidate's plan says (a CPU that keeps a stricter limit than it).
      for (const std::string& n : p->notes)
        if (std::find(first_notes.begin(), first_notes.end(), n) == first_notes.end())
          plan.notes.push_back("search of " + s.setting + ", candidate " + s.candidates[i] + ": " +
                               n);
      for (const Change& c : p->changes)
        if (c.group == s.group && writes(s, c.knob) &&
            std::find(out.knobs.begin(), out.knobs.end(), c.knob) == out.knobs.end())
          out.knobs.push_back(c.knob);
      plans.push_back(std::move(p).value());
    }
    // The current value of each knob, from whichever candidate changes it.
    std::vector<std::string> now(out.knobs.size());
    for (const Plan& p : plans)
      for (const Change& c : p.changes)
        for (std::size_t k = 0; k < out.knobs.size(); ++k)
          if (c.knob == out.knobs[k] && c.current) now[k] = *c.current;
    for (std::size_t i = 0; i < plans.size(); ++i) {
      PlanSearch::Candidate cand{s.candidates[i], now, true};
      for (const Change& c : plans[i].changes)
        for (std::size_t k = 0; k < out.knobs.size(); ++k)
          if (c.knob == out.knobs[k]) {
            cand.desired[k] = c.desired;
            cand.current = false;
          }
      out.candidates.push_back(std::move(cand));
    }
    if (out.knobs.empty()) {
      plan.notes.push_back("the search of " + s.setting + " writes no knob on this machine (" +
                           s.loc.str() + ")");
      continue;
    }
    plan.searches.push_back(std::move(out));
  }
  return Ok{};
}

}  // namespace tuner::planner_detail
