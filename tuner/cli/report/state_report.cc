#include "tuner/cli/report/state_report.h"

#include <fmt/core.h>

namespace tuner {

nlohmann::json status_json(const std::vector<KeptReading>& knobs,
                           const std::optional<RunSummary>& unfinished) {
  nlohmann::json items = nlohmann::json::array();
  unsigned drift = 0;
  for (const KeptReading& k : knobs) {
    drift += k.drifted();
    nlohmann::json item{{"knob", k.knob},
                        {"kept", k.kept},
                        {"before", k.before},
                        {"run_id", k.run_id},
                        {"group", k.group},
                        {"drift", k.drifted()},
                        {"live", k.live ? nlohmann::json(*k.live) : nlohmann::json()}};
    if (!k.error.empty()) item["error"] = k.error;
    items.push_back(std::move(item));
  }
  return {{"schema", "tuner.status/1"},
          {"knobs", items},
          {"drift", drift},
          {"unfinished_run", unfinished ? nlohmann::json(unfinished->run_id) : nlohmann::json()}};
}

std::string format_status(const std::vector<KeptReading>& knobs,
                          const std::optional<RunSummary>& unfinished, const Term& term) {
  std::string text;
  unsigned drift = 0;
  for (const KeptReading& k : knobs) {
    drift += k.drifted();
    if (!k.drifted()) text += fmt::format("  {}  {} = {}\n", term.green("ok   "), k.knob, k.kept);
    else
      text += fmt::format("  {}  {}: kept {}, live {}\n", term.red("drift"), k.knob, k.kept,
                          k.live ? *k.live : "unreadable (" + k.error + ")");
  }
  if (knobs.empty()) text = "no kept settings\n";
  else text = fmt::format("{} kept settings, {} drifted\n", knobs.size(), drift) + text;
  if (unfinished)
    text += term.red("unfinished run ") + unfinished->run_id + ": undo it with 'tuner rollback'\n";
  return text;
}

nlohmann::json history_json(const std::vector<RunSummary>& runs) {
  nlohmann::json j{{"schema", "tuner.history/1"}, {"runs", nlohmann::json::array()}};
  for (const auto& r : runs)
    j["runs"].push_back({{"run_id", r.run_id},
                         {"kind", r.kind},
                         {"time", r.time},
                         {"status", run_status_name(r.status)},
                         {"profiles", r.profiles},
                         {"changes", r.intents},
                         {"done", r.done},
                         {"skipped", r.skipped},
                         {"failed", r.failed},
                         {"restored", r.restored}});
  return j;
}

std::string format_history(const std::vector<RunSummary>& runs, const Term& term) {
  std::string out;
  for (const auto& r : runs) {
    std::string status = run_status_name(r.status);
    if (r.unfinished()) status = term.red(status);
    else if (r.status == RunStatus::finished) status = term.green(status);
    std::string profiles;
    for (const auto& p : r.profiles) profiles += (profiles.empty() ? "" : ",") + p;
    out += fmt::format(
        "{}  {:<8} {:<16} {:<20} {} changes, {} done, {} skipped, {} failed, {} restored\n",
        r.run_id, r.kind, status, profiles.empty() ? "-" : profiles, r.intents, r.done, r.skipped,
        r.failed, r.restored);
  }
  return out;
}

}  // namespace tuner
