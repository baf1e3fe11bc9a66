#include "tuner/check/finding.h"

#include <algorithm>
#include <tuple>

namespace tuner {

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::info: return "info";
    case Severity::warning: return "warning";
    case Severity::error: return "error";
  }
  return "?";
}

std::optional<Severity> parse_severity(std::string_view name) {
  for (Severity s : {Severity::info, Severity::warning, Severity::error})
    if (name == severity_name(s)) return s;
  return std::nullopt;
}

const char* rule_name(Rule r) {
  switch (r) {
    case Rule::nic_autoneg_off: return "nic.autoneg_off";
    case Rule::nic_half_duplex: return "nic.half_duplex";
    case Rule::nic_speed_below_capability: return "nic.speed_below_capability";
    case Rule::nic_counters_rising: return "nic.counters_rising";
    case Rule::nic_disappeared: return "nic.disappeared";
    case Rule::pcie_link_degraded: return "pcie.link_degraded";
    case Rule::irq_queues_one_cpu: return "irq.queues_one_cpu";
    case Rule::irq_queues_remote_node: return "irq.queues_remote_node";
    case Rule::irqbalance_moves_pinned: return "irqbalance.moves_pinned";
    case Rule::gpu_without_local_nic: return "gpu.no_local_nic";
    case Rule::gpu_driver_mixed: return "gpu.driver_mixed";
    case Rule::gpu_cuda_newer_than_driver: return "gpu.cuda_newer_than_driver";
    case Rule::cpu_governor_powersave: return "cpu.governor_powersave";
    case Rule::cpu_vulnerable: return "cpu.vulnerable";
    case Rule::clock_unsynchronised: return "clock.unsynchronised";
  }
  return "?";
}

const std::vector<Rule>& all_rules() {
  static const std::vector<Rule> rules = {
      Rule::nic_autoneg_off,        Rule::nic_half_duplex,        Rule::nic_speed_below_capability,
      Rule::nic_counters_rising,    Rule::nic_disappeared,        Rule::pcie_link_degraded,
      Rule::irq_queues_one_cpu,     Rule::irq_queues_remote_node, Rule::irqbalance_moves_pinned,
      Rule::gpu_without_local_nic,  Rule::gpu_driver_mixed,       Rule::gpu_cuda_newer_than_driver,
      Rule::cpu_governor_powersave, Rule::cpu_vulnerable,         Rule::clock_unsynchronised};
  return rules;
}

std::optional<Severity> CheckReport::worst() const {
  std::optional<Severity> w;
  for (const Finding& f : findings)
    if (!w || f.severity > *w) w = f.severity;
  return w;
}

unsigned CheckReport::count(Severity s) const {
  return static_cast<unsigned>(
      std::ranges::count_if(findings, [s](const Finding& f) { return f.severity == s; }));
}

unsigned CheckReport::unreadable() const {
  return static_cast<unsigned>(
      std::ranges::count_if(skipped, [](const Skipped& s) { return s.unreadable; }));
}

void sort_findings(std::vector<Finding>& findings) {
  std::ranges::stable_sort(findings, [](const Finding& a, const Finding& b) {
    return std::make_tuple(-static_cast<int>(a.severity), static_cast<int>(a.rule), a.subject) <
           std::make_tuple(-static_cast<int>(b.severity), static_cast<int>(b.rule), b.subject);
  });
}

}  // namespace tuner
