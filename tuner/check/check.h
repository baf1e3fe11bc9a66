// tuner check's rules: Inventory and a few facts read beside it -> findings. Pure: every
// rule works on the CheckInput alone, so tests feed it fixtures and fakes; gather.h
// reads the machine (or a capture) into one.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "probes/bench/guards.h"
#include "probes/clock_sync.h"
#include "probes/cuda.h"
#include "probes/inventory.h"
#include "tuner/check/coexist.h"
#include "tuner/check/finding.h"

namespace tuner {

/// NIC counters read twice, `window_s` apart: `before` and `after` hold the NICs both
/// reads found, `vanished` those one of them did not.
struct CounterWindow {
  double window_s = 0;
  std::map<std::string, bench::NicCounters> before, after;
  struct Vanished {
    std::string nic;
    bool at_start = false;  // still there at the window's first read
    bool at_end = false;    // there again at its last (unregistered and back: a reset)
  };
  std::vector<Vanished> vanished;  // in the inventory's order
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

/// The NVIDIA driver and the CUDA runtimes installed beside it (probes/cuda.h).
struct CudaCheck {
  std::string driver;  // host.nvidia_driver: "470.57.02"
  std::vector<CudaRuntime> runtimes;
};

struct CheckInput {
  Inventory inventory;
  bool netlink = false;       // link modes were read (live, ethtool netlink)
  bool hwloc_export = false;  // --topology: no files of the exported machine (IRQs, sysfs)
  std::optional<CounterWindow> counters;
  std::optional<Unavailable> counters_skipped;  // why there is no window
  std::optional<KeptIrqs> kept;
  std::optional<Unavailable> kept_skipped;
  std::optional<GovernorCheck> governor;
  std::optional<Unavailable> governor_skipped;
  std::optional<CudaCheck> cuda;
  std::optional<Unavailable> cuda_skipped;
  std::optional<ClockSync> clock;  // adjtimex on the live machine
  std::optional<Unavailable> clock_skipped;
  /// By knob id: what tuner keeps (state.json) and, over it, what the plan of the
  /// profile in effect writes; tuned's profile and NetworkManager's connections are
  /// compared with these.
  std::map<std::string, TunerSetting> tuner_settings;
  std::optional<TunedCheck> tuned;
  std::optional<Unavailable> tuned_skipped;
  std::optional<NmCheck> nm;
  std::optional<Unavailable> nm_skipped;
};

/// The reason to skip the rules that need `probe`'s part of the inventory when that
/// part is `empty` and the probe said why in inventory.errors (a capture without
/// proc/interrupts, an empty directory as --root): unreadable, with the probe's first
/// error. nullopt when the probe gave something, or had nothing to give without an
/// error (a machine with no NICs).
std::optional<Unavailable> probe_failed(const Inventory& inv, std::string_view probe, bool empty);
/// Adds a Skipped for `rule` with `why`'s reason.
void skip(CheckReport& out, Rule rule, const Unavailable& why);

/// Runs every rule; findings sorted (sort_findings), skipped rules with why.
CheckReport run_checks(const CheckInput& in);

// The rule families, each in its own file; run_checks calls them all.
void check_nic_links(const CheckInput& in, CheckReport& out);            // nic_rules.cc
void check_nic_counters(const CheckInput& in, CheckReport& out);         // nic_rules.cc
void check_pcie(const CheckInput& in, CheckReport& out);                 // gpu_rules.cc
void check_gpus(const CheckInput& in, CheckReport& out);                 // gpu_rules.cc
void check_irqs(const CheckInput& in, CheckReport& out);                 // irq_rules.cc
void check_governor(const CheckInput& in, CheckReport& out);             // check.cc
void check_cuda(const CheckInput& in, CheckReport& out);                 // cuda_rules.cc
void check_cpu_vulnerabilities(const CheckInput& in, CheckReport& out);  // host_rules.cc
void check_clock(const CheckInput& in, CheckReport& out);                // host_rules.cc
void check_tuned(const CheckInput& in, CheckReport& out);                // coexist_rules.cc
void check_networkmanager(const CheckInput& in, CheckReport& out);       // coexist_rules.cc

}  // namespace tuner
