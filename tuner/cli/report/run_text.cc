#include "tuner/cli/report/run_text.h"

#include <cmath>

#include <fmt/core.h>

#include "tuner/cli/report/progress.h"

namespace tuner {

std::string format_group_stats(const nlohmann::json& s, const Term& term) {
  if (!s.is_object()) return "";
  std::string out;
  auto num = [](const nlohmann::json& v) {
    return v.is_number() ? fmt::format("{:.4g}", v.get<double>()) : std::string("-");
  };
  if (s.contains("bench")) {
    auto ci = s.value("ci", nlohmann::json::array());
    auto at = [&](std::size_t i) {
      return ci.is_array() && ci.size() > i && ci[i].is_number() ? ci[i].get<double>() : NAN;
    };
    double effect = s["effect"].is_number() ? s["effect"].get<double>() : NAN;
    out += fmt::format("    {}: baseline {} -> candidate {} {}, effect {}, p {}, trials {}+{}\n",
                       s.value("bench", ""), num(s["baseline"]), num(s["candidate"]),
                       s.value("unit", ""), format_effect(effect, at(0), at(1)), num(s["p"]),
                       s["trials"].value("baseline", 0u), s["trials"].value("candidate", 0u));
  }
  if (s.contains("guards"))
    for (const auto& gd : s["guards"])
      if (gd.value("tripped", false))
        out += "    " + term.red("guard ") + gd.value("text", std::string()) + "\n";
  if (s.contains("error")) out += "    " + s.value("error", std::string()) + "\n";
  if (s.contains("reason")) out += "    " + s.value("reason", std::string()) + "\n";
  return out;
}

std::string format_run_report(const RunReport& r, const Term& term) {
  std::string out;
  if (r.run_id.empty()) return "nothing to change\n";
  out += fmt::format("run {}\n", term.bold(r.run_id));
  for (const auto& g : r.groups) {
    std::string outcome = g.stats.value("outcome", std::string());
    out += fmt::format("  group {} ({}{})\n", g.name, group_decision_name(g.decision),
                       outcome.empty() ? "" : ": " + outcome);
    out += format_group_stats(g.stats, term);
    for (const auto& c : g.changes) {
      std::string before = c.before ? *c.before : "?";
      std::string name = change_status_name(c.status);
      std::string mark;
      switch (c.status) {
        case ChangeStatus::applied:
        case ChangeStatus::restored: mark = term.green(name); break;
        case ChangeStatus::skipped: mark = term.yellow(name); break;
        case ChangeStatus::failed:
        case ChangeStatus::restore_failed: mark = term.red(name); break;
        case ChangeStatus::rolled_back:
        case ChangeStatus::not_applied: mark = name; break;
      }
      out += fmt::format("    {}: {} -> {}  {}\n", c.knob, before, c.after, mark);
      if (!c.error.empty())
        out += fmt::format("      {}\n",
                           c.status == ChangeStatus::skipped ? c.error + ": skipped" : c.error);
    }
  }
  for (const auto& e : r.errors) out += term.red("error: ") + e + "\n";
  return out;
}

}  // namespace tuner
