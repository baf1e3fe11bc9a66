#include "tuner/profile/group_policy.h"

namespace tuner {

GroupPolicy group_policy(const Profile& profile, const std::string& group) {
  GroupPolicy p;
  p.name = group;
  p.bench = profile.verify.bench;
  p.bisect = profile.verify.bisect;
  p.soak = profile.verify.soak;
  auto g = profile.groups.find(group);
  if (g == profile.groups.end()) return p;
  if (g->second.bench) p.bench = *g->second.bench;
  if (g->second.bisect) p.bisect = *g->second.bisect;
  if (g->second.soak) p.soak = *g->second.soak;
  p.keep_if_neutral = g->second.keep_if_neutral;
  p.peer = g->second.peer;
  return p;
}

}  // namespace tuner
