#include "tuner/cli/report/state_report.h"

#include <array>

#include <fmt/core.h>

#include "base/enum_names.h"

namespace tuner {

namespace {

constexpr std::array<EnumName<LiveState>, 4> kLiveStates = {{
    {LiveState::ok, "ok"},
    {LiveState::changed, "changed"},
    {LiveState::gone, "gone"},
    {LiveState::unreadable, "unreadable"},
}};
static_assert(in_enum_order(kLiveStates));

}  // namespace

const char* live_state_name(LiveState s) { return enum_name(kLiveStates, s); }

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
                        {"state", live_state_name(k.state())},
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
    switch (k.state()) {
      case LiveState::ok:
        text += fmt::format("  {}  {} = {}\n", term.green("ok   "), k.knob, k.kept);
        break;
      case LiveState::changed:
        text += fmt::format("  {}  {}: kept {}, live {} (changed since run {} set it)\n",
                            term.red("drift"), k.knob, k.kept, *k.live, k.run_id);
        break;
      case LiveState::gone:
        text += fmt::format("  {}  {}: kept {}, gone ({})\n", term.red("gone "), k.knob, k.kept,
                            k.error);
        break;
      case LiveState::unreadable:
        text += fmt::format("  {}  {}: kept {}, live unreadable ({})\n", term.red("drift"), k.knob,
                            k.kept, k.error);
        break;
    }
  }
  if (knobs.empty()) text = "no kept settings\n";
  else text = fmt::format("{} kept settings, {} drifted\n", knobs.size(), drift) + text;
  if (unfinished)
    text += term.red("unfinished run ") + unfinished->run_id +
            ": apply refuses until it is settled: undo it with 'tuner rollback', or keep its "
            "changes with 'tuner rollback --abandon " +
            unfinished->run_id + "'\n";
  return text;
}

nlohmann::json history_json(const std::vector<RunSummary>& runs) {
  nlohmann::json j{{"schema", "tuner.history/1"}, {"runs", nlohmann::json::array()}};
  for (const auto& r : runs)
    j["runs"].push_back({{"run_id", r.run_id},
                         {"kind", r.kind ? run_kind_name(*r.kind) : ""},
                         {"time", r.time},
                         {"status", run_status_name(r.status)},
                         {"profiles", r.profiles},
                         {"changes", r.intents},
                         {"done", r.done},
                         {"skipped", r.skipped},
                         {"failed", r.failed},
                         {"restored", r.restored},
                         {"gone", r.gone},
                         {"left", r.left},
                         {"damaged", r.damaged},
                         {"error", r.error.empty() ? nlohmann::json() : nlohmann::json(r.error)}});
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
    if (!r.error.empty()) {
      out += fmt::format("{}  {}: {}\n", r.run_id, term.red("unreadable"), r.error);
      continue;
    }
    out += fmt::format(
        "{}  {:<8} {:<16} {:<20} {} change{}, {} done, {} skipped, {} failed, {} restored",
        r.run_id, r.kind ? run_kind_name(*r.kind) : "", status, profiles.empty() ? "-" : profiles,
        r.intents, r.intents == 1 ? "" : "s", r.done, r.skipped, r.failed, r.restored);
    if (r.gone) out += fmt::format(", {} gone", r.gone);
    if (!r.left.empty())
      out += fmt::format(", {} left as changed (--force restores)", r.left.size());
    out += "\n";
    for (const std::string& d : r.damaged) out += "    " + term.yellow("warning: ") + d + "\n";
  }
  return out;
}

}  // namespace tuner
