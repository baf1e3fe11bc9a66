#include "rollback/run_report.h"

namespace tuner {

const char* change_status_name(ChangeStatus s) {
  switch (s) {
    case ChangeStatus::applied: return "applied";
    case ChangeStatus::skipped: return "skipped";
    case ChangeStatus::failed: return "failed";
    case ChangeStatus::restored: return "restored";
    case ChangeStatus::rolled_back: return "rolled_back";
    case ChangeStatus::restore_failed: return "restore_failed";
    case ChangeStatus::not_applied: return "not_applied";
    case ChangeStatus::gone: return "gone";
    case ChangeStatus::changed_since: return "changed_since";
  }
  return "failed";
}

std::optional<ChangeStatus> parse_change_status(std::string_view name) {
  for (ChangeStatus s :
       {ChangeStatus::applied, ChangeStatus::skipped, ChangeStatus::failed, ChangeStatus::restored,
        ChangeStatus::rolled_back, ChangeStatus::restore_failed, ChangeStatus::not_applied,
        ChangeStatus::gone, ChangeStatus::changed_since})
    if (name == change_status_name(s)) return s;
  return std::nullopt;
}

const char* group_decision_name(GroupDecision d) {
  switch (d) {
    case GroupDecision::applied: return "applied";
    case GroupDecision::kept: return "kept";
    case GroupDecision::rolled_back: return "rolled_back";
  }
  return "rolled_back";
}

const char* run_status_name(RunStatus s) {
  switch (s) {
    case RunStatus::unfinished: return "unfinished";
    case RunStatus::finished: return "finished";
    case RunStatus::rolled_back: return "rolled_back";
    case RunStatus::rollback_failed: return "rollback_failed";
    case RunStatus::abandoned: return "abandoned";
  }
  return "unfinished";
}

std::optional<RunStatus> parse_run_status(std::string_view name) {
  for (RunStatus s : {RunStatus::unfinished, RunStatus::finished, RunStatus::rolled_back,
                      RunStatus::rollback_failed, RunStatus::abandoned})
    if (name == run_status_name(s)) return s;
  return std::nullopt;
}

nlohmann::json run_message_json(const RunMessage& m) {
  nlohmann::json j{{"message", m.message}};
  if (!m.knob.empty()) j["knob"] = m.knob;
  if (!m.where.empty()) j["where"] = m.where;
  return j;
}

nlohmann::json run_report_json(const RunReport& r) {
  nlohmann::json j;
  j["schema"] = "tuner.run/1";
  j["run_id"] = r.run_id.empty() ? nlohmann::json() : nlohmann::json(r.run_id);
  j["time"] = r.time.empty() ? nlohmann::json() : nlohmann::json(r.time);
  j["changed"] = r.changed;
  j["profiles"] = r.profiles;
  j["groups"] = nlohmann::json::array();
  for (const auto& g : r.groups) {
    nlohmann::json gj{
        {"name", g.name}, {"decision", group_decision_name(g.decision)}, {"stats", g.stats}};
    gj["changes"] = nlohmann::json::array();
    for (const auto& c : g.changes) {
      nlohmann::json cj{{"knob", c.knob},
                        {"before", c.before ? nlohmann::json(*c.before) : nlohmann::json()},
                        {"after", c.after},
                        {"status", change_status_name(c.status)}};
      if (!c.error.empty()) cj["error"] = c.error;
      gj["changes"].push_back(std::move(cj));
    }
    j["groups"].push_back(std::move(gj));
  }
  j["errors"] = nlohmann::json::array();
  for (const RunMessage& e : r.errors) j["errors"].push_back(run_message_json(e));
  j["warnings"] = nlohmann::json::array();
  for (const RunMessage& w : r.warnings) j["warnings"].push_back(run_message_json(w));
  j["notes"] = nlohmann::json::array();
  for (const RunMessage& n : r.notes) j["notes"].push_back(run_message_json(n));
  if (!r.node.empty()) j["node"] = node_facts_json(r.node);
  return j;
}

}  // namespace tuner
