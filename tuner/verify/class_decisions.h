// A fleet's class decisions (tuner.decisions/1, docs/fleet-decisions.md), as `apply
// --decisions FILE` reads them: per hardware class and profile digest, what the class's
// canaries decided about each group. The file chooses what root writes without a
// benchmark, so it is read like a profile: a trusted regular file, bounded.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace tuner::verify {

/// The merged verdict of a class's canaries on one group.
enum class ClassVerdict {
  kept,          // at least 2 canaries, all kept it (the same value, for a search)
  rolled_back,   // at least 2 canaries, all rolled it back
  disagree,      // some kept it, some did not (or chose different values)
  insufficient,  // fewer than 2 canaries decided it, or their pooled gain has no margin
                 // over min_effect: the node verifies it itself
  needs_canary,  // 2 canaries kept it by effects too different: a third canary decides;
                 // until then the node verifies it itself
  unmeasured,    // the canaries kept it with no measurement (no benchmark, no peer): no
                 // class evidence, the node decides it itself (issue 41)
};
const char* class_verdict_name(ClassVerdict v);
std::optional<ClassVerdict> parse_class_verdict(std::string_view name);

struct ClassGroupDecision {
  ClassVerdict verdict = ClassVerdict::insufficient;
  std::optional<std::string> chosen;  // a kept search's value, as the profile writes it
  std::vector<std::string> canaries;  // the nodes that decided it
  /// The knobs the canaries wrote and where they all started (knob id -> value; nullopt:
  /// unreadable there). Absent in a file merged from older records: then no node can
  /// show it starts where they did, and each verifies the group itself.
  std::map<std::string, std::string> knobs;
  std::optional<std::map<std::string, std::optional<std::string>>> before;
};

/// Why this node's start does not fit a class decision's (its planned knobs of the group,
/// knob id -> current value, nullopt when unreadable): "" when it fits; else, for the
/// report, "sysctl:net.ipv4.tcp_fin_timeout is 10 here, the canaries started from 60".
std::string class_start_mismatch(const ClassGroupDecision& decision,
                                 const std::map<std::string, std::optional<std::string>>& planned);

struct ClassDecision {
  std::string key;             // "hw-..."
  std::string profile_digest;  // "fnv1a64:..."
  std::vector<std::string> profiles, canaries;
  std::map<std::string, ClassGroupDecision> groups;  // by group name
};

/// Bounds: past these a file is refused, not cut (a decision file is small).
inline constexpr std::size_t kMaxDecisionFileBytes = 16u << 20;
inline constexpr std::size_t kMaxDecisionClasses = 4096;
inline constexpr std::size_t kMaxDecisionGroups = 1024;
inline constexpr std::size_t kMaxDecisionKnobs = 4096;  // a group's knobs, and its before

struct ClassDecisions {
  std::string file;  // as named on the command line
  std::vector<ClassDecision> classes;

  /// The class's decision made with these profiles; nullptr when there is none.
  const ClassDecision* find(const std::string& key, const std::string& digest) const;
  /// For a node whose class is not found: what the file holds for its key ("decided
  /// with other profiles (fnv1a64:...)") or which classes it has, for the message.
  std::string why_not_found(const std::string& key, const std::string& digest) const;
};

/// Reads a tuner.decisions/1 document from its JSON. An Error names file and the
/// field at fault ("FILE: classes[2].groups[0].decision: 'maybe' is not ...").
Result<ClassDecisions> parse_class_decisions(const nlohmann::json& doc, const std::string& file);

/// Reads FILE: a trusted regular file (base/file_trust.h; as root, root's and not
/// writable by others), at most kMaxDecisionFileBytes, JSON nested at most as deep as
/// base/json_nesting.h allows, then parse_class_decisions.
Result<ClassDecisions> read_class_decisions(const std::string& file);

}  // namespace tuner::verify
