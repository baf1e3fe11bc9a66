#include "tuner/verify/decision_record.h"

#include <fstream>

namespace tuner::verify {

namespace {

using nlohmann::json;

/// stats.search.chosen of a kept search, else null.
json chosen_of(const GroupReport& g) {
  if (g.decision != GroupDecision::kept) return nullptr;
  auto s = g.stats.find("search");
  if (s == g.stats.end() || !s->is_object()) return nullptr;
  auto c = s->find("chosen");
  return c != s->end() && c->is_string() ? *c : json();
}

json field_or_null(const json& stats, const char* key) {
  auto it = stats.find(key);
  return it == stats.end() ? json() : *it;
}

}  // namespace

std::string read_machine_id(const std::string& file) {
  std::ifstream in(file);
  std::string id;
  if (!in || !std::getline(in, id)) return "";
  if (id.empty() || id.size() > 64 || id.find_first_not_of("0123456789abcdef") != std::string::npos)
    return "";
  return id;
}

json decision_record_json(const RunReport& report, const DecisionRecordFacts& facts) {
  json groups = json::array();
  for (const GroupReport& g : report.groups) {
    if (g.decision == GroupDecision::applied || g.stats.contains("class_decision")) continue;
    json knobs = json::object(), before = json::object();
    for (const ChangeReport& c : g.changes) {
      knobs[c.knob] = c.after;
      // Where the canary started: a node that starts elsewhere verifies the group itself.
      before[c.knob] = c.before ? json(*c.before) : json();
    }
    groups.push_back({{"name", g.name},
                      {"decision", group_decision_name(g.decision)},
                      {"reason", field_or_null(g.stats, "outcome")},
                      {"seed", field_or_null(g.stats, "seed")},
                      {"chosen", chosen_of(g)},
                      {"knobs", knobs},
                      {"before", before},
                      {"stats", g.stats}});
  }
  auto hostname = report.node.find("hostname");
  json host = hostname != report.node.end() && hostname->second ? json(*hostname->second) : json();
  return {{"schema", "tuner.decision/1"},
          {"node", host},
          {"identity",
           {{"machine_id", facts.machine_id.empty() ? json() : json(facts.machine_id)},
            {"hostname", host}}},
          {"time", report.time.empty() ? json() : json(report.time)},
          {"run_id", report.run_id},
          {"tuner_version", facts.tuner_version},
          {"class", facts.hw_class},
          {"profile", {{"names", facts.profiles}, {"digest", facts.profile_digest}}},
          {"false_keep_rate", facts.false_keep_rate},
          {"min_effect", facts.min_effect},
          {"groups", groups}};
}

}  // namespace tuner::verify
