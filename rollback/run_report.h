// RunReport: what an apply, rollback or restore did, for people and for the
// tuner.run/1 JSON document (DESIGN.md "JSON").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tuner {

struct ChangeReport {
  std::string knob;
  std::optional<std::string> before;  // null when it could not be read
  std::string after;
  std::string status;  // applied, skipped, failed, restored, unchanged, not_applied
  std::string error;   // why, for skipped and failed
};

struct GroupReport {
  std::string name;
  std::string decision;  // applied, kept, rolled_back
  std::vector<ChangeReport> changes;
  nlohmann::json stats = nlohmann::json::object();
};

struct RunReport {
  std::string run_id;  // empty when no run was started (nothing to change)
  bool changed = false;
  std::vector<std::string> profiles;
  std::vector<GroupReport> groups;
  std::vector<std::string> errors;
};

/// The tuner.run/1 document.
nlohmann::json run_report_json(const RunReport& r);

}  // namespace tuner
