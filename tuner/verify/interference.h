// Trials that notice interference (README.md "Interference"). Which arm is live is
// world-readable (/proc/sys, /sys/class/net/*/mtu, /proc/irq/*): a local user who burns
// CPU, or sends traffic, only while one arm is live biases the benchmark as far as the
// statistics allow any systematic effect (a no-effect change measured +463%, p 0.002).
// So every trial also measures the rest of the node's load (probes/bench/node_load.h,
// processes.h: CPU use, CPU demand (use and run queue waits) and interface traffic,
// less tuner's and its benchmark's own), and the arms' per-trial loads are compared
// like a guard: an exact two-sided Mann-Whitney test at 1% AND a material difference
// of the medians (0.25 CPU; 1 MB/s); CPU needs its use and its demand proven the same
// way (one way only beside an exec benchmark). A proven asymmetry makes
// the measurement untrustworthy: never a keep, the group is rolled back as
// `interference`, with the processes that used the CPU asymmetrically named.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "probes/bench/bench.h"
#include "probes/bench/exec.h"
#include "probes/bench/node_load.h"
#include "probes/bench/processes.h"
#include "probes/root.h"
#include "tuner/verify/outcome.h"

namespace tuner::verify {

struct InterferenceConfig {
  bool enabled = true;
  /// Two-sided level of each test (CPU, traffic).
  double level = 0.01;
  /// The arms' median per-trial other CPU must differ by this many CPUs: a steady
  /// background (a build, a daemon) differs by less between randomised arms, and a
  /// tenth of a CPU taken from a benchmark moves it by a few percent at most.
  double cpu_floor = 0.25;
  /// The same for traffic through the interfaces but lo, bytes per second: a node's own
  /// chatter (ARP, LLDP, NDP, ssh, a metrics scrape) is well under 0.1 MB/s, and a
  /// competing flow of 1 MB/s is under 1% of a 1 Gb/s link (README.md "Interference").
  double traffic_floor = 1e6;
  std::size_t consumers = 3;   // processes named in the report
  std::size_t per_trial = 16;  // processes taken from each trial, largest first
  std::size_t tracked = 64;    // processes kept per arm
};

/// The node's load read before or after a trial; either part may be missing (a captured
/// root has no proc/stat), and then the trial adds nothing.
struct LoadReading {
  std::optional<bench::LoadSample> load;
  std::optional<bench::ProcessSample> processes;
  std::string error;
};
/// Before a trial: the processes, then the load (the load's window the tighter).
LoadReading read_load_before(const Root& root, const InterferenceConfig& cfg);
/// After a trial: the load, then the processes.
LoadReading read_load_after(const Root& root, const InterferenceConfig& cfg);

/// One trial's numbers: what OtherLoad::add reads around a trial, or what a test gives.
struct TrialLoad {
  bench::LoadDelta load;
  /// Seconds the other processes' threads waited on a run queue; `waits`: they were
  /// read (CONFIG_SCHED_INFO).
  double wait_s = 0;
  bool waits = false;
  std::vector<bench::ProcessUse> uses;
  /// The trial ran a command (an exec benchmark, deciding or watching): its program may
  /// drive processes outside tuner's tree (an iperf3 server, a database) whose CPU
  /// follows its speed, so a busier candidate is no sign of a steer.
  bool commands = false;
};

/// The rest of the node's load over one arm's trials.
struct OtherLoad {
  /// Per trial: CPU-seconds the rest of the node used per wall second, and (trials
  /// whose run queue waits were read) used or waited for: its demand. On a busy node
  /// the benchmark's own share moves the first of an always-runnable neighbour and the
  /// waits of one that sleeps in between; a steer moves both.
  std::vector<double> cpu, demand;
  std::vector<double> traffic;   // per trial whose benchmark kept off the interfaces: bytes/s
  double seconds = 0;            // the trials' windows, summed
  unsigned traffic_unknown = 0;  // trials whose benchmark's own traffic may cross them
  unsigned unmeasured = 0;       // trials whose load could not be read
  unsigned command_trials = 0;   // trials that ran a command (TrialLoad::commands)
  std::string error;             // the first unreadable reading's
  struct Process {
    std::string comm;
    std::optional<uint32_t> uid;
    bool kernel_thread = false;
    double demand_s = 0;  // used or waited for
  };
  std::map<std::pair<int, uint64_t>, Process> processes;  // by pid and start time
  /// Adds one trial: its load between the readings and the processes' CPU in it;
  /// `commands`: it ran an exec benchmark (runs_a_command).
  void add(const LoadReading& before, const LoadReading& after, const bench::Measurement& m,
           bool commands, const Root& root, const InterferenceConfig& cfg);
  /// Adds one trial's numbers.
  void add(const TrialLoad& t, const InterferenceConfig& cfg);
};

/// Whether a benchmark runs a command (exec), which may drive processes outside tuner's
/// process tree. Its CPU test then judges one way only: the rest of the node busier in
/// the baseline's trials, the steer that makes a candidate look better (README.md
/// "Interference").
bool runs_a_command(const bench::Benchmark& b);

/// Judges whether the rest of the node's load followed the arms: traffic, and CPU use
/// and demand, each proven when p <= level and the medians differ by the floor or more
/// (CPU with a command in the trials: only when the baseline's trials were the busier);
/// CPU counts when its use is proven and, where waits were read, its demand the same way.
Interference judge_interference(const OtherLoad& baseline, const OtherLoad& candidate,
                                const InterferenceConfig& cfg = {});

/// True while the arms' medians differ by a floor or more but the test has not proven
/// it: a keep at an early look waits for more trials (the loop's next look).
bool interference_pending(const OtherLoad& baseline, const OtherLoad& candidate,
                          const InterferenceConfig& cfg = {});

}  // namespace tuner::verify
