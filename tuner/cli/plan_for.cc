#include "tuner/cli/plan_for.h"

#include <algorithm>

#include <fmt/core.h>

#include "base/strings.h"

#include "tuner/plan/planner.h"
#include "tuner/profile/match.h"
#include "tuner/profile/profile.h"
#include "tuner/verify/loop.h"
#include "tuner/verify/search.h"
#include "tuner/verify/time_bound.h"

namespace tuner {

void add_selection_options(boost::program_options::options_description& desc) {
  desc.add_options()("strict",
                     "without --profile: a profile in the search path that fails to load is an "
                     "error (exit 2), not a warning");
}

Plan plan_for(const GlobalOptions& g, const std::vector<std::string>& names, const Target& target,
              bool strict) {
  return plan_with_context(g, names, target, strict).plan;
}

Profile load_profiles(const GlobalOptions& g, const std::vector<std::string>& names,
                      const Inventory& inventory, bool strict) {
  std::vector<std::string> search = profile_search_path(g.profile_path);
  std::vector<std::string> chosen = names;
  if (chosen.empty()) {
    std::vector<Error> broken;
    auto best = best_profile(search, inventory, &broken);
    // A broken profile left out of the choice may be the one meant for this machine.
    for (const Error& e : broken) {
      if (strict)
        fail_input("a profile in the search path does not load (--strict): " + e.message());
      fmt::print(stderr, "tuner: warning: left out of automatic selection: {}\n",
                 escape_controls(e.message()));
    }
    if (!best.ok()) fail_input(best.error().message());
    chosen.push_back(*best);
  }
  std::vector<Profile> profiles;
  for (const std::string& name : chosen) {
    auto p = load_profile(name, search);
    if (!p.ok()) fail_input(p.error().message());
    profiles.push_back(std::move(p).value());
  }
  Profile merged = profiles.size() == 1 ? std::move(profiles.front()) : merge_profiles(profiles);
  if (Status s = check_bench_names(merged); !s.ok()) fail_input(s.error().message());
  return merged;
}

Planned plan_with_context(const GlobalOptions& g, const std::vector<std::string>& names,
                          const Target& target, bool strict) {
  Inventory inventory = probe_target(target);
  Profile merged = load_profiles(g, names, inventory, strict);
  auto plan = make_plan(merged, inventory, target);
  if (!plan.ok()) fail_input(plan.error().message());
  verify::fill_time_bounds(merged, *plan);
  if (auto total = verify_worst_case(*plan); total > plan->verify_budget) {
    auto m = std::chrono::ceil<std::chrono::minutes>(total).count();
    plan->notes.push_back(fmt::format(
        "verifying this plan can take up to {} min, more than the {} s apply gives it without "
        "--budget ({}): the groups kept only on a proven gain are decided first and go back "
        "as 'budget' when it runs out; those kept unless harmed share what is left. "
        "apply --budget {}m verifies every group in full",
        m, plan->verify_budget.count(),
        merged.verify.budget ? "the profile's [verify] budget" : "the default", m));
  }
  return {std::move(merged), std::move(inventory), std::move(plan).value()};
}

}  // namespace tuner
