// A finding of `tuner check`: what is wrong with the node, how bad, what was read to
// say so, and what fixes it. Severities and rules are closed sets: enums here, strings
// only in tuner.check/1 JSON and the text report (README.md lists each rule).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/inventory.h"

namespace tuner {

/// Ordered: a finding at or above `--fail-on` makes `tuner check` exit 1.
enum class Severity {
  info,     // worth knowing; may be intended or harmless (a GPU's idle PCIe downshift)
  warning,  // likely costs performance; a tuned node should not show it
  error,    // certain, large loss or faults: half duplex, link flaps, a link at half width
};

enum class Rule {
  nic_autoneg_off,
  nic_half_duplex,
  nic_speed_below_capability,
  nic_counters_rising,
  nic_disappeared,
  pcie_link_degraded,
  irq_queues_one_cpu,
  irq_queues_remote_node,
  irqbalance_moves_pinned,
  gpu_without_local_nic,
  gpu_driver_mixed,
  gpu_cuda_newer_than_driver,
  cpu_governor_powersave,
  cpu_vulnerable,
  clock_unsynchronised,
  tuned_overrides,
  networkmanager_overrides,
  count_,  // not a rule: how many there are (keep last; kAllRules)
};

/// One row per rule, in enum order (finding.cc checks it at compile time): the one list
/// a new rule is added to (CONTRIBUTING.md, "A check rule").
struct RuleInfo {
  Rule rule;
  /// The rule's stable name in JSON and text: "nic.autoneg_off".
  std::string_view name;
};

inline constexpr std::array<RuleInfo, static_cast<std::size_t>(Rule::count_)> kAllRules = {{
    {Rule::nic_autoneg_off, "nic.autoneg_off"},
    {Rule::nic_half_duplex, "nic.half_duplex"},
    {Rule::nic_speed_below_capability, "nic.speed_below_capability"},
    {Rule::nic_counters_rising, "nic.counters_rising"},
    {Rule::nic_disappeared, "nic.disappeared"},
    {Rule::pcie_link_degraded, "pcie.link_degraded"},
    {Rule::irq_queues_one_cpu, "irq.queues_one_cpu"},
    {Rule::irq_queues_remote_node, "irq.queues_remote_node"},
    {Rule::irqbalance_moves_pinned, "irqbalance.moves_pinned"},
    {Rule::gpu_without_local_nic, "gpu.no_local_nic"},
    {Rule::gpu_driver_mixed, "gpu.driver_mixed"},
    {Rule::gpu_cuda_newer_than_driver, "gpu.cuda_newer_than_driver"},
    {Rule::cpu_governor_powersave, "cpu.governor_powersave"},
    {Rule::cpu_vulnerable, "cpu.vulnerable"},
    {Rule::clock_unsynchronised, "clock.unsynchronised"},
    {Rule::tuned_overrides, "tuned.overrides"},
    {Rule::networkmanager_overrides, "networkmanager.overrides"},
}};

const char* severity_name(Severity s);
std::optional<Severity> parse_severity(std::string_view name);
/// The rule's stable name in JSON and text: "nic.autoneg_off" (kAllRules).
const char* rule_name(Rule r);
/// Every rule, in the order the report lists them (kAllRules' order).
const std::vector<Rule>& all_rules();

/// One fact the finding rests on: where it was read and what it said.
struct Evidence {
  std::string
      what;  // "eth1 autoneg (ethtool LINKMODES)", "sys/bus/pci/devices/X/current_link_width"
  std::string value;  // "off", "8"
};

struct Finding {
  Rule rule = Rule::nic_autoneg_off;
  Severity severity = Severity::info;
  std::string subject;  // "eth1", "0000:3b:00.0", "policy0", "irqbalance"
  std::string summary;  // one line for a person
  std::vector<Evidence> evidence;
  std::string fix;  // the profile setting or command that fixes it
};

/// Why a rule's input is not there. `unreadable`: reading it failed (a probe error, a
/// file or directory that cannot be read, an empty capture), so the node was not
/// checked for it and `tuner check` exits 3 unless a finding says more. Otherwise the
/// target cannot have it (link modes in a capture, --window 0, no NVIDIA driver).
struct Unavailable {
  std::string why;
  bool unreadable = false;
};

/// A rule that could not be evaluated, and why: nothing is guessed.
struct Skipped {
  Rule rule = Rule::nic_autoneg_off;
  std::string why;
  bool unreadable = false;  // as Unavailable::unreadable
};

struct CheckReport {
  std::string target;                  // "live", "root:DIR", "xml:FILE"
  std::optional<std::string> profile;  // the profile the governor rule compared with
  double window_s = 0;                 // counters sampled over this long; 0 = not sampled
  std::vector<Finding> findings;       // most severe first, then by rule and subject
  std::vector<Skipped> skipped;
  std::vector<ProbeError> errors;  // what the probe could not read

  /// The most severe finding's severity; nullopt when there is none.
  std::optional<Severity> worst() const;
  unsigned count(Severity s) const;
  /// Rules skipped because reading their input failed (Skipped::unreadable).
  unsigned unreadable() const;
};

/// Orders findings most severe first, then by rule, then by subject (deterministic).
void sort_findings(std::vector<Finding>& findings);

}  // namespace tuner
