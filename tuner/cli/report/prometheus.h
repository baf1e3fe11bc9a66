// --prometheus FILE: node_exporter's textfile collector format (text exposition 0.0.4),
// written atomically so the collector never reads half a file. Names follow the
// Prometheus conventions: tuner_ prefix, base units (seconds, bytes, bits per second,
// transfers per second), _info gauges of value 1 for facts carried in labels, closed
// sets as one series per state (1 for the current one, 0 for the others). Labels join
// with node_exporter's: a network interface is `device`, as in node_network_*.
// docs/monitoring.md lists the metrics.
// One file per command (tuner-probe.prom, tuner-apply.prom, tuner-status.prom): the
// collector merges a directory of them.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/inventory.h"
#include "rollback/run_report.h"
#include "tuner/cli/report/state_report.h"

namespace tuner {

/// Builds one exposition: each metric's HELP and TYPE once, then its samples.
class PromText {
 public:
  using Labels = std::vector<std::pair<std::string, std::string>>;
  /// Starts metric name (gauge unless type says "counter").
  void metric(const std::string& name, const std::string& help, const char* type = "gauge");
  /// A sample of the metric last started. Label values are escaped (\\, \", \n), and
  /// made valid UTF-8 (U+FFFD for a byte that is not).
  void sample(const Labels& labels, double value);
  const std::string& text() const { return text_; }

 private:
  std::string name_, text_;
};

/// Probe facts: tuner_node_info, tuner_nic_info, NIC link speeds, PCIe links, the
/// number of probe errors, the probe's time.
std::string prometheus_probe(const Inventory& inv, double now_seconds);
/// An apply's outcome: each group's decision (tuner_group_decision{group,state}, every
/// GroupDecision a series), effect and changes; the run's time, whether it changed
/// anything, its errors.
std::string prometheus_run(const RunReport& r, double now_seconds);
/// status: kept settings, how many drifted and which (tuner_setting_drifted, one series
/// per drifted setting), whether a run is unfinished, the time, tuner_status_error 0.
std::string prometheus_status(const std::vector<KeptReading>& readings, bool unfinished,
                              double now_seconds);
/// A status that failed (state directory refused, state.json damaged, a journal that
/// cannot be read): tuner_status_error 1 and the time, no counts (they are unknown;
/// an alert on tuner_status_error or absent counts fires).
std::string prometheus_status_error(double now_seconds);
/// tuner_build_info{version} 1, the node_exporter convention (node_exporter_build_info):
/// which tuner each node runs, for fleet queries and joins. Written with status only,
/// as a series may be in one textfile of the node, not several.
std::string prometheus_build_info(std::string_view version);

}  // namespace tuner
