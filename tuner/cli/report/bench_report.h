// tuner bench's output: text for people, tuner.bench/1 JSON for tools.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/bench/bench.h"
#include "tuner/cli/report/term.h"

namespace tuner {

/// One benchmark's runs, or the error that stopped them.
struct BenchRun {
  std::string name;
  std::vector<bench::Measurement> runs;
  std::string error;
};

/// {"schema":"tuner.bench/1","benchmarks":[{"name":..,"runs":[{"metrics":[{"name",
/// "value","unit","direction"}],"elapsed_s":..}],"median":[...metrics...],"error":null}]}
nlohmann::json bench_report_json(const std::vector<BenchRun>& runs);
/// One line per metric: its median over the runs, with min and max when there are more.
std::string format_bench_report(const std::vector<BenchRun>& runs, const Term& term);

}  // namespace tuner
