// [nic."GLOB"]: link mode, channels, rings, coalescing, RPS and XPS of the NICs a glob
// names.
// Split from parse.cc, which calls this once per rule.
#pragma once

#include <string>

#include <toml++/toml.h>

#include "tuner/profile/profile.h"

namespace tuner {

/// Parses one [nic."GLOB"] table (ctx names it in messages); a ParseFailure
/// (toml_reader.h) names file:line:col. Counts and speeds are checked for what any NIC
/// could take; what this NIC's driver reports is the planner's question.
NicRule parse_nic_rule(const std::string& file, const std::string& glob, const toml::table& t,
                       const std::string& ctx);

}  // namespace tuner
