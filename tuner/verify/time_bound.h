// How long a verifying apply can spend on each group: an upper bound the plan shows
// beside each group, so that `apply --budget` can be set to cover a profile (the
// default 10 minutes does not cover every shipped one; profiles/README.md).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "tuner/plan/plan.h"
#include "tuner/profile/group_policy.h"
#include "tuner/profile/profile.h"
#include "tuner/verify/schedule.h"

namespace tuner::verify {

/// One run of benchmark `name` as the profile configures it (a built-in kind's defaults
/// without a [bench.NAME] table), at most: tcp its stream and request/response phases
/// plus 1 s to connect and wind down; latency its duration plus 0.5 s; membw its triad
/// time plus 2 s to allocate and first-touch its arrays; exec its timeout. Zero for a
/// name the profile does not know (refused before any plan is shown).
std::chrono::milliseconds bench_run_bound(const Profile& profile, const std::string& name);

/// The verify loop's time on `group` at most, on the measuring path (a peer group with
/// `apply --peer`): every benchmark of the group run in each of `runs` trials (2 x
/// max_trials; a value search's worst case) plus the settle window after each flip (a
/// flip per trial, 100 ms; in the blocked design of a group whose writes reset a link
/// or a device, a flip and a wash per block of 3, 2 s each: LoopOptions), or a guard
/// soak's two windows for a group no benchmark measures; zero for one a verifying apply
/// leaves out. The writes themselves are not counted.
std::chrono::milliseconds group_time_bound(const Profile& profile, const std::string& group,
                                           unsigned runs, Design design = Design::interleaved);

/// The group's tcp benchmarks that run against a peer (its `peer = true` copies, or a
/// [bench.NAME] with placement peer), each with `runs` runs at most: the volume the plan
/// shows.
std::vector<PlanGroup::PeerTraffic> peer_traffic(const Profile& profile, const std::string& group,
                                                 unsigned runs);

/// Fills each of the plan's searches' worst_case_runs and groups' worst_case (2 x
/// max_trials runs, or a value search's worst case when it has more), and the plan's
/// verify_budget from the profile's [verify] budget; each measured group's peer_traffic
/// and peer_wmem_needed. A group whose link-resetting
/// changes (channels, rings, MTU, link modes) are measured in A/B trials gets a plan
/// note with how many times a verifying apply may rewrite them.
void fill_time_bounds(const Profile& profile, Plan& plan);

}  // namespace tuner::verify
