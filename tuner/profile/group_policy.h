// How a profile verifies each group: its benchmarks, keep_if_neutral and bisect, with
// [group.NAME] over [verify]. One answer for the plan (which shows it to a reviewer)
// and the verify loop (which acts on it).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
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
  bool chosen = false;  // [group.NAME] chosen: no benchmark, soaked, kept as chosen
};

GroupPolicy group_policy(const Profile& profile, const std::string& group);

/// What decides whether a group is kept (JSON `groups[].decided_by.by` of tuner.plan/1;
/// profiles/README.md's review table names one for every shipped group).
enum class Decider {
  benchmark,  ///< a benchmark here: loopback, a namespace, a fixed peer, memory, timers, a command
  peer_benchmark,  ///< its tcp benchmarks against `apply --peer`; without one, the guard soak
  guard_soak,  ///< no benchmark: the guards on the node's own traffic before and after the write
  left_out,    ///< no benchmark and not keep_if_neutral: a verifying apply does not write it
  chosen,      ///< `chosen = true`: soaked as guard_soak, but nothing measures its gain or cost
};
const char* decider_name(Decider d);
std::optional<Decider> parse_decider(std::string_view name);

/// A group's decider, with the deciding benchmark and where it runs.
struct GroupDecider {
  Decider by = Decider::left_out;
  /// The deciding benchmark as the run names it ("tcp", "tcp@peer", "jitter"); "" for
  /// the soak and left_out.
  std::string bench;
  /// Where it measures: "loopback", "netns NAME", "peer ADDRESS", "apply --peer",
  /// "this node" (memory, timers), "this node: PROGRAM" (exec); "" without a benchmark.
  std::string where;
  std::vector<std::string> watches;  // the other benchmarks, watching for harm
  bool keep_if_neutral = false;
};

/// How `group` of `profile` will be decided by a verifying apply (with_peer's fallback
/// included: a peer group without `apply --peer` is the guard soak's, kept unless harmed).
GroupDecider group_decider(const Profile& profile, const std::string& group);

/// One line for a person: "benchmark tcp (loopback); kept only on a proven gain",
/// "a peer benchmark: tcp against apply --peer, kept unless it proves harm; without
/// --peer the guard soak on the node's traffic, kept unless it proves harm", "the guard
/// soak on the node's traffic: kept unless it proves harm (no traffic: undecided, kept as
/// chosen)", "nothing measures it: left out when verifying", "kept as chosen: ...".
std::string decided_by_text(const GroupDecider& d);

}  // namespace tuner
