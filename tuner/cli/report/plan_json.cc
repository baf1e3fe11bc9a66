#include "tuner/cli/report/plan_json.h"

#include <fmt/core.h>

namespace tuner {

nlohmann::ordered_json plan_to_json(const Plan& plan) {
  nlohmann::ordered_json changes = nlohmann::ordered_json::array();
  for (const Change& c : plan.changes) {
    changes.push_back({{"knob", c.knob},
                       {"group", c.group},
                       {"current", c.current ? nlohmann::ordered_json(*c.current)
                                             : nlohmann::ordered_json(nullptr)},
                       {"desired", c.desired},
                       {"reason", c.reason}});
  }
  nlohmann::ordered_json groups = nlohmann::ordered_json::array();
  auto text_or_null = [](const std::string& s) {
    return s.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s);
  };
  for (const PlanGroup& g : plan.groups) {
    nlohmann::ordered_json traffic = nlohmann::ordered_json::array();
    for (const PlanGroup::PeerTraffic& t : g.peer_traffic)
      traffic.push_back(
          {{"bench", t.bench},
           {"direction", t.direction},
           {"runs", t.runs},
           {"run_s", static_cast<double>(t.run.count()) / 1000},
           {"streams", t.streams},
           {"stream_s", static_cast<double>(t.run.count()) / 1000 * t.runs * t.streams}});
    groups.push_back(
        {{"name", g.name},
         {"bench", g.bench},
         {"measurable", !g.bench.empty()},
         {"keep_if_neutral", g.keep_if_neutral},
         {"bisect", g.bisect},
         {"peer", g.peer},
         {"decided_by",
          {{"by", decider_name(g.decided.by)},
           {"bench", text_or_null(g.decided.bench)},
           {"where", text_or_null(g.decided.where)},
           {"text", decided_by_text(g.decided)}}},
         {"worst_case_s", g.worst_case.count()},
         {"peer_traffic", std::move(traffic)},
         {"peer_wmem_needed", g.peer_wmem_needed > 0 ? nlohmann::ordered_json(g.peer_wmem_needed)
                                                     : nlohmann::ordered_json(nullptr)}});
  }
  nlohmann::ordered_json searches = nlohmann::ordered_json::array();
  for (const PlanSearch& ps : plan.searches) {
    nlohmann::ordered_json candidates = nlohmann::ordered_json::array();
    for (const PlanSearch::Candidate& c : ps.candidates)
      candidates.push_back({{"value", c.value}, {"desired", c.desired}, {"current", c.current}});
    searches.push_back({{"group", ps.group},
                        {"setting", ps.setting},
                        {"knobs", ps.knobs},
                        {"candidates", std::move(candidates)},
                        {"design", ps.design},
                        {"worst_case_runs", ps.worst_case_runs}});
  }
  return {{"schema", "tuner.plan/1"},
          {"profiles", plan.profiles},
          {"changes", std::move(changes)},
          {"groups", std::move(groups)},
          {"unchanged", plan.unchanged},
          {"unchanged_knobs", plan.unchanged_knobs},
          {"notes", plan.notes},
          {"searches", std::move(searches)},
          {"verify_worst_case_s", verify_worst_case(plan).count()},
          {"verify_budget_s", plan.verify_budget.count()}};
}

nlohmann::ordered_json plan_to_json(const Plan& plan, const PlanClassActions& actions) {
  nlohmann::ordered_json out = plan_to_json(plan);
  for (auto& g : out["groups"]) {
    auto it = actions.groups.find(g["name"].get<std::string>());
    if (it == actions.groups.end()) continue;
    const verify::ClassAction& a = it->second;
    g["class_decision"] = {
        {"decision", a.decision},
        {"action", verify::class_action_name(a.action)},
        {"why", a.why.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(a.why)}};
  }
  out["class_decisions"] = {{"file", actions.file},
                            {"class", actions.class_key},
                            {"found", actions.found},
                            {"require_decision", actions.require_decision}};
  return out;
}

std::string class_actions_text(const PlanClassActions& actions) {
  std::string out = fmt::format("Class decisions ({}, class {}{}):\n", actions.file,
                                actions.class_key,
                                actions.found ? "" : ": none for this class and these profiles");
  for (const auto& [group, a] : actions.groups) {
    const char* what = a.action == verify::ClassAction::Action::write  ? "written, soak only"
                       : a.action == verify::ClassAction::Action::skip ? "not written"
                                                                       : "verified here";
    out += fmt::format("  group {}: {} (class: {}){}\n", group, what, a.decision,
                       a.why.empty() ? "" : "; " + a.why);
  }
  return out;
}

void add_rejected_here(nlohmann::ordered_json& plan,
                       const std::map<std::string, verify::EarlierVerdict>& rejected) {
  for (auto& g : plan["groups"]) {
    auto it = rejected.find(g["name"].get<std::string>());
    g["rejected_here"] =
        it == rejected.end()
            ? nlohmann::ordered_json(nullptr)
            : nlohmann::ordered_json{{"run_id", it->second.run_id},
                                     {"time", it->second.time},
                                     {"outcome", verify::reason_name(it->second.outcome)}};
  }
}

std::string rejected_here_text(const std::map<std::string, verify::EarlierVerdict>& rejected) {
  if (rejected.empty()) return "";
  std::string out =
      "Rolled back here before, from these same values (apply verifies them again):\n";
  for (const auto& [group, v] : rejected)
    out += fmt::format("  group {}: {} by run {} ({})\n", group, verify::reason_name(v.outcome),
                       v.run_id, v.time);
  return out;
}

}  // namespace tuner
