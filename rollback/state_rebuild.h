// Rebuilding state.json from the journals: the way out when state.json is damaged
// (rollback/README.md "Ways out"). Every change to state.json is the consequence of a
// journaled record (a group's decision keeps its knobs, a rollback record lets one
// go), so replaying the journals oldest first gives back what it held.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "rollback/state.h"
#include "rollback/state_dir.h"

namespace tuner {

struct RebuiltState {
  State state;
  unsigned runs = 0;  // journals replayed
  /// Damaged records skipped and journals that could not be read: what the rebuilt
  /// state may lack.
  std::vector<std::string> warnings;
  /// Where the old state.json went ("" when there was none).
  std::string moved_to;
};

/// What state.json should hold, from the journals alone. Restore runs re-apply what
/// is kept and change nothing in it, so they are skipped.
Result<RebuiltState> rebuild_state(const StateDir& dir);

/// rebuild_state, then moves the old state.json aside (state.json.bad-<UTC time>, kept
/// for a person to compare) and writes the rebuilt one atomically.
Result<RebuiltState> rewrite_state(const StateDir& dir);

}  // namespace tuner
