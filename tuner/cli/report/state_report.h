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

/// One kept setting against its live value.
struct KeptReading {
  std::string knob, kept, before, run_id, group;
  std::optional<std::string> live;  // nullopt: could not be read (error says why)
  std::string error;
  bool drifted() const { return !live || *live != kept; }
};

nlohmann::json status_json(const std::vector<KeptReading>& knobs,
                           const std::optional<RunSummary>& unfinished);
std::string format_status(const std::vector<KeptReading>& knobs,
                          const std::optional<RunSummary>& unfinished, const Term& term);

nlohmann::json history_json(const std::vector<RunSummary>& runs);
/// One line per run, newest first as given.
std::string format_history(const std::vector<RunSummary>& runs, const Term& term);

}  // namespace tuner
