// The step `plan` and `apply` share: choose the profiles (named, or the best match),
// load and merge them, probe the target and plan. Bad profiles or impossible requests
// are usage errors (exit 2): nothing has been changed yet.
#pragma once

#include <string>
#include <vector>

#include "tuner/cli/cli.h"
#include "tuner/plan/plan.h"
#include "tuner/plan/target.h"
#include "tuner/profile/profile.h"

namespace tuner {

/// A plan with what it was made from: apply's verify loop needs the profile's
/// [verify] and [bench.*] settings and the machine's topology.
struct Planned {
  Profile profile;  // merged
  Inventory inventory;
  Plan plan;
};

/// --strict: automatic selection refuses a search path with a profile that fails to load.
void add_selection_options(boost::program_options::options_description& desc);

/// The profiles `names` names, loaded and merged (later wins); empty = the profile that
/// best matches inventory, with a warning on stderr for every profile of the search
/// path that fails to load (strict: exit 2 instead). Bad profiles, or none matching,
/// are usage errors (exit 2).
Profile load_profiles(const GlobalOptions& g, const std::vector<std::string>& names,
                      const Inventory& inventory, bool strict);
/// Plans `names` (merged, later wins; empty = the best-matching profile) for target.
/// Automatic selection warns on stderr about every profile that fails to load, or
/// with strict fails (exit 2).
Planned plan_with_context(const GlobalOptions& g, const std::vector<std::string>& names,
                          const Target& target, bool strict);
/// plan_with_context's plan alone.
Plan plan_for(const GlobalOptions& g, const std::vector<std::string>& names, const Target& target,
              bool strict);

}  // namespace tuner
