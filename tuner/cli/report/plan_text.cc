#include "tuner/cli/report/plan_text.h"

#include <fmt/core.h>

namespace tuner {
namespace {

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

/// "dl-training (network-throughput, throughput)": the profile, then what it
/// includes, nearest first.
std::string profile_title(const Plan& plan) {
  if (plan.profiles.empty()) return "(none)";
  std::string out = plan.profiles.back();
  if (plan.profiles.size() > 1) {
    out += " (";
    for (auto it = plan.profiles.rbegin() + 1; it != plan.profiles.rend(); ++it)
      out += (it == plan.profiles.rbegin() + 1 ? "" : ", ") + *it;
    out += ")";
  }
  return out;
}

std::string show_value(const std::optional<std::string>& v) {
  if (!v) return "(unknown)";
  if (v->empty()) return "(empty)";
  return *v;
}

/// "verified by tcp, watching latency; kept only on a proven gain".
std::string verification(const Plan& plan, const std::string& group) {
  for (const PlanGroup& g : plan.groups) {
    if (g.name != group) continue;
    std::string out;
    if (g.bench.empty()) {
      out = g.keep_if_neutral ? "not measurable: kept without proof (keep_if_neutral)"
                              : "not measurable: left out when verifying (no benchmark, no "
                                "keep_if_neutral)";
    } else {
      out = "verified by " + g.bench.front();
      for (std::size_t i = 1; i < g.bench.size(); ++i)
        out += (i == 1 ? ", watching " : ", ") + g.bench[i];
      out += g.keep_if_neutral ? "; kept unless it proves harm" : "; kept only on a proven gain";
    }
    if (g.bisect) out += "; bisected if rejected";
    return out;
  }
  return "";
}

}  // namespace

std::string format_plan(const Plan& plan, const Term& term) {
  std::string out = term.bold("plan: profile " + profile_title(plan)) + "\n";
  std::size_t groups = 0;
  const std::string* group = nullptr;
  for (const Change& c : plan.changes) {
    if (!group || *group != c.group) {
      group = &c.group;
      ++groups;
      std::string how = verification(plan, c.group);
      out += "\n" + term.bold(c.group) + (how.empty() ? "" : "  " + term.dim("(" + how + ")")) +
             "\n";
    }
    out += "  " + term.yellow("~") + " " + c.knob + "\n";
    out += "    " + term.red("- " + show_value(c.current)) + "\n";
    out += "    " + term.green("+ " + show_value(c.desired)) + "\n";
    if (!c.reason.empty()) out += "      " + term.dim(c.reason) + "\n";
  }
  out += "\n";
  if (plan.changes.empty()) {
    out += "no changes: the machine already matches profile " + profile_title(plan);
    if (plan.unchanged) out += " (" + plural(plan.unchanged, "setting", "settings") + " checked)";
    out += "\n";
  } else {
    out += fmt::format(
        "{} in {}, {} already as desired\n", plural(plan.changes.size(), "change", "changes"),
        plural(groups, "group", "groups"), plural(plan.unchanged, "setting", "settings"));
  }
  if (!plan.notes.empty()) {
    out += "\nnotes:\n";
    for (const std::string& n : plan.notes) out += "  - " + n + "\n";
  }
  return out;
}

}  // namespace tuner
