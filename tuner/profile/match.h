// Which profile fits this machine: [match] conditions and automatic selection.
// Conditions only steer automatic selection; a profile named with --profile applies
// whatever its [match] says.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "probes/inventory.h"
#include "tuner/profile/profile.h"

namespace tuner {

/// True when every [match] condition holds for inv. Otherwise why_not (if given) says
/// which condition failed ("numa_nodes >=2: this machine has 1 NUMA node"). A
/// condition on something the probes could not learn does not hold.
bool profile_matches(const Profile& profile, const Inventory& inv, std::string* why_not);

/// Number of [match] conditions the profile sets: the more, the more specific.
int match_specificity(const Match& match);

/// A profile file found in the search path.
struct FoundProfile {
  std::string name;  // file name without .toml
  std::string file;  // path as found
};

/// Every *.toml in the search path, sorted by name; a name found in an earlier
/// directory hides the same name in later ones.
std::vector<FoundProfile> find_profiles(const std::vector<std::string>& search_path);

/// Among loaded profiles (a failed load never wins), the name automatic selection
/// picks: the matching profile with the most [match] conditions (ties: first name),
/// profiles without conditions never win by matching, and "balanced" is the fallback.
/// Empty when nothing fits and there is no balanced.
std::string select_profile(const std::vector<std::pair<std::string, const Profile*>>& loaded,
                           const Inventory& inv);

/// Loads every profile in the search path and selects as above; an Error when none
/// fits and there is no "balanced" profile. Profiles that fail to load are left out
/// and their errors appended to broken (when given): a broken, more specific profile
/// must not be skipped without a word.
Result<std::string> best_profile(const std::vector<std::string>& search_path, const Inventory& inv,
                                 std::vector<Error>* broken = nullptr);

}  // namespace tuner
