// tuner check's rules: Inventory and a few facts read beside it -> findings. Pure: every
// rule works on the CheckInput alone, so tests feed it fixtures and fakes; gather.h
// reads the machine (or a capture) into one.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "probes/bench/guards.h"
#include "probes/inventory.h"
#include "tuner/check/finding.h"

namespace tuner {

/// NIC counters read twice, `window_s` apart.
struct CounterWindow {
  double window_s = 0;
  std::map<std::string, bench::NicCounters> before, after;
};

/// The IRQ affinities kept runs pinned (state.json), and the IRQs irqbalance is told
/// to leave alone (the irqbalance:banned knob as read: its drop-in). A run that stopped
/// irqbalance needs no ban, but irqbalance running again undoes it all the same.
/// Both by the IRQ's number now (an id by owner is found where its vector is now).
struct KeptIrqs {
  struct Pin {
    std::string knob;  // the state.json id: "irq:57:affinity", "irq:0000:3b:00.0/msi5:affinity"
    std::string run;   // the run that keeps it
  };
  std::map<unsigned, Pin> pinned;
  std::set<unsigned> banned;
};

/// The governor a profile asks for, against what each cpufreq policy runs.
struct GovernorCheck {
  std::string profile;                      // the profile's name
  std::string wanted;                       // its [cpu] governor
  std::map<unsigned, std::string> current;  // policy -> scaling_governor as read
};

struct CheckInput {
  Inventory inventory;
  bool netlink = false;  // link modes were read (live, ethtool netlink)
  std::optional<CounterWindow> counters;
  std::optional<std::string> counters_skipped;  // why there is no window
  std::optional<KeptIrqs> kept;
  std::optional<std::string> kept_skipped;
  std::optional<GovernorCheck> governor;
  std::optional<std::string> governor_skipped;
};

/// Runs every rule; findings sorted (sort_findings), skipped rules with why.
CheckReport run_checks(const CheckInput& in);

// The rule families, each in its own file; run_checks calls them all.
void check_nic_links(const CheckInput& in, CheckReport& out);     // nic_rules.cc
void check_nic_counters(const CheckInput& in, CheckReport& out);  // nic_rules.cc
void check_pcie(const CheckInput& in, CheckReport& out);          // gpu_rules.cc
void check_gpus(const CheckInput& in, CheckReport& out);          // gpu_rules.cc
void check_irqs(const CheckInput& in, CheckReport& out);          // irq_rules.cc
void check_governor(const CheckInput& in, CheckReport& out);      // check.cc

}  // namespace tuner
