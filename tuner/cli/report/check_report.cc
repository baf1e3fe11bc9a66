#include "tuner/cli/report/check_report.h"

#include <fmt/core.h>

namespace tuner {

nlohmann::ordered_json check_to_json(const CheckReport& r) {
  using json = nlohmann::ordered_json;
  json findings = json::array();
  for (const Finding& f : r.findings) {
    json evidence = json::array();
    for (const Evidence& e : f.evidence) evidence.push_back({{"what", e.what}, {"value", e.value}});
    findings.push_back({{"rule", rule_name(f.rule)},
                        {"severity", severity_name(f.severity)},
                        {"subject", f.subject},
                        {"summary", f.summary},
                        {"evidence", std::move(evidence)},
                        {"fix", f.fix}});
  }
  json skipped = json::array();
  for (const Skipped& s : r.skipped)
    skipped.push_back({{"rule", rule_name(s.rule)}, {"why", s.why}, {"unreadable", s.unreadable}});
  json errors = json::array();
  for (const ProbeError& e : r.errors)
    errors.push_back({{"probe", e.probe}, {"message", e.message}});
  auto worst = r.worst();
  return {{"schema", "tuner.check/1"},
          {"target", r.target},
          {"profile", r.profile ? json(*r.profile) : json(nullptr)},
          {"window_s", r.window_s},
          {"worst", worst ? json(severity_name(*worst)) : json(nullptr)},
          {"counts",
           {{"info", r.count(Severity::info)},
            {"warning", r.count(Severity::warning)},
            {"error", r.count(Severity::error)}}},
          {"findings", std::move(findings)},
          {"skipped", std::move(skipped)},
          {"errors", std::move(errors)}};
}

std::string format_check(const CheckReport& r, const Term& term) {
  std::string out;
  auto tag = [&](Severity s) {
    std::string word = severity_name(s);
    std::string padded = fmt::format("{:<7}", word);
    switch (s) {
      case Severity::error: return term.red(padded);
      case Severity::warning: return term.yellow(padded);
      case Severity::info: return term.dim(padded);
    }
    return padded;
  };
  const unsigned unread = r.unreadable();
  if (r.findings.empty() && unread > 0) {
    // Not "no findings": what could not be read was not checked.
    out += term.yellow(fmt::format("{} rule{} not checked", unread, unread == 1 ? "" : "s")) +
           fmt::format(" on {}: reading their input failed (below); no findings in the rest\n",
                       r.target);
  } else if (r.findings.empty()) {
    out += term.green("no findings") + fmt::format(" on {}\n", r.target);
  } else {
    out += fmt::format("{} finding{} on {}: {} error, {} warning, {} info", r.findings.size(),
                       r.findings.size() == 1 ? "" : "s", r.target, r.count(Severity::error),
                       r.count(Severity::warning), r.count(Severity::info));
    if (unread > 0)
      out += "; " +
             term.yellow(fmt::format("{} rule{} not checked", unread, unread == 1 ? "" : "s")) +
             " (reading their input failed)";
    out += "\n";
  }
  for (const Finding& f : r.findings) {
    out += fmt::format("\n{} {}  {}\n", tag(f.severity), term.bold(rule_name(f.rule)), f.subject);
    out += "  " + f.summary + "\n";
    for (const Evidence& e : f.evidence)
      out += term.dim("  read: ") + e.what + " = " + e.value + "\n";
    out += "  fix:  " + f.fix + "\n";
  }
  if (!r.skipped.empty()) {
    out += "\nnot checked:\n";
    for (const Skipped& s : r.skipped)
      out += fmt::format("  {}: {}{}\n", rule_name(s.rule),
                         s.unreadable ? term.yellow("unreadable") + ": " : "", s.why);
  }
  return out;
}

}  // namespace tuner
