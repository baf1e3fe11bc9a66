// Reads what `tuner check`'s rules need beside the Inventory: NIC counters twice over a
// window, the IRQs kept runs pinned (state.json) and irqbalance's ban list, each cpufreq
// policy's governor, the CUDA runtimes beside the NVIDIA driver, and the kernel's clock
// state (live only). Every read goes through probes or a knob's read(), on the live
// machine or a --root capture alike; nothing is written.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "base/clock.h"
#include "probes/clock_sync.h"
#include "tuner/check/check.h"
#include "tuner/plan/target.h"

namespace tuner {

struct GatherOptions {
  /// Counters are read, then again after this long; 0 skips the sampling.
  std::chrono::milliseconds window{0};
  /// The state directory whose state.json says which IRQs are kept pinned; nullopt
  /// skips the irqbalance rule (a --topology export has no state).
  std::optional<std::string> state_dir;
  /// The profile the governor rule compares with: its name and [cpu] governor (nullopt
  /// when it sets none); no profile at all skips the rule with `governor_skipped`.
  std::optional<std::string> profile;
  std::optional<std::string> profile_governor;
  std::string governor_skipped = "no profile";
  /// What the plan of that profile writes (knob id -> value): compared, with what
  /// state.json keeps, against tuned's profile and NetworkManager's connections.
  std::map<std::string, std::string> planned;
  Clock* clock = &SteadyClock::instance();
  /// The kernel's NTP state on the live machine (adjtimex); tests feed their own.
  std::function<Result<ClockSync>()> read_clock = read_clock_sync;
};

/// Builds the rules' input for `inventory` (probed from target).
CheckInput gather_check_input(const Target& target, Inventory inventory, const GatherOptions& opt);

/// The kept IRQ pins of a state.json's knobs (irq:...:affinity) and irqbalance's ban
/// list as the irqbalance:banned knob reads it ("none" or "57,0000:3b:00.0/msi5"), each
/// IRQ by its number now on `root` (an owner that is gone is left out).
KeptIrqs kept_irqs(const Root& root, const std::map<std::string, std::string>& kept_run_by_knob,
                   const std::string& banned);

}  // namespace tuner
