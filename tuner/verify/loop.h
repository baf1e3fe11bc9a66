// The verify-or-rollback loop (DESIGN.md "The verify loop"): for each group of a plan,
// in order, write it, run the group's benchmark alternately on the baseline (A) and
// candidate (B) settings in the schedule's order, sample the guards around every
// trial, decide with decide() at each look, and keep the group only when its gain is
// proven and no guard tripped; otherwise put it back. Every decision goes into the
// journal with its numbers. The write-ahead protocol underneath (rollback/apply.h)
// makes a crash at any point leave a journal that `tuner rollback` undoes.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "base/result.h"
#include "probes/bench/bench.h"
#include "probes/bench/guards.h"
#include "probes/root.h"
#include "rollback/apply.h"
#include "tuner/verify/decision.h"
#include "tuner/verify/schedule.h"

namespace tuner::verify {

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
};

struct LoopOptions {
  Config decision;  // min_effect, false_keep_rate, max_trials
  bench::GuardLimits guards = bench::GuardLimits::defaults();
  std::vector<std::string> guard_interfaces;  // NICs whose drops, errors, flaps count
  std::chrono::milliseconds settle{100};      // after each flip, before measuring
  std::chrono::seconds budget{600};           // the whole loop; past it: inconclusive
  unsigned block = 3;                         // trials per block in the blocked design
  std::chrono::milliseconds soak{30'000};     // [verify] soak: guard windows, bench = [] groups
  std::uint64_t seed = 1;
};

/// What a terminal's progress line shows after each trial.
struct Progress {
  std::string group;
  std::string step;         // "" for the whole group; a bisect step says which knobs
  unsigned trial = 0;       // 1-based, over both arms
  unsigned max_trials = 0;  // over both arms
  Arm arm = Arm::baseline;
  Stats stats;  // of the latest look (look == 0: none yet)
};
using ProgressFn = std::function<void(const Progress&)>;

/// Why a group ended as it did.
// NOLINTNEXTLINE(bugprone-exception-escape): json's noexcept move, seen through its asserts
struct GroupOutcome {
  GroupDecision decision = GroupDecision::rolled_back;
  /// "gain", "neutral_kept", "no_gain", "harm", "inconclusive", "guard",
  /// "bench_failed", "budget", "not_measurable", "not_measurable_kept", and
  /// "partly_kept" (a bisect put back the knobs that hurt and kept the rest)
  std::string reason;
  nlohmann::json stats;  // the numbers, as journaled and reported
};

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
  /// Proven harm on a watching benchmark trips like a guard.
  static void check_watches(Config cfg, Measured& out);
  Result<bool> run_trial(const GroupPlan& group, const std::vector<std::string>& candidate, Arm arm,
                         Arms& arms, std::string* failure);
  /// Puts exactly `live` of the group's knobs at their after values; true when it
  /// wrote something (and then waited options_.settle).
  Result<bool> set_live(const std::string& group, const std::vector<std::string>& live);
  /// After a rejection: the knobs that hurt, and the rest kept when it earns it.
  Result<GroupOutcome> bisect(const GroupPlan& group, const Config& cfg, GroupOutcome whole);

  ApplyRun& run_;
  const Root& root_;
  Clock& clock_;
  LoopOptions options_;
  ProgressFn progress_;
  Clock::time_point started_;
  std::vector<std::string> live_;    // the group's knobs at their after values now
  std::vector<double> overhead_ms_;  // per trial: its time beyond the benchmark and settling
};

/// Stats as the journal and tuner.run/1 carry them: medians, effect, ci [low, high],
/// p, trials per arm; NaN and infinities become null.
nlohmann::json stats_json(const Stats& s, const std::string& bench, const std::string& unit,
                          Verdict verdict);

}  // namespace tuner::verify
