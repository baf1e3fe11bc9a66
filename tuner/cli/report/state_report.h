// The documents of `tuner status` (tuner.status/1) and `tuner history` (tuner.history/1),
// as text for people and JSON for tools.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rollback/rollback.h"
#include "tuner/cli/report/term.h"

namespace tuner {

/// How a kept setting's live value stands.
enum class LiveState {
  ok,          // live is what tuner keeps
  changed,     // someone changed it since tuner set it
  gone,        // its object no longer exists (an interface, IRQ, unit, cgroup, process)
  unreadable,  // it exists but could not be read (error says why)
};
const char* live_state_name(LiveState s);

/// One kept setting against its live value.
struct KeptReading {
  std::string knob, kept, before, run_id, group;
  std::optional<std::string> live;  // nullopt: could not be read (error says why)
  std::string error;
  bool gone = false;  // the read failed because the object no longer exists
  LiveState state() const {
    if (live) return *live == kept ? LiveState::ok : LiveState::changed;
    return gone ? LiveState::gone : LiveState::unreadable;
  }
  bool drifted() const { return state() != LiveState::ok; }
};

nlohmann::json status_json(const std::vector<KeptReading>& knobs,
                           const std::optional<RunSummary>& unfinished);
std::string format_status(const std::vector<KeptReading>& knobs,
                          const std::optional<RunSummary>& unfinished, const Term& term);

nlohmann::json history_json(const std::vector<RunSummary>& runs);
/// One line per run, newest first as given.
std::string format_history(const std::vector<RunSummary>& runs, const Term& term);

}  // namespace tuner
