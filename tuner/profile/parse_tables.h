// [cpu] and [mm]: cpufreq governor and energy preference, CPU resume latency, and
// transparent hugepages. Split from parse.cc, which calls these once per table.
#pragma once

#include <string>

#include <toml++/toml.h>

#include "tuner/profile/profile.h"

namespace tuner {

/// Parses [cpu]; a ParseFailure (toml_reader.h) names file:line:col. Values are checked
/// with the knobs' own rules (a word, a resume latency); whether this machine offers
/// them is the planner's question.
CpuTable parse_cpu_table(const std::string& file, const toml::table& t);
/// Parses [mm], as parse_cpu_table.
MmTable parse_mm_table(const std::string& file, const toml::table& t);

}  // namespace tuner
