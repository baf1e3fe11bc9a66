// Plan: the ordered list of changes a profile asks of this machine.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tuner/profile/group_policy.h"

namespace tuner {

struct Change {
  std::string knob;                    // "sysctl:net.core.rmem_max", "irq:57:affinity", ...
  std::string group;                   // verify-loop group
  std::optional<std::string> current;  // nullopt when it could not be read (shown as null)
  std::string desired;
  std::string reason;  // for a person: "eth2 is on NUMA node 1; queue 3 -> CPU 11"
  /// The knob of an earlier change of this plan that makes or resets this one's object
  /// (a channel change and the masks of the queues it makes or the driver rewrites):
  /// apply builds this knob, reads its before-value and writes it only after that one
  /// is written, and keeps it live only while that one is. Empty for most changes.
  std::string written_after = {};
};

/// How a group of the plan will be verified (tuner/profile/group_policy.h).
struct PlanGroup {
  std::string name;
  std::vector<std::string> bench;  // first decides, others watch; empty: not measurable
  bool keep_if_neutral = false;
  bool bisect = false;
  /// [group.NAME] peer: its tcp benchmarks run against `apply --peer ADDR`; without one
  /// the guard soak decides it.
  bool peer = false;
  /// What decides it, said beside the group in the plan (group_policy.h).
  GroupDecider decided;
  /// The verify loop's time on it at most (filled by the caller, verify's rule:
  /// tuner/verify/time_bound.h); zero when nothing measures it.
  std::chrono::seconds worst_case{0};
  /// Each tcp benchmark of the group that runs against a peer, with what it may move
  /// across the path at most (filled with worst_case): runs x run x streams.
  struct PeerTraffic {
    std::string bench;                 // as the run names it: "wan@peer"
    std::string direction;             // "in": the peer sends; "out": this node sends
    unsigned runs = 0;                 // trials of both arms, at most
    std::chrono::milliseconds run{0};  // the stream phase of one run
    unsigned streams = 1;
  };
  std::vector<PeerTraffic> peer_traffic = {};
  /// The net.ipv4.tcp_wmem maximum the peer needs for the deciding benchmark to load
  /// this group's tcp_rmem maximum (tuner/verify/peer_window.h); 0: no such need. A
  /// verifying apply asks the peer and soaks the group when it is below.
  uint64_t peer_wmem_needed = 0;
};

/// apply's --budget when none is given: the verify loop's time for the whole run.
inline constexpr std::chrono::minutes kDefaultVerifyBudget{10};

/// A searched setting (`{ search = [...] }`): every candidate planned as a stated value
/// would be, so plan/apply parity holds for each. The plan's `changes` carry the first
/// candidate's values; the verify loop writes the others (tuner/verify/search.h).
struct PlanSearch {
  std::string group;
  std::string setting;             // "sysctl:net.core.netdev_budget", "nic:eth*:rings.rx"
  std::vector<std::string> knobs;  // the knob ids it writes, in plan order
  struct Candidate {
    std::string value;                 // as the profile wrote it, normalised
    std::vector<std::string> desired;  // per knob: the value written
    bool current = false;              // every knob already has it: this is the baseline
  };
  std::vector<Candidate> candidates;
  std::string design;            // "interleaved", or "blocked" for NIC link, ring, channel knobs
  unsigned worst_case_runs = 0;  // benchmark runs, all arms (filled by the caller, verify's rule)
};

struct Plan {
  std::vector<std::string> profiles;  // the profile chain used, parents first
  std::vector<Change> changes;        // deterministic order: by group, then knob kind, then id
  std::vector<PlanGroup> groups;      // one per group of changes, in plan order
  unsigned unchanged = 0;             // settings already as desired
  /// Their knob ids (natural order): with `changes`, every setting the profiles cover,
  /// so that a tool can tell a kept setting the profiles no longer set (the Ansible
  /// module's exclusive option).
  std::vector<std::string> unchanged_knobs;
  std::vector<std::string> notes;    // things a reviewer should know (fallbacks, skips)
  std::vector<PlanSearch> searches;  // one per searched setting, in plan order of groups
  /// What `apply` without --budget gives the verify loop: the profile's [verify] budget,
  /// else kDefaultVerifyBudget (filled by the caller with the groups' worst_case).
  std::chrono::seconds verify_budget = kDefaultVerifyBudget;
};

/// Every group's worst_case together: what a verifying apply of the plan can take.
std::chrono::seconds verify_worst_case(const Plan& plan);

}  // namespace tuner
