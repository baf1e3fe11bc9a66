#include "rollback/run_report.h"

namespace tuner {

nlohmann::json run_report_json(const RunReport& r) {
  nlohmann::json j;
  j["schema"] = "tuner.run/1";
  j["run_id"] = r.run_id.empty() ? nlohmann::json() : nlohmann::json(r.run_id);
  j["changed"] = r.changed;
  j["profiles"] = r.profiles;
  j["groups"] = nlohmann::json::array();
  for (const auto& g : r.groups) {
    nlohmann::json gj{{"name", g.name}, {"decision", g.decision}, {"stats", g.stats}};
    gj["changes"] = nlohmann::json::array();
    for (const auto& c : g.changes) {
      nlohmann::json cj{{"knob", c.knob},
                        {"before", c.before ? nlohmann::json(*c.before) : nlohmann::json()},
                        {"after", c.after},
                        {"status", c.status}};
      if (!c.error.empty()) cj["error"] = c.error;
      gj["changes"].push_back(std::move(cj));
    }
    j["groups"].push_back(std::move(gj));
  }
  j["errors"] = r.errors;
  return j;
}

}  // namespace tuner
