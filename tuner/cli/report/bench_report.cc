#include "tuner/cli/report/bench_report.h"

#include <algorithm>

#include <fmt/core.h>

namespace tuner {

namespace {

struct Summary {
  bench::Metric metric;  // value = median
  double min = 0, max = 0;
};

/// Per metric name, in the first run's order: median, min and max over the runs.
std::vector<Summary> summarize(const BenchRun& r) {
  std::vector<Summary> out;
  if (r.runs.empty()) return out;
  for (const bench::Metric& m : r.runs.front().metrics) {
    std::vector<double> v;
    for (const bench::Measurement& run : r.runs)
      for (const bench::Metric& x : run.metrics)
        if (x.name == m.name) v.push_back(x.value);
    std::sort(v.begin(), v.end());
    double median = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    Summary s{m, v.front(), v.back()};
    s.metric.value = median;
    out.push_back(s);
  }
  return out;
}

nlohmann::json metric_json(const bench::Metric& m) {
  return {{"name", m.name},
          {"value", m.value},
          {"unit", m.unit},
          {"direction", bench::direction_name(m.direction)}};
}

}  // namespace

nlohmann::json bench_report_json(const std::vector<BenchRun>& runs) {
  nlohmann::json j{{"schema", "tuner.bench/1"}, {"benchmarks", nlohmann::json::array()}};
  for (const BenchRun& r : runs) {
    nlohmann::json b{{"name", r.name},
                     {"runs", nlohmann::json::array()},
                     {"median", nlohmann::json::array()},
                     {"error", r.error.empty() ? nlohmann::json() : nlohmann::json(r.error)}};
    for (const bench::Measurement& m : r.runs) {
      nlohmann::json run{{"metrics", nlohmann::json::array()},
                         {"elapsed_s", std::chrono::duration<double>(m.elapsed).count()}};
      for (const bench::Metric& x : m.metrics) run["metrics"].push_back(metric_json(x));
      b["runs"].push_back(std::move(run));
    }
    for (const Summary& s : summarize(r)) b["median"].push_back(metric_json(s.metric));
    j["benchmarks"].push_back(std::move(b));
  }
  return j;
}

std::string format_bench_report(const std::vector<BenchRun>& runs, const Term& term) {
  std::string out;
  for (const BenchRun& r : runs) {
    out += fmt::format("{} ({} run{})\n", term.bold(r.name), r.runs.size(),
                       r.runs.size() == 1 ? "" : "s");
    for (const Summary& s : summarize(r)) {
      std::string range = r.runs.size() > 1
                              ? fmt::format("  (min {:.4g}, max {:.4g})", s.min, s.max)
                              : std::string();
      out += fmt::format("  {:<20} {:>12.4g} {:<8} {} is better{}\n", s.metric.name, s.metric.value,
                         s.metric.unit, bench::direction_name(s.metric.direction), range);
    }
    if (!r.error.empty()) out += "  " + term.red("error: ") + r.error + "\n";
  }
  return out;
}

}  // namespace tuner
