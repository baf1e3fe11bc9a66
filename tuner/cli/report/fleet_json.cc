// The fleet summary as tuner.fleet/1 (schemas/tuner.fleet-1.schema.json). Node lists are
// full JSON arrays, never the text's folded and capped nodeset form.
#include "tuner/cli/report/fleet.h"
#include "tuner/cli/report/fleet_classes.h"

namespace tuner {

using nlohmann::json;

json fleet_json(const FleetSummary& s) {
  json failures = json::array(), outcomes = json::array(), drift = json::array(),
       unfinished = json::array(), differing = json::array(), splits = json::array(),
       duplicates = json::array(), findings = json::array();
  for (const Failure& f : s.failures)
    failures.push_back(
        {{"rc", f.rc ? json(*f.rc) : json(nullptr)}, {"message", f.message}, {"nodes", f.nodes}});
  for (const Outcome& o : s.outcomes)
    outcomes.push_back({{"profiles", o.profiles},
                        {"kept", o.kept},
                        {"rolled_back", o.rolled_back},
                        {"applied", o.applied},
                        {"not_written", o.not_written},
                        {"failed", o.failed},
                        {"nodes", o.nodes}});
  for (const DriftSpread& d : s.drift)
    drift.push_back({{"knob", d.knob}, {"state", d.state}, {"nodes", d.nodes}});
  for (const FindingSpread& f : s.findings)
    findings.push_back(
        {{"rule", f.rule}, {"severity", f.severity}, {"subject", f.subject}, {"nodes", f.nodes}});
  for (const auto& [node, run] : s.unfinished)
    unfinished.push_back({{"node", node}, {"run_id", run}});
  for (const FactSpread& f : s.differing) {
    json values = json::array();
    for (const FactSpread::Value& v : f.values)
      values.push_back({{"value", v.value}, {"nodes", v.nodes}});
    differing.push_back({{"fact", f.fact}, {"values", values}});
  }
  for (const std::vector<std::size_t>& split : s.splits) {
    json facts = json::array();
    for (std::size_t i : split) facts.push_back(s.differing[i].fact);
    splits.push_back(std::move(facts));
  }
  for (const Duplicate& d : s.duplicates)
    duplicates.push_back(
        {{"node", d.node}, {"used", d.used}, {"ignored", d.ignored}, {"why", d.why}});
  return {{"schema", "tuner.fleet/1"},
          {"nodes", s.nodes},
          {"runs", s.runs},
          {"probes", s.probes},
          {"statuses", s.statuses},
          {"failed", s.failed},
          {"drifted", s.drifted},
          {"checks", s.checks},
          {"decision_records", s.decision_records},
          {"failures", failures},
          {"outcomes", outcomes},
          {"drift", drift},
          {"unfinished", unfinished},
          {"findings", findings},
          {"differing", differing},
          {"splits", splits},
          {"common", s.common},
          {"without_facts", s.without_facts},
          {"classes", classes_json(s)},
          {"without_class", s.without_class},
          {"duplicates", duplicates},
          {"skipped", s.skipped}};
}

}  // namespace tuner
