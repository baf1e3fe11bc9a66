// Value searches in a profile: settings written `{ search = [...] }` (DESIGN.md,
// "Value search"). The parser checks every candidate as the setting's value and keeps
// the first as the value, so a profile with searches is also an ordinary profile; the
// planner plans each candidate through with_candidate() and the verify loop picks one.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "tuner/profile/profile.h"

namespace tuner {

/// One searched setting of a profile.
struct SearchedSetting {
  /// "sysctl:KEY", "cpu:resume_latency", "mm:thp", "mm:thp_defrag", "nic:GLOB:rings.rx",
  /// "nic:GLOB:rings.tx".
  std::string setting;
  std::vector<std::string> candidates;  ///< normalised text, in the profile's order
  std::string group;                    ///< the group the setting belongs to
  SourceLoc loc;
};

/// Every searched setting, in profile order (sysctls, [nic] rules, [cpu], [mm]).
std::vector<SearchedSetting> searched_settings(const Profile& p);

/// `p` with the searched setting at candidate `i` and no search left on it. Errors:
/// no such setting, or `i` out of range.
Result<Profile> with_candidate(const Profile& p, const std::string& setting, std::size_t i);

/// At most one searched setting per group: a second one is an error naming both.
Status check_one_search_per_group(const Profile& p);

}  // namespace tuner
