// The fleet summary as text: failures first, then what was left out, the outcomes by
// profile, drift, and the facts where nodes differ. Node lists in the nodeset form,
// capped (docs/fleet-report.md).
#include <algorithm>

#include <fmt/core.h>

#include "base/strings.h"
#include "tuner/cli/report/fleet.h"
#include "tuner/cli/report/fleet_classes.h"
#include "tuner/cli/report/fleet_nodeset.h"

namespace tuner {

namespace {

/// A node list for the text: folded, capped at about 200 characters, each name on the
/// line it is put on (a newline in a node's file name is shown as \n).
std::string shown_nodes(const std::vector<std::string>& nodes) {
  return escape_controls(nodeset_capped(nodes));
}

/// "1 node", "3 nodes".
std::string count(std::size_t n, const char* noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

/// "  997 nodes", "    1 node ": a right-aligned count whose noun keeps the column.
std::string count_column(std::size_t n) {
  return fmt::format("{:>5} {}", n, n == 1 ? "node " : "nodes");
}

std::string header(const FleetSummary& s) {
  std::string out = fmt::format("{}: {} ({} failed), {}", count(s.nodes, "node"),
                                count(s.runs, "run"), s.failed, count(s.probes, "probe"));
  if (s.statuses)
    out += fmt::format(", {} {} ({} drifted, {} unfinished)", s.statuses,
                       s.statuses == 1 ? "status" : "statuses", s.drifted, s.unfinished.size());
  if (s.checks) out += fmt::format(", {} {}", s.checks, s.checks == 1 ? "check" : "checks");
  if (s.decision_records) out += ", " + count(s.decision_records, "decision record");
  return out + "\n";
}

std::string failures(const FleetSummary& s, const Term& t) {
  if (s.failures.empty()) return "";
  std::string out = "\n" + t.red("failures") + fmt::format(" ({})\n", count(s.failed, "node"));
  for (const Failure& f : s.failures) {
    std::string rc = f.rc ? fmt::format("exit {}  ", *f.rc) : "";
    std::string message = f.message.empty() ? "(no message)" : escape_controls(f.message);
    out += fmt::format("  {}  {}{}\n", count_column(f.nodes.size()), rc, message);
    out += "               " + t.dim(shown_nodes(f.nodes)) + "\n";
  }
  return out;
}

std::string left_out(const FleetSummary& s, const Term& t) {
  std::string out;
  // A summary of part of the fleet must say so.
  if (!s.skipped.empty())
    out += "\n" + t.yellow(fmt::format("skipped {}", count(s.skipped.size(), "file"))) +
           " (not reports this tuner reads)\n";
  for (const std::string& why : s.skipped) out += "  " + escape_controls(why) + "\n";
  if (!s.duplicates.empty())
    out += "\n" + t.yellow("duplicates") + " (one node, several reports: the newest counts)\n";
  for (const Duplicate& d : s.duplicates) {
    std::string ignored;
    for (const std::string& i : d.ignored)
      ignored += (ignored.empty() ? "" : ", ") + escape_controls(i);
    out += fmt::format("  {}: {}: {}; not {}\n", escape_controls(d.node), escape_controls(d.why),
                       escape_controls(d.used), ignored);
  }
  return out;
}

std::string outcomes(const FleetSummary& s, const Term& t) {
  if (s.outcomes.empty()) return "";
  std::string out = "\n" + t.bold("outcomes") + " (by the profiles the nodes ran)\n";
  const std::vector<std::string>* profiles = nullptr;
  for (const Outcome& o : s.outcomes) {
    if (!profiles || *profiles != o.profiles) {
      profiles = &o.profiles;
      std::size_t n = 0;
      for (const Outcome& same : s.outcomes)
        n += same.profiles == o.profiles ? same.nodes.size() : 0;
      std::string names;
      for (const std::string& p : o.profiles)
        names += (names.empty() ? "" : ", ") + escape_controls(p);
      out += fmt::format("  {} ({})\n", names.empty() ? "no profile recorded" : "profile " + names,
                         count(n, "node"));
    }
    std::string what;
    if (!o.kept.empty()) what += "kept " + escape_controls(o.kept);
    if (!o.rolled_back.empty())
      what += (what.empty() ? "" : "; ") + ("rolled back " + escape_controls(o.rolled_back));
    if (!o.applied.empty())
      what += (what.empty() ? "" : "; ") + ("applied " + escape_controls(o.applied));
    if (!o.not_written.empty())
      what += (what.empty() ? "" : "; ") +
              ("not written (class decision) " + escape_controls(o.not_written));
    if (what.empty()) what = "nothing changed";
    if (o.failed) what = t.red("FAILED") + " " + what;
    out += fmt::format("  {}  {}\n", count_column(o.nodes.size()), what);
    // The fleet's most common outcome needs no names; every other lists its nodes.
    if (&o != &s.outcomes.front() || o.failed)
      out += "               " + t.dim(shown_nodes(o.nodes)) + "\n";
  }
  return out;
}

/// Width of a column of names: the longest, within [28, 48] (a longer one overflows).
std::size_t name_width(const std::vector<std::string>& names) {
  std::size_t w = 28;
  for (const std::string& n : names) w = std::max(w, escape_controls(n).size());
  return std::min<std::size_t>(w, 48);
}

std::string drift(const FleetSummary& s, const Term& t) {
  std::string out;
  if (!s.drift.empty())
    out += "\n" + t.yellow("drift") +
           fmt::format(" (kept settings not as kept, by tuner status: {})\n",
                       count(s.drifted, "node"));
  std::vector<std::string> knobs;
  for (const DriftSpread& d : s.drift) knobs.push_back(d.knob);
  const std::size_t w = name_width(knobs);
  // Settings that drifted alike on the same nodes are one block, the nodes named once.
  std::vector<bool> shown(s.drift.size());
  for (std::size_t i = 0; i < s.drift.size(); ++i) {
    if (shown[i]) continue;
    const DriftSpread& d = s.drift[i];
    out += fmt::format("  {:<{}} {:<10} {}  {}\n", escape_controls(d.knob), w,
                       escape_controls(d.state), count_column(d.nodes.size()),
                       shown_nodes(d.nodes));
    for (std::size_t j = i + 1; j < s.drift.size(); ++j)
      if (!shown[j] && s.drift[j].state == d.state && s.drift[j].nodes == d.nodes) {
        shown[j] = true;
        out += fmt::format("  {:<{}} {}\n", escape_controls(s.drift[j].knob), w,
                           escape_controls(d.state));
      }
  }
  if (!s.unfinished.empty()) {
    std::vector<std::string> nodes;
    for (const auto& [node, run] : s.unfinished) nodes.push_back(node);
    out += "\n" + t.yellow("unfinished runs") +
           " (tuner status on the node names the run to roll back or abandon)\n";
    out += fmt::format("  {}  {}\n", count_column(nodes.size()), shown_nodes(nodes));
  }
  return out;
}

std::string findings(const FleetSummary& s, const Term& t) {
  if (s.findings.empty()) return "";
  std::string out = "\n" + t.bold("findings") + " (tuner check, by severity)\n";
  std::vector<std::string> names;
  for (const FindingSpread& f : s.findings)
    names.push_back(f.subject.empty() ? f.rule : f.rule + " " + f.subject);
  const std::size_t w = name_width(names);
  for (std::size_t i = 0; i < s.findings.size(); ++i) {
    const FindingSpread& f = s.findings[i];
    std::string severity = fmt::format("{:<8}", escape_controls(f.severity));
    if (f.severity == "error") severity = t.red(severity);
    else if (f.severity == "warning") severity = t.yellow(severity);
    out += fmt::format("  {} {:<{}} {}  {}\n", severity, escape_controls(names[i]), w,
                       count_column(f.nodes.size()), shown_nodes(f.nodes));
  }
  return out;
}

/// One block: the facts that split the nodes alike, each node set (most nodes first)
/// with every fact's value, its count and, for all but the first, its nodes.
std::string block(const FleetSummary& s, const std::vector<std::size_t>& facts, std::size_t w,
                  const Term& t) {
  std::string out;
  const std::size_t sets = s.differing[facts.front()].values.size();
  for (std::size_t v = 0; v < sets; ++v) {
    for (std::size_t i = 0; i < facts.size(); ++i) {
      const FactSpread& f = s.differing[facts[i]];
      const FactSpread::Value& value = f.values[v];
      // A fact alone is named once; in a block of several, on every line.
      std::string name = v == 0 || facts.size() > 1 ? escape_controls(f.fact) : "";
      std::string line = i == 0 ? fmt::format("  {:<{}} {:<24} {:>5} {}", name, w,
                                              escape_controls(value.value), value.nodes.size(),
                                              value.nodes.size() == 1 ? "node" : "nodes")
                                : fmt::format("  {:<{}} {}", name, w, escape_controls(value.value));
      if (v == 0) out += line + "\n";
      else if (i == 0) out += t.yellow(line) + "  " + shown_nodes(value.nodes) + "\n";
      else out += t.yellow(line) + "\n";
    }
  }
  return out;
}

std::string facts(const FleetSummary& s, const Term& t) {
  std::string out;
  if (!s.differing.empty())
    out += "\n" + t.bold("differences") +
           " (facts not equal on every node; facts that split the nodes alike are one block)\n";
  std::vector<std::string> differing;
  for (const FactSpread& f : s.differing) differing.push_back(f.fact);
  const std::size_t width = name_width(differing);
  for (const std::vector<std::size_t>& split : s.splits) out += block(s, split, width, t);
  if (!s.without_facts.empty() && (!s.differing.empty() || !s.common.empty()))
    out += fmt::format("  facts unknown (no probe or run report): {}  {}\n",
                       count(s.without_facts.size(), "node"), shown_nodes(s.without_facts));
  if (!s.common.empty()) out += "\n" + t.bold("equal on every node") + "\n";
  std::vector<std::string> names;
  for (const auto& [k, v] : s.common) names.push_back(k);
  const std::size_t w = name_width(names);
  for (const auto& [k, v] : s.common)
    out += fmt::format("  {:<{}} {}\n", escape_controls(k), w, escape_controls(v));
  return out;
}

}  // namespace

std::string format_fleet_text(const FleetSummary& s, const Term& t) {
  return t.bold("fleet") + "  " + header(s) + failures(s, t) + left_out(s, t) + outcomes(s, t) +
         format_classes_text(s, t) + drift(s, t) + findings(s, t) + facts(s, t);
}

}  // namespace tuner
