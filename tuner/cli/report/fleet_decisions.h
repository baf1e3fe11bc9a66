// Class decisions (docs/fleet-decisions.md): the canaries' tuner.decision/1 records,
// merged per (class key, profile digest) into the tuner.decisions/1 that
// `tuner apply --decisions` reuses on the rest of the class.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "tuner/verify/class_pool.h"

namespace tuner {

/// Bounds of a decision record. Unlike a report's facts, its names and values are not
/// cut to fit: the merged file says what the rest of the class writes, so a record past
/// them is refused (skipped and named), never shortened.
inline constexpr std::size_t kMaxDecisionText = 4096;
inline constexpr std::size_t kMaxKnobsPerDecision = 4096;   // all groups together
inline constexpr std::size_t kMaxProfilesPerDecision = 64;  // as apply --decisions reads

/// One group as one canary decided it.
struct CanaryGroup {
  std::string name;
  std::string decision;  // "kept" or "rolled_back"
  std::string reason;    // the run's reason (gain, no_gain, guard, ...); "" when absent
  /// A value search's chosen value as the profile spells it (a string); null when the
  /// group is no search.
  std::optional<std::string> chosen;
  std::map<std::string, std::string> knobs;  // knob id -> value written
  /// knob id -> the value the canary started from (nullopt: unreadable); absent in a
  /// record of an older tuner.
  std::optional<std::map<std::string, std::optional<std::string>>> before;
  /// stats.effect (relative, positive = better) and stats.p, when measured.
  std::optional<double> effect, p;
  /// The lower end of stats.ci and stats.ci_level, when measured; stats.scale and
  /// stats.direction (the class check's scale).
  std::optional<double> ci_low, ci_level;
  verify::Scale scale = verify::Scale::ratio;
  bool lower_is_better = false;
};

/// One canary's tuner.decision/1.
struct DecisionRecord {
  std::string node, source, time, run_id;
  /// The node's identity as the record states it (identity.machine_id, and the
  /// record's own node: the hostname apply saw), whatever file name or inventory alias
  /// it arrived under; empty when not stated. The merge counts canaries by it.
  std::string machine_id, hostname;
  std::string class_key;
  std::map<std::string, std::string> class_facts;
  std::vector<std::string> profiles;
  std::string profile_digest;
  /// The run's [verify] min_effect (records before issue 40 have none: their kept
  /// groups cannot pass the class check).
  std::optional<double> min_effect;
  std::vector<CanaryGroup> groups;
};

/// Reads a tuner.decision/1 (the caller has checked its schema); an Error says what is
/// wrong, with file. `node` is the document's own, else empty (the caller names it).
Result<DecisionRecord> read_decision_record(const nlohmann::json& doc, const std::string& file);

/// A class's decision on one group, from every canary that decided it.
struct MergedGroup {
  std::string name;
  /// kept, rolled_back, disagree, needs_canary, unmeasured or insufficient
  /// (docs/fleet-decisions.md "Merging").
  std::string decision;
  /// Why, for a person: "2 canaries kept it", "gpu-a01 kept it, gpu-a02 rolled it back".
  std::string why;
  std::optional<std::string> chosen;  // kept: the value every canary chose; else null
  /// The knobs the canaries wrote (kept and rolled_back: every canary's, which agree);
  /// a knob two canaries wrote differently makes the group disagree.
  std::map<std::string, std::string> knobs;
  /// Where every canary started (knob id -> value, nullopt: unreadable): a node whose
  /// planned knobs or current values differ verifies the group itself (issue 41).
  /// Absent when a canary's record has none; canaries that started from different
  /// values make the group insufficient.
  std::optional<std::map<std::string, std::optional<std::string>>> before;
  struct Canary {
    std::string node, decision, reason;
    std::optional<std::string> chosen;
    std::optional<double> effect, p, ci_low;
  };
  std::vector<Canary> canaries;  // by node
  /// The class check (class_pool.h) of a group every canary kept for a measured gain;
  /// absent otherwise. `min_effect` is the canaries' (the largest, when they differ).
  struct Check {
    verify::ClassCheckResult result;
    verify::ClassCheckConfig config;
  };
  std::optional<Check> check;
};

/// One (class key, profile digest): its canaries and their merged groups.
struct ClassDecision {
  std::string key;
  std::map<std::string, std::string> facts;  // the first canary's
  std::vector<std::string> profiles;         // the first canary's names
  std::string profile_digest;
  std::vector<std::string> canaries;  // sorted
  std::vector<MergedGroup> groups;    // by name
};

/// A node with several records of one class and profile digest: the newest counts (by
/// time, then run id, then file), the others are named.
struct OlderRecords {
  std::string node, used;
  std::vector<std::string> ignored;
  /// One identity under several names (the same record under two file names, an
  /// inventory alias and the host's FQDN): every name it came under, sorted; empty when
  /// all came under one name.
  std::vector<std::string> names;
};

/// A kept group's check for a person: "effects compatible (Q 0.41, p 0.52); +6.0%
/// pooled, lower bound +3.1% at 99% (...) against min_effect 2%".
std::string class_check_text(const MergedGroup::Check& ch);

/// What the class check assumes beyond each record's min_effect: the defaults of
/// docs/fleet-decisions.md "The class check" (min_effect is ignored: the records').
verify::ClassCheckConfig default_class_check();

/// Merges records per (class key, profile digest), by key then digest: a group is kept
/// when at least 2 canaries decided it and all kept it (a search: all chose the same
/// value, and no knob was written with two values) and, when every canary kept it for a
/// measured gain, the class check passes (compatible effects, the pooled bound clears
/// min_effect by the spread and shared-bias margin); needs_canary when 2 canaries kept
/// it with effects that differ more than node spread explains (disagree with 3 or
/// more); insufficient when the check finds no margin, or fewer than 2 decided it;
/// rolled_back when at least 2 decided it and all rolled it back, disagree when they
/// differ; unmeasured when all kept it and some with no measurement
/// (not_measurable_kept). Canaries are counted by identity (machine-id and hostname, else the name the
/// record came under): of one node's records the newest counts; `older` (when given)
/// names the others and the names one identity came under. The result depends on the records, not on their order.
std::vector<ClassDecision> merge_decisions(
    const std::vector<DecisionRecord>& records, std::vector<OlderRecords>* older = nullptr,
    const verify::ClassCheckConfig& check = default_class_check());

/// One class of tuner.decisions/1: {key, facts, profiles, profile_digest, canaries,
/// groups: [{name, decision, chosen, knobs, canaries: [{node, decision, reason, chosen,
/// effect, p, ci_low}], check}]}; check is null when the group had none.
nlohmann::json class_decision_json(const ClassDecision& c);

/// The tuner.decisions/1 document (schemas/tuner.decisions-1.schema.json); time is when
/// it was made ("YYYY-MM-DDTHH:MM:SSZ").
nlohmann::json decisions_json(const std::vector<ClassDecision>& classes, const std::string& time);

/// At least this many canaries must decide a group for the class to reuse the decision.
inline constexpr std::size_t kMinCanaries = 2;

}  // namespace tuner
