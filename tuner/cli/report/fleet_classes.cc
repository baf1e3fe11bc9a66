// The fleet's hardware classes: each node's class, the facts that set a class apart
// from the largest, the canaries' merged decisions, reuse and suspect decisions.
#include "tuner/cli/report/fleet_classes.h"

#include <algorithm>
#include <set>
#include <tuple>

#include <fmt/core.h>

namespace tuner {

namespace {

/// The node's class key and the document whose facts say it: the run's, else the
/// probe's, else the newest decision record's; nullptr when none names a class.
const NodeReport* class_source(const ClassNode& n) {
  for (const NodeReport* r : {n.run, n.probe})
    if (r && !r->class_key.empty()) return r;
  const NodeReport* newest = nullptr;
  for (const NodeReport* r : n.records)
    if (!newest || std::tie(r->time, r->run_id, r->source) >
                       std::tie(newest->time, newest->run_id, newest->source))
      newest = r;
  return newest;
}

/// The facts on which `c` differs from `largest`, by name.
std::vector<ClassSummary::Differs> differs(const ClassSummary& c, const ClassSummary& largest) {
  static const std::string kAbsent = "(absent)";
  std::vector<ClassSummary::Differs> out;
  auto a = c.facts.begin(), b = largest.facts.begin();
  while (a != c.facts.end() || b != largest.facts.end()) {
    if (b == largest.facts.end() || (a != c.facts.end() && a->first < b->first)) {
      out.push_back({a->first, a->second, kAbsent});
      ++a;
    } else if (a == c.facts.end() || b->first < a->first) {
      out.push_back({b->first, kAbsent, b->second});
      ++b;
    } else {
      if (a->second != b->second) out.push_back({a->first, a->second, b->second});
      ++a;
      ++b;
    }
  }
  return out;
}

}  // namespace

void summarize_classes(const std::vector<ClassNode>& nodes, FleetSummary& s) {
  std::vector<DecisionRecord> records;
  for (const ClassNode& n : nodes)
    for (const NodeReport* r : n.records)
      if (r->record) records.push_back(*r->record);
  s.decision_records = records.size();
  std::vector<OlderRecords> older;
  s.class_decisions = merge_decisions(records, &older);
  for (OlderRecords& o : older) {
    std::string why = "several decision records of one class and profiles: the newest counts";
    if (!o.names.empty()) {
      std::string names;
      for (const std::string& n : o.names) names += (names.empty() ? "" : ", ") + n;
      why = "one node (the same machine-id and hostname) under several names (" + names +
            "): counted as one canary, its newest record counts";
    }
    s.duplicates.push_back({o.node, o.used, std::move(o.ignored), why});
  }

  std::map<std::string, ClassSummary> classes;
  // (class, group) -> the suspect decision, its nodes in node order.
  std::map<std::pair<std::string, std::string>, ClassSummary::Suspect> suspects;
  for (const ClassNode& n : nodes) {
    const NodeReport* source = class_source(n);
    std::string key = source ? source->class_key : "";
    if (key.empty() && n.run) key = n.run->reused_class;
    if (key.empty()) {
      if (n.run || n.probe) s.without_class.push_back(n.node);
      continue;
    }
    ClassSummary& c = classes[key];
    c.key = key;
    c.nodes.push_back(n.node);
    // Equal keys, equal facts: the first document's that has them.
    for (const NodeReport* r : {n.run, n.probe})
      if (c.facts.empty() && r && r->class_key == key && r->class_facts) c.facts = *r->class_facts;
    for (const NodeReport* r : n.records)
      if (c.facts.empty() && r->class_key == key && r->class_facts) c.facts = *r->class_facts;
    if (!n.run) continue;
    for (const NodeReport::Suspect& u : n.run->suspects) {
      ClassSummary::Suspect& sus = suspects[{u.class_key.empty() ? key : u.class_key, u.group}];
      if (sus.nodes.empty()) sus = {u.group, u.decision, u.canaries, {}};
      sus.nodes.push_back(n.node);
    }
    const std::vector<std::string>& reused = n.run->reused;
    if (!reused.empty()) c.reused.push_back(n.node);
    for (const auto& [group, decision] : n.run->decisions)
      if ((decision == "kept" || decision == "rolled_back") &&
          std::find(reused.begin(), reused.end(), group) == reused.end()) {
        c.verified.push_back(n.node);
        break;
      }
  }
  for (auto& [key, suspect] : suspects) {
    ClassSummary& c = classes[key.first];
    c.key = key.first;
    c.suspects.push_back(std::move(suspect));
  }
  for (std::size_t i = 0; i < s.class_decisions.size(); ++i) {
    const ClassDecision& d = s.class_decisions[i];
    ClassSummary& c = classes[d.key];
    c.key = d.key;
    if (c.facts.empty()) c.facts = d.facts;
    c.decisions.push_back(i);
  }
  for (auto& [key, c] : classes) s.classes.push_back(std::move(c));
  std::stable_sort(
      s.classes.begin(), s.classes.end(),
      [](const ClassSummary& a, const ClassSummary& b) { return a.nodes.size() > b.nodes.size(); });
  auto largest = std::find_if(s.classes.begin(), s.classes.end(),
                              [](const ClassSummary& c) { return !c.facts.empty(); });
  if (largest == s.classes.end()) return;
  for (ClassSummary& c : s.classes)
    if (&c != &*largest && !c.facts.empty()) c.differs = differs(c, *largest);
}

}  // namespace tuner
