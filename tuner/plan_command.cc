// tuner plan: what a profile would change on the target, as a diff or tuner.plan/1
// JSON. Read-only on every target.
#include <iostream>

#include <fmt/core.h>

#include "tuner/cli.h"
#include "tuner/plan_json.h"
#include "tuner/plan_report.h"
#include "tuner/planner.h"
#include "tuner/profile.h"
#include "tuner/target.h"
#if __has_include("tuner/profile_match.h")
#include "tuner/profile_match.h"
#define TUNER_HAVE_PROFILE_MATCH 1
#endif

namespace po = boost::program_options;

namespace tuner {
namespace {

Profile choose_profile(std::vector<std::string> names, const std::vector<std::string>& path,
                       const Inventory& inventory) {
  if (names.empty()) {
#ifdef TUNER_HAVE_PROFILE_MATCH
    auto best = best_profile(path, inventory);
    if (!best.ok()) fail_input(best.error().message());
    names = {*best};
#else
    (void)inventory;
    fail_input("no --profile given and automatic profile selection is not built in");
#endif
  }
  std::vector<Profile> profiles;
  for (const std::string& name : names) {
    auto p = load_profile(name, path);
    if (!p.ok()) fail_input(p.error().message());
    profiles.push_back(std::move(p).value());
  }
  if (profiles.size() == 1) return std::move(profiles.front());
  return merge_profiles(profiles);
}

}  // namespace

int plan_command(GlobalOptions& g, const std::vector<std::string>& args) {
  po::options_description desc("tuner plan");
  desc.add_options()
      ("profile", po::value<std::vector<std::string>>()->composing(),
       "profile name or .toml path (repeat to merge; later wins); default: best match")
      ("json", "print the tuner.plan/1 JSON document")
      ("detailed-exitcode", "exit 3 when changes are pending, 0 when there are none");
  add_target_options(desc);
  po::variables_map vm;
  if (!parse_options("plan", args, desc, {}, vm, g)) return 0;
  Target target = open_target(vm);
  Inventory inventory = probe_target(target);
  std::vector<std::string> names;
  if (vm.count("profile")) names = vm["profile"].as<std::vector<std::string>>();
  Profile profile = choose_profile(names, profile_search_path(g.profile_path), inventory);

  auto plan = make_plan(profile, inventory, target);
  if (!plan.ok()) fail_input(plan.error().message());
  if (vm.count("json")) {
    std::cout << plan_to_json(*plan).dump(2) << "\n";
  } else {
    Term term(g.color, 1);
    std::cout << format_plan(*plan, term);
  }
  if (vm.count("detailed-exitcode") && !plan->changes.empty())
    return static_cast<int>(ExitCode::changes_pending);
  return 0;
}

}  // namespace tuner
