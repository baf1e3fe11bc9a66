// Which knob kinds a test's cases leave out. The tests that must cover every kind (the
// id round trip, plan/apply parity, the apply-plan-rollback round trip) collect the
// kinds their cases name and ask this which rows of kAllKnobKinds have none: so a kind
// added to the table without its cases fails them (the parity test shows it with a
// fake kind).
#pragma once

#include <set>
#include <span>
#include <string>
#include <vector>

#include "tuner/knobs/knob_kinds.h"

namespace tuner::testing {

enum class Kinds {
  all,           // every kind has a case
  from_profile,  // every kind a profile can ask for (KnobKindInfo::from_profile)
};

/// The names of the kinds in `table` that `covered` lacks, as "nic_xps, mm_thp" (a
/// string, so that a failed CHECK prints it); empty when every kind has its case.
inline std::string uncovered_kinds(std::span<const KnobKindInfo> table,
                                   const std::set<std::string>& covered, Kinds which) {
  std::string out;
  for (const KnobKindInfo& k : table)
    if ((which == Kinds::all || k.from_profile) && !covered.contains(std::string(k.name)))
      out += (out.empty() ? "" : ", ") + std::string(k.name);
  return out;
}

/// The kinds' names of the ids (an id that does not parse adds none).
inline std::set<std::string> kinds_of(const std::vector<std::string>& ids) {
  std::set<std::string> out;
  for (const std::string& id : ids)
    if (auto k = parse_knob_id(id); k.ok()) out.emplace(knob_kind_info(k->kind).name);
  return out;
}

}  // namespace tuner::testing
