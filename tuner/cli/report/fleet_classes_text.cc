// The hardware classes as text and as tuner.fleet/1's `classes`: nodes per class, what
// sets a class apart, the merged decisions with their canaries, disagreements and
// suspect decisions (docs/fleet-report.md "classes").
#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/core.h>

#include "base/strings.h"
#include "tuner/cli/report/fleet_classes.h"
#include "tuner/cli/report/fleet_nodeset.h"

namespace tuner {

namespace {

using nlohmann::json;

/// Facts named on a class's "differs from" line; the JSON lists them all.
constexpr std::size_t kDiffersShown = 6;
/// Canaries' verdicts on a group's line; the JSON lists them all.
constexpr std::size_t kVerdictsShown = 4;

std::string shown_nodes(const std::vector<std::string>& nodes) {
  return escape_controls(nodeset_capped(nodes));
}

std::string count(std::size_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string count(std::size_t n, const char* noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

/// "a kept (+6.1%), b rolled_back (no_gain)", at most kVerdictsShown of them.
std::string verdicts(const MergedGroup& g) {
  std::string out;
  for (std::size_t i = 0; i < g.canaries.size() && i < kVerdictsShown; ++i)
    out += (i ? ", " : "") + canary_verdict(g.canaries[i]);
  if (g.canaries.size() > kVerdictsShown)
    out += fmt::format(" and {} more", g.canaries.size() - kVerdictsShown);
  return out;
}

std::string class_list(const FleetSummary& s, const Term& t) {
  std::string out = "\n" + t.bold("classes") +
                    " (nodes by hardware class, the key tuner probe computes; "
                    "docs/fleet-decisions.md)\n";
  std::size_t w = 19;  // "hw-" and 16 hex digits
  for (const ClassSummary& c : s.classes)
    w = std::clamp(escape_controls(c.key).size(), w, std::size_t{48});
  const std::string indent(w + 4, ' ');
  const ClassSummary* largest = nullptr;
  for (const ClassSummary& c : s.classes)
    if (!largest && !c.facts.empty()) largest = &c;
  for (const ClassSummary& c : s.classes) {
    out += fmt::format("  {:<{}} {:>5} {}  {}\n", escape_controls(c.key), w, c.nodes.size(),
                       c.nodes.size() == 1 ? "node " : "nodes", shown_nodes(c.nodes));
    if (!c.reused.empty() || !c.verified.empty())
      out += indent +
             t.dim(fmt::format("{} reused a class decision, {} verified a group itself",
                               count(c.reused.size(), "node"), count(c.verified.size(), "node"))) +
             "\n";
    if (c.differs.empty()) continue;
    std::string facts;
    for (std::size_t i = 0; i < c.differs.size() && i < kDiffersShown; ++i) {
      const ClassSummary::Differs& d = c.differs[i];
      facts += fmt::format("{}{} {} (not {})", i ? ", " : "", escape_controls(d.fact),
                           escape_controls(d.value), escape_controls(d.largest));
    }
    if (c.differs.size() > kDiffersShown)
      facts += fmt::format(" and {} more", c.differs.size() - kDiffersShown);
    out += indent + "differs from " + escape_controls(largest->key) + ": " + facts + "\n";
  }
  if (!s.without_class.empty())
    out += fmt::format("  class unknown (reports without a class): {}  {}\n",
                       count(s.without_class.size(), "node"), shown_nodes(s.without_class));
  return out;
}

std::string decisions(const FleetSummary& s, const Term& t) {
  if (s.class_decisions.empty()) return "";
  std::set<std::string> canaries;
  for (const ClassDecision& d : s.class_decisions)
    canaries.insert(d.canaries.begin(), d.canaries.end());
  std::string out = "\n" + t.bold("class decisions") +
                    fmt::format(" (the canaries' records merged per class and profiles: {} of "
                                "{}; at least {} must agree)\n",
                                count(s.decision_records, "record"),
                                count(canaries.size(), "canary", "canaries"), kMinCanaries);
  std::string disagree;
  for (const ClassSummary& c : s.classes) {
    for (std::size_t i : c.decisions) {
      const ClassDecision& d = s.class_decisions[i];
      std::string profiles;
      for (const std::string& p : d.profiles)
        profiles += (profiles.empty() ? "" : ", ") + escape_controls(p);
      out += fmt::format("  {}  profile {} ({}), canaries {}\n", escape_controls(d.key),
                         profiles.empty() ? "(none named)" : profiles,
                         escape_controls(d.profile_digest), shown_nodes(d.canaries));
      std::size_t w = 16;
      for (const MergedGroup& g : d.groups)
        w = std::clamp(escape_controls(g.name).size(), w, std::size_t{40});
      for (const MergedGroup& g : d.groups) {
        std::string decision = fmt::format("{:<12}", g.decision);
        if (g.decision == "disagree" || g.decision == "needs_canary") decision = t.yellow(decision);
        std::string detail = g.decision == "kept" || g.decision == "rolled_back"
                                 ? verdicts(g)
                                 : escape_controls(g.why);
        out += fmt::format("    {:<{}} {} {}\n", escape_controls(g.name), w, decision, detail);
        // The class check of a kept group: why the canaries agree for the same reason.
        if (g.decision == "kept" && g.check)
          out += fmt::format("    {:<{}} {:<12} class check: {}\n", "", w, "",
                             escape_controls(class_check_text(*g.check)));
        if (g.decision == "needs_canary") {
          disagree += t.yellow(fmt::format("  class {}: group {} needs a third canary: {}",
                                           escape_controls(d.key), escape_controls(g.name),
                                           escape_controls(g.why))) +
                      "\n";
          continue;
        }
        if (g.decision != "disagree") continue;
        std::string line = fmt::format("  class {}: canaries disagree on group {}: {}",
                                       escape_controls(d.key), escape_controls(g.name),
                                       verdicts(g));
        // Same decisions everywhere: the difference is in what they wrote.
        bool alike = std::all_of(g.canaries.begin(), g.canaries.end(), [&](const auto& k) {
          return k.decision == g.canaries.front().decision;
        });
        if (alike && g.why.starts_with("the canaries wrote")) line += "; " + escape_controls(g.why);
        disagree += t.yellow(line) + "\n";
      }
    }
  }
  return out + disagree;
}

std::string suspects(const FleetSummary& s, const Term& t) {
  std::string out;
  for (const ClassSummary& c : s.classes)
    for (const ClassSummary::Suspect& sus : c.suspects) {
      std::string by = sus.canaries.empty() ? "" : " by canaries " + shown_nodes(sus.canaries);
      out += fmt::format("  class {} group {} ({}{}): a guard tripped on {}  {}\n",
                         escape_controls(c.key), escape_controls(sus.group),
                         sus.decision.empty() ? "reused" : escape_controls(sus.decision), by,
                         count(sus.nodes.size(), "node"), shown_nodes(sus.nodes));
    }
  if (out.empty()) return "";
  return "\n" + t.red("SUSPECT") +
         " class decisions (reused on a node, then rolled back there by the guard soak)\n" + out;
}

}  // namespace

std::string canary_verdict(const MergedGroup::Canary& c) {
  std::string out = escape_controls(c.node) + " " + escape_controls(c.decision);
  if (c.chosen) out += " " + escape_controls(bounded_text(*c.chosen));
  if (c.decision == "kept" && c.effect && std::isfinite(*c.effect))
    return out + fmt::format(" ({:+.1f}%)", *c.effect * 100);
  return c.reason.empty() ? out : out + " (" + escape_controls(c.reason) + ")";
}

std::string format_classes_text(const FleetSummary& s, const Term& t) {
  if (s.classes.empty()) return "";
  return class_list(s, t) + decisions(s, t) + suspects(s, t);
}

json classes_json(const FleetSummary& s) {
  json out = json::array();
  for (const ClassSummary& c : s.classes) {
    json differs = json::array(), decisions = json::array(), suspects = json::array();
    for (const ClassSummary::Differs& d : c.differs)
      differs.push_back({{"fact", d.fact}, {"value", d.value}, {"largest", d.largest}});
    for (std::size_t i : c.decisions) {
      const ClassDecision& d = s.class_decisions[i];
      json j = class_decision_json(d);
      j.erase("key");
      j.erase("facts");
      for (std::size_t g = 0; g < d.groups.size(); ++g) {
        j["groups"][g]["why"] = d.groups[g].why;
        j["groups"][g].erase("knobs");
        j["groups"][g].erase("before");  // as the knobs: in the decisions file
      }
      decisions.push_back(std::move(j));
    }
    for (const ClassSummary::Suspect& sus : c.suspects)
      suspects.push_back({{"group", sus.group},
                          {"decision", sus.decision},
                          {"canaries", sus.canaries},
                          {"nodes", sus.nodes}});
    out.push_back({{"key", c.key},
                   {"facts", json(c.facts)},
                   {"nodes", c.nodes},
                   {"differs", differs},
                   {"reused", c.reused},
                   {"verified", c.verified},
                   {"decisions", decisions},
                   {"suspects", suspects}});
  }
  return out;
}

}  // namespace tuner
