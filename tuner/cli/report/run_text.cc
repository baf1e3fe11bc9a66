#include "tuner/cli/report/run_text.h"

#include <cmath>

#include <fmt/core.h>

#include "base/strings.h"
#include "tuner/cli/report/progress.h"

namespace tuner {

namespace {

/// "+12.0% [+8.1%, +15.9%]" from a stats object's effect and ci; "-" when unknown.
std::string effect_of(const nlohmann::json& m) {
  auto number = [](const nlohmann::json& v) { return v.is_number() ? v.get<double>() : NAN; };
  nlohmann::json ci = m.value("ci", nlohmann::json::array());
  auto at = [&](std::size_t i) { return ci.is_array() && ci.size() > i ? number(ci[i]) : NAN; };
  return format_effect(number(m.value("effect", nlohmann::json())), at(0), at(1));
}

std::string knob_list(const nlohmann::json& knobs) {
  std::string out;
  if (!knobs.is_array()) return out;
  for (const auto& k : knobs)
    if (k.is_string()) out += (out.empty() ? "" : ", ") + k.get<std::string>();
  return out;
}

/// One line per bisect measurement: which knobs, what they did alone, the effect.
std::string format_bisect(const nlohmann::json& b, const Term& term) {
  std::string out = "    " + term.bold("bisect") + ": ";
  if (b.contains("culprit")) out += "hurts: " + knob_list(b["culprit"]);
  if (b.contains("note"))
    out += (b.contains("culprit") ? "; " : "") + b.value("note", std::string());
  out += "\n";
  auto line = [&](const nlohmann::json& m, const std::string& what) {
    return fmt::format("      {}{}: {}, effect {}\n", what,
                       knob_list(m.value("knobs", nlohmann::json())),
                       m.value("outcome", std::string()), effect_of(m));
  };
  for (const auto& step : b.value("steps", nlohmann::json::array())) out += line(step, "alone ");
  if (b.contains("rest")) out += line(b["rest"], "the rest ");
  return out;
}

}  // namespace

std::string format_group_stats(const nlohmann::json& s, const Term& term) {
  if (!s.is_object()) return "";
  std::string out;
  auto num = [](const nlohmann::json& v) {
    return v.is_number() ? fmt::format("{:.4g}", v.get<double>()) : std::string("-");
  };
  if (s.contains("bench")) {
    out += fmt::format("    {}: baseline {} -> candidate {} {}, effect {}, p {}, trials {}+{}\n",
                       s.value("bench", ""), num(s["baseline"]), num(s["candidate"]),
                       s.value("unit", ""), effect_of(s), num(s["p"]),
                       s["trials"].value("baseline", 0u), s["trials"].value("candidate", 0u));
  }
  bool tripped = false;
  if (s.contains("watches") && s["watches"].is_array())
    for (const auto& w : s["watches"]) {
      tripped = tripped || w.value("tripped", false);
      out += fmt::format("    watch {}: baseline {} -> candidate {} {}, effect {}{}\n",
                         w.value("bench", ""), num(w.value("baseline", nlohmann::json())),
                         num(w.value("candidate", nlohmann::json())), w.value("unit", ""),
                         effect_of(w),
                         w.value("tripped", false) ? " " + term.red("harm") : std::string());
    }
  if (s.contains("guards"))
    for (const auto& gd : s["guards"])
      if (gd.value("tripped", false)) {
        out += "    " + term.red("guard ") + gd.value("text", std::string()) + "\n";
        tripped = true;
      }
  // A tripped guard's error repeats the lines above.
  if (s.contains("error") && !(tripped && s.value("outcome", "") == "guard"))
    out += "    " + s.value("error", std::string()) + "\n";
  if (s.contains("reason")) out += "    " + s.value("reason", std::string()) + "\n";
  if (s.contains("bisect") && s["bisect"].is_object()) out += format_bisect(s["bisect"], term);
  return out;
}

std::string format_run_report(const RunReport& r, const Term& term) {
  std::string out;
  if (r.run_id.empty()) return "nothing to change\n";
  out += fmt::format("run {}\n", term.bold(r.run_id));
  for (const auto& g : r.groups) {
    std::string outcome = g.stats.value("outcome", std::string());
    out += fmt::format("  group {} ({}{})\n", escape_controls(g.name),
                       group_decision_name(g.decision), outcome.empty() ? "" : ": " + outcome);
    out += format_group_stats(g.stats, term);
    for (const auto& c : g.changes) {
      std::string before = c.before ? *c.before : "?";
      std::string name = change_status_name(c.status);
      std::string mark;
      switch (c.status) {
        case ChangeStatus::applied:
        case ChangeStatus::restored: mark = term.green(name); break;
        case ChangeStatus::skipped:
        case ChangeStatus::gone:
        case ChangeStatus::changed_since: mark = term.yellow(name); break;
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
  for (const auto& w : r.warnings) out += term.yellow("warning: ") + w.message + "\n";
  for (const auto& e : r.errors) out += term.red("error: ") + e.message + "\n";
  return out;
}

}  // namespace tuner
