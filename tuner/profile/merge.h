// Merge rules shared by includes and repeated --profile.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "tuner/profile/profile.h"

namespace tuner {

/// Lays over on top of base: sysctls by key, [irq]/[nic] rules by glob and binds by
/// unit or cgroup are replaced or appended; [cpu] and [mm] key by key (cpus too);
/// [verify] fields only where over set them;
/// group definitions replaced, their members accumulated; match and name taken from over.
void merge_into(Profile& base, const Profile& over);

/// One [group.*] member, with the group that lists it.
struct GroupClaim {
  std::string group;
  GroupMember member;
};

/// The members of a file's groups, in the order written.
std::vector<GroupClaim> group_claims(const Profile& file_profile);

/// Moves the settings named by claims (parents' files first, so a later file may
/// regroup a setting) into their groups. A member that names no setting, or one file
/// putting a setting in two groups, is an error at the member's file:line:col.
Status apply_group_members(Profile& profile, const std::vector<GroupClaim>& claims);

}  // namespace tuner
