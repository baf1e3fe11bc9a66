#include "rollback/run_report.h"

#include <array>

#include "base/enum_names.h"

namespace tuner {

namespace {

constexpr std::array<EnumName<ChangeStatus>, 9> kChangeStatuses = {{
    {ChangeStatus::applied, "applied"},
    {ChangeStatus::skipped, "skipped"},
    {ChangeStatus::failed, "failed"},
    {ChangeStatus::restored, "restored"},
    {ChangeStatus::rolled_back, "rolled_back"},
    {ChangeStatus::restore_failed, "restore_failed"},
    {ChangeStatus::not_applied, "not_applied"},
    {ChangeStatus::gone, "gone"},
    {ChangeStatus::changed_since, "changed_since"},
}};
static_assert(in_enum_order(kChangeStatuses));

constexpr std::array<EnumName<GroupDecision>, 3> kGroupDecisions = {{
    {GroupDecision::applied, "applied"},
    {GroupDecision::kept, "kept"},
    {GroupDecision::rolled_back, "rolled_back"},
}};
static_assert(in_enum_order(kGroupDecisions));

constexpr std::array<EnumName<RunStatus>, 5> kRunStatuses = {{
    {RunStatus::unfinished, "unfinished"},
    {RunStatus::finished, "finished"},
    {RunStatus::rolled_back, "rolled_back"},
    {RunStatus::rollback_failed, "rollback_failed"},
    {RunStatus::abandoned, "abandoned"},
}};
static_assert(in_enum_order(kRunStatuses));

}  // namespace

const char* change_status_name(ChangeStatus s) { return enum_name(kChangeStatuses, s); }

std::optional<ChangeStatus> parse_change_status(std::string_view name) {
  return enum_from_name(kChangeStatuses, name);
}

const char* group_decision_name(GroupDecision d) { return enum_name(kGroupDecisions, d); }

std::optional<GroupDecision> parse_group_decision(std::string_view name) {
  return enum_from_name(kGroupDecisions, name);
}

const char* run_status_name(RunStatus s) { return enum_name(kRunStatuses, s); }

std::optional<RunStatus> parse_run_status(std::string_view name) {
  return enum_from_name(kRunStatuses, name);
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
  if (!r.profile_digest.empty()) j["profile_digest"] = r.profile_digest;
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
  if (r.hw_class.is_object()) j["class"] = r.hw_class;
  return j;
}

}  // namespace tuner
