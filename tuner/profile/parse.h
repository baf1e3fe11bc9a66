// One profile file, parsed and validated, before its includes are resolved.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "tuner/profile/profile.h"

namespace tuner {

/// An entry of [profile].include: a name or a path, and where it was written.
struct IncludeRef {
  std::string target;
  SourceLoc loc;
};

struct ProfileFile {
  Profile profile;                   // this file's own settings; groups' members not applied
  std::vector<IncludeRef> includes;  // in the order written
  bool name_set = false;             // [profile].name was given
};

/// Parses and validates one profile's TOML text. `file` names it in errors
/// ("file:line:col: unknown key 'polcy' in [irq."mlx5*"]; did you mean 'policy'?").
/// Unknown keys, wrong types and impossible values are errors; whether a sysctl key
/// exists or a cpulist fits the machine is the planner's business.
Result<ProfileFile> parse_profile_file(std::string_view text, const std::string& file);

}  // namespace tuner
