// A canary's decision record (tuner.decision/1, docs/fleet-decisions.md): what one
// verified run decided about each group, with the class it was decided on and the
// profiles it was decided for, so that `tuner report --decisions-out` can merge a
// class's canaries and `apply --decisions` reuse them on the rest of the class.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rollback/run_report.h"

namespace tuner::verify {

// NOLINTNEXTLINE(bugprone-exception-escape): json's noexcept move, seen through its asserts
struct DecisionRecordFacts {
  nlohmann::json hw_class;  // hw_class_json: key and facts
  std::vector<std::string> profiles;
  std::string profile_digest;
  double false_keep_rate = 0;
  std::string tuner_version;
  /// The run's [verify] min_effect: the threshold the class check (class_pool.h) holds
  /// the canaries' pooled effect to.
  double min_effect = 0;
  /// /etc/machine-id, trimmed; empty when unreadable. With the hostname, the node's
  /// identity: the merge counts canaries by it, not by file name (issue 41).
  std::string machine_id;
};

/// /etc/machine-id (or `file`) when it holds one line of 1 to 64 hex digits; else "".
std::string read_machine_id(const std::string& file = "/etc/machine-id");

/// The tuner.decision/1 document of a verified run's report: every group it kept or
/// rolled back (groups applied without verification, or decided by a class, are not
/// decisions of this node and are left out).
nlohmann::json decision_record_json(const RunReport& report, const DecisionRecordFacts& facts);

}  // namespace tuner::verify
