// [bench.NAME] tables: the benchmarks a profile configures for the verify loop. Split
// from parse.cc, which calls parse_bench_table() once per table.
#pragma once

#include <toml++/toml.h>

#include "tuner/profile/profile.h"

namespace tuner {

/// Parses one [bench.NAME] table; a ParseFailure (toml_reader.h) names file:line:col.
/// The config is validated as the benchmark itself would validate it before a run, so a
/// profile `plan` accepts never fails in `apply` for its benchmark's settings.
BenchSpec parse_bench_table(const std::string& file, const std::string& name, const toml::table& t);

/// "30s", "500ms", "2m", "1h" -> milliseconds; nullopt for anything else.
std::optional<std::chrono::milliseconds> parse_duration(std::string_view text);

}  // namespace tuner
