// State: the settings tuner currently keeps, in <state-dir>/state.json
// ({"schema":"tuner.state/1","knobs":{id:{value,before,run_id,group,earlier:[...]}}}). `restore`
// re-applies it at boot and `status` compares it with live values. Written atomically.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/result.h"
#include "rollback/state_dir.h"

namespace tuner {

struct KeptKnob {
  std::string value;   // what tuner set and keeps
  std::string before;  // what it replaced (rollback of run_id puts this back)
  std::string run_id;  // the run that set it
  std::string group;
  /// What earlier runs kept for this knob before run_id replaced it, oldest first
  /// (each without its own `earlier`). Rolling back run_id makes the newest of
  /// them the kept value again: its value is exactly what rollback writes back.
  std::vector<KeptKnob> earlier;
};

/// An entry of state.json whose id does not parse as a knob id: nothing can restore,
/// read or roll it back. Kept as it was written (so saving state.json loses nothing a
/// person may want to see), reported by `status` and `restore`, and dropped by `tuner
/// state rebuild`, which never copies such ids from a journal.
struct DamagedKnob {
  std::string why;    // "not a knob id: ..."
  std::string group;  // its "group" when that is a string, for reports
  std::string raw;    // the entry's JSON text
};

struct State {
  std::map<std::string, KeptKnob> knobs;       // by knob id
  std::map<std::string, DamagedKnob> damaged;  // by the id as written
};

/// Parses state.json text; `where` names the file in errors. Arrays and objects nested
/// deeper than kMaxJsonNesting are refused before parsing (base/json_nesting.h). An
/// entry whose id does not parse goes to `damaged`, not to `knobs`; a field of the
/// wrong type in a good entry makes the whole file an error.
Result<State> parse_state(std::string_view text, const std::string& where);
std::string encode_state(const State& s);

/// Records that run_id now keeps `value` for knob id (replacing `before`): an entry an
/// earlier run kept moves into `earlier`.
void keep_knob(State& s, const std::string& id, KeptKnob kept);
/// Undoes run_id's entry for knob id after a rollback restored it: the newest earlier
/// entry becomes current again, or the knob is no longer kept. Returns true if the
/// state changed.
bool forget_knob(State& s, const std::string& id, const std::string& run_id);

/// Reads state.json; a missing file is an empty State.
Result<State> load_state(const StateDir& dir);
/// Writes state.json atomically: a temp file, fsync, rename over, fsync the directory.
Status save_state(const StateDir& dir, const State& s);

}  // namespace tuner
