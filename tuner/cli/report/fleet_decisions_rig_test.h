// The class-decision merge tests' rig: hand-made canary groups and records, and a
// tuner.decision/1 as docs/fleet-decisions.md shows it.
#pragma once

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "tuner/cli/report/fleet_decisions.h"

namespace tuner::fleet_rig {

using nlohmann::json;

inline CanaryGroup group(const std::string& name, const std::string& decision,
                         std::optional<double> effect = std::nullopt,
                         std::optional<std::string> chosen = std::nullopt) {
  CanaryGroup g;
  g.name = name;
  g.decision = decision;
  g.reason = decision == "kept" ? "gain" : "no_gain";
  g.chosen = std::move(chosen);
  g.knobs = {{"sysctl:net.core.rmem_max", "16777216"}};
  // A kept gain is measured: +6% unless said, its 95% interval 1.5% below the effect
  // (a standard error near 0.8%, as 40 trials per arm at 3% noise give).
  if (decision == "kept" && !effect) effect = 0.06;
  g.effect = effect;
  g.p = effect ? std::optional<double>(0.001) : std::nullopt;
  if (decision == "kept") {
    g.ci_low = *effect - 0.015;
    g.ci_level = 0.95;
  }
  return g;
}

/// A kept gain with its interval's lower end said.
inline CanaryGroup gain(const std::string& name, double effect, double ci_low) {
  CanaryGroup g = group(name, "kept", effect);
  g.ci_low = ci_low;
  return g;
}

inline DecisionRecord record(const std::string& node, std::vector<CanaryGroup> groups,
                             const std::string& digest = "fnv1a64:0123456789abcdef",
                             const std::string& key = "hw-3f9c0a51d2e47b88") {
  DecisionRecord r;
  r.node = node;
  r.source = node + ".decision.json";
  r.time = "2026-12-06T10:00:00Z";
  r.class_key = key;
  r.class_facts = {{"cpu_model", "Xeon"}, {"kernel", "6.1.0-18-amd64"}};
  r.profiles = {"throughput"};
  r.profile_digest = digest;
  r.min_effect = 0.02;
  r.groups = std::move(groups);
  return r;
}

/// The one group of the one class merged (a copy: the merge is often a temporary).
inline MergedGroup only_group(const std::vector<ClassDecision>& merged) {
  REQUIRE(merged.size() == 1);
  REQUIRE(merged[0].groups.size() == 1);
  return merged[0].groups[0];
}

/// A tuner.decision/1 as docs/fleet-decisions.md shows it.
inline json decision_doc(const std::string& node) {
  return {{"schema", "tuner.decision/1"},
          {"node", node},
          {"time", "2026-12-06T10:00:00Z"},
          {"run_id", "20261206T100000Z-3f2a"},
          {"tuner_version", "0.9.0"},
          {"class", {{"key", "hw-3f9c0a51d2e47b88"}, {"facts", {{"cpu_model", "Xeon"}}}}},
          {"profile", {{"names", {"throughput"}}, {"digest", "fnv1a64:0123456789abcdef"}}},
          {"false_keep_rate", 0.05},
          {"min_effect", 0.02},
          {"groups",
           {{{"name", "net-buffers"},
             {"decision", "kept"},
             {"reason", "gain"},
             {"seed", 1234},
             {"chosen", nullptr},
             {"knobs", {{"sysctl:net.core.rmem_max", "16777216"}}},
             {"stats",
              {{"outcome", "gain"},
               {"effect", 0.061},
               {"ci", {0.046, 0.077}},
               {"ci_level", 0.95},
               {"scale", "ratio"},
               {"direction", "higher"},
               {"p", 0.001}}}}}}};
}

}  // namespace tuner::fleet_rig
