// The verify-or-rollback loop (DESIGN.md "The verify loop"): for each group of a plan,
// in order, write it, run the group's benchmark alternately on the baseline (A) and
// candidate (B) settings in the schedule's order, sample the guards around every
// trial, decide with decide() at each look, and keep the group only when its gain is
// proven and no guard tripped; otherwise put it back. Every decision goes into the
// journal with its numbers (a GroupOutcome, outcome.h). The write-ahead protocol underneath (rollback/apply.h)
// makes a crash at any point leave a journal that `tuner rollback` undoes.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "probes/bench/bench.h"
#include "probes/bench/guards.h"
#include "probes/root.h"
#include "rollback/apply.h"
#include "tuner/verify/decision.h"
#include "tuner/verify/guard_decision.h"
#include "tuner/verify/interference.h"
#include "tuner/verify/outcome.h"
#include "tuner/verify/schedule.h"
#include "tuner/verify/soak.h"

namespace tuner::verify {

/// A value search in a group (search.h): the searched knobs and, per candidate tried,
/// the value each gets. The candidate equal to the current value is the baseline and
/// is not listed.
struct SearchPlan {
  std::string setting;                            // "sysctl:net.core.netdev_budget"
  std::vector<std::string> knobs;                 // the knob ids it writes
  std::vector<std::string> values;                // per candidate, as the profile wrote it
  std::vector<std::vector<std::string>> desired;  // per candidate, per knob
};

/// How one group is verified.
struct GroupPlan {
  std::string name;
  /// The benchmark that measures it; nullptr when nothing on this node can see the
  /// change: the group is then kept only with keep_if_neutral (said in the report).
  bench::Benchmark* bench = nullptr;
  bool keep_if_neutral = false;
  /// interleaved for cheap knobs; blocked where a flip is slow (NIC link changes).
  Design design = Design::interleaved;
  /// A rejected group of several knobs is bisected: halves are measured alone against
  /// the baseline to find the knobs that hurt (harm or a guard), and the rest of the
  /// group is then verified without them and kept if it earns it.
  bool bisect = false;
  /// Other benchmarks run beside `bench` in every trial: they do not decide a gain, but
  /// proven harm on any of them rolls the group back like a guard (outcome "guard").
  std::vector<bench::Benchmark*> watches;
  /// The guard soak's window for a group without a benchmark ([group.NAME] soak);
  /// unset: LoopOptions::soak.
  std::optional<std::chrono::milliseconds> soak = std::nullopt;
  /// This group's share of the run's false-keep rate (for the group, and again for
  /// the rest after a bisect); 0: LoopOptions::decision's rate, unshared.
  double false_keep_rate = 0;
  /// A value search: screen the candidates, then verify the best (loop_search.cc).
  std::optional<SearchPlan> search = std::nullopt;
  /// A class decision reused (apply --decisions, docs/fleet-decisions.md): the group is
  /// not measured. write: written and watched by the guard soak alone (class_kept, or
  /// guard when the soak trips); else not written, with `reason`. `info` is the JSON
  /// stats.class_decision (its `suspect` is set here).
  // NOLINTNEXTLINE(bugprone-exception-escape): json's noexcept move, seen through its asserts
  struct Reuse {
    bool write = false;
    Reason reason = Reason::class_kept;
    nlohmann::json info;
  };
  std::optional<Reuse> reuse = std::nullopt;
  /// A keep_if_neutral group's trials only rule out harm: the whole group's measurement
  /// stops once it has used 1/time_share of the budget left when it starts (it is then
  /// kept as neutral, JSON `time_cap`); verified_apply gives each such group the count
  /// of them still to decide, so none starves another. 0: no cap but the budget.
  unsigned time_share = 0;
};

struct LoopOptions {
  Config decision;  // min_effect, false_keep_rate, max_trials
  bench::GuardLimits guards = bench::GuardLimits::defaults();
  std::vector<std::string> guard_interfaces;  // NICs whose drops, errors, flaps count
  GuardTestConfig guard_test;             // the guards' tests; apply adds the since-boot flap prior
  std::chrono::milliseconds settle{100};  // after each flip, before measuring
  /// The settle window after a flip that writes a knob which may take the link down
  /// (nic link, mtu, channels, rings), or after which a guarded NIC's carrier moved:
  /// the trial starts after it, and the carrier changes from the write to its end are
  /// expected, not evidence (counted per arm as `expected`, README.md "Guards").
  std::chrono::milliseconds link_settle{2000};
  std::chrono::seconds budget{600};        // the whole loop; past it: inconclusive
  unsigned block = 3;                      // trials per arm per unit, blocked design
  std::chrono::milliseconds soak{30'000};  // [verify] soak: guard windows, bench = [] groups
  /// The run's seed: each measurement's order comes from it, the group's index and the
  /// step (derive_seed). apply draws it fresh from the kernel; --seed N replays.
  std::uint64_t seed = 1;
  /// A watching benchmark must be shown to lose less than this to allow a keep;
  /// negative: decision.min_effect.
  double watch_margin = -1;
  /// The rest of the node's load, read around every trial: proven to follow the arms,
  /// it rolls the group back (`interference`, README.md "Interference").
  InterferenceConfig interference;
};

/// "class hw-... (FILE): canaries a, b kept it: written, and watched by the soak only":
/// a reused class decision (stats.class_decision) for a person.
std::string class_decision_text(const nlohmann::json& info);

/// What a terminal's progress line shows after each trial.
struct Progress {
  std::string group;
  std::string step;         // "" for the whole group; a bisect step says which knobs
  unsigned trial = 0;       // 1-based, over both arms
  unsigned max_trials = 0;  // over both arms
  Arm arm = Arm::baseline;
  Stats stats;  // of the latest look (look == 0: none yet)
  /// Not a trial: a line to say once about the group before it is decided (a peer that
  /// cannot load it, so the soak decides it); empty for trials.
  std::string note = {};
};
using ProgressFn = std::function<void(const Progress&)>;

/// Runs the loop over every group of run (already prepared and begun by the caller),
/// deciding each one. A failed knob write is returned as an Error; the caller must
/// then abort the run (ApplyRun::abort), as apply without verification does.
class VerifyLoop {
 public:
  VerifyLoop(ApplyRun& run, const Root& root, Clock& clock, LoopOptions options,
             ProgressFn progress = {});
  /// Writes, measures, decides and keeps or undoes one group; journals the decision.
  Result<GroupOutcome> verify_group(const GroupPlan& group);

