// How a profile verifies each group: its benchmarks, keep_if_neutral and bisect, with
// [group.NAME] over [verify]. One answer for the plan (which shows it to a reviewer)
// and the verify loop (which acts on it).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "tuner/profile/profile.h"

namespace tuner {

struct GroupPolicy {
  std::string name;
  /// The group's `bench`, else [verify]'s. The first decides, the others watch for
  /// harm; empty: nothing measures this group ("not measurable").
  std::vector<std::string> bench;
  bool keep_if_neutral = false;            // [group.NAME] only; false when not written
  bool bisect = false;                     // [group.NAME] bisect, else [verify] bisect
  std::chrono::milliseconds soak{30'000};  // [group.NAME] soak, else [verify] soak
  bool peer = false;                       // [group.NAME] peer: measured against a peer
};

GroupPolicy group_policy(const Profile& profile, const std::string& group);

}  // namespace tuner