  struct Arms;
  struct Measured;

 private:
  /// Measures `candidate` (some of the group's written knobs) against the baseline
  /// until the decision stops, the trial cap, a failure or the budget.
  Result<Measured> measure(const GroupPlan& group, const std::vector<std::string>& candidate,
                           Config cfg, const std::string& step);
  /// Proven harm on a watching benchmark, or a keep it was not shown non-inferior for,
  /// trips like a guard.
  void check_watches(Config cfg, Measured& out) const;
  /// True when some watch is not yet shown to lose less than the margin at the main's
  /// look, and none is proven worse: the trials go on.
  bool watches_pending(const Config& cfg, const Measured& out) const;
  Config watch_config(Config cfg, Direction direction) const;
  Result<bool> run_trial(const GroupPlan& group, const std::vector<std::string>& candidate, Arm arm,
                         Arms& arms, std::string* failure);
  /// Puts exactly `live` of the group's knobs at their after values; true when it
  /// wrote something (and then waited options_.settle, or the link settle window:
  /// settle_after_write).
  Result<bool> set_live(const std::string& group, const std::vector<std::string>& live);
  /// After a write of `changed` knobs: waits options_.settle, or options_.link_settle
  /// when a knob may renegotiate the link or a guarded NIC's carrier moved, and adds
  /// the carrier changes since `before` (each NIC's count before the write) to
  /// settle_flaps_. Sets last_settle_.
  void settle_after_write(const std::vector<std::string>& changed,
                          const std::map<std::string, uint64_t>& before);
  /// Each guarded NIC's carrier_changes now; empty when none is guarded or unreadable.
  std::map<std::string, uint64_t> carrier_changes() const;
  /// A value search's screening (loop_search.cc): sets the searched knobs to the
  /// candidate it sends to confirmation and returns true, or false when every
  /// candidate went (the group then ends no_gain). `report` gets the JSON `search`.
  /// `refused`: candidates (index into the search's values) the kernel would not take
  /// at the group's first write (write_search_start); they start out of the race.
  Result<bool> screen(const GroupPlan& group, const std::vector<std::string>& written,
                      const std::map<std::size_t, std::string>& refused, nlohmann::json& report);
  /// After write_group of a search: while the kernel refused a searched knob's value,
  /// the next candidate is written instead (ApplyRun::write_refused). Returns the
  /// candidates refused, with why; every one when none could be written.
  Result<std::map<std::size_t, std::string>> write_search_start(const GroupPlan& group);
  /// Puts the group at one screening arm: 0 the baseline, i the candidate i - 1.
  Status set_arm(const GroupPlan& group, const std::vector<std::string>& written, std::size_t arm);
  /// After a rejection: the knobs that hurt, and the rest kept when it earns it.
  Result<GroupOutcome> bisect(const GroupPlan& group, const Config& cfg, GroupOutcome whole);
  /// A group decided by its class (GroupPlan::reuse): soaked, or not written.
  Result<GroupOutcome> reuse_group(const GroupPlan& group);
  /// The guard soak options for a group no benchmark measures.
  SoakOptions soak_options(const GroupPlan& group) const;
  /// After a soak tripped: the same halving, each part soaked alone.
  Result<GroupOutcome> soak_bisect(const GroupPlan& group, const SoakOptions& so,
                                   GroupOutcome whole);

  ApplyRun& run_;
  const Root& root_;
  Clock& clock_;
  LoopOptions options_;
  ProgressFn progress_;
  Clock::time_point started_;
  std::vector<std::string> live_;    // the group's knobs at their after values now
  std::vector<double> overhead_ms_;  // per trial: its time beyond the benchmark and settling
  std::uint64_t group_index_ = 0;    // groups decided so far: derive_seed's group
  std::uint64_t step_index_ = 0;     // measurements of this group so far: its step
  /// A keep_if_neutral group's share of the budget ends here (GroupPlan::time_share).
  std::optional<Clock::time_point> cap_until_;
  /// Carrier changes inside settle windows since measure() last took them, by NIC.
  std::map<std::string, uint64_t> settle_flaps_;
  Clock::duration last_settle_{};  // the last write's settling wait
};

/// Whether writing this knob may take its link down and up: the link modes, and the
/// MTU, channels and rings, which reset the device on many drivers (i40e, ice, bnxt;
/// veth's channels too). Such a write gets the link settle window, and a group with one
/// flips in blocks (design_for_knobs).
bool may_renegotiate(const std::string& id);

}  // namespace tuner::verify
