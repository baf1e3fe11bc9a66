// What the rest of the node did while a trial ran: the CPU time and network traffic of
// everything but the benchmark and tuner itself, sampled around each trial like the
// guards, so the verify loop can tell a load that follows the arms (a local user who
// reads which arm is live and burns CPU only on one) from the change it measures
// (tuner/verify/README.md "Interference"). Read through a Root, parsed from text:
//   /proc/stat      the aggregate "cpu" line: busy time, USER_HZ ticks, all CPUs
//   /proc/net/dev   rx and tx bytes of every interface but lo (this network namespace)
// and, on the live root only, getrusage: tuner's own CPU (RUSAGE_SELF, every thread,
// so the in-process tcp, membw and latency benchmarks) and its reaped children's
// (RUSAGE_CHILDREN: an exec benchmark is reaped before its run() returns).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "base/result.h"
#include "probes/bench/bench.h"
#include "probes/root.h"

namespace tuner::bench {

/// The aggregate "cpu" line of /proc/stat, in USER_HZ ticks. guest and guest_nice are
/// already inside user and nice, and are not read.
struct CpuTimes {
  uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  /// Time some task, interrupt or the hypervisor (steal) held a CPU.
  uint64_t busy() const { return user + nice + system + irq + softirq + steal; }
  /// Every tick of every CPU: the window's length times the CPUs.
  uint64_t total() const { return busy() + idle + iowait; }
};

struct ProcStat {
  CpuTimes all;
  unsigned cpus = 0;  // the "cpuN" lines: online CPUs
};

/// The "cpu" line and the count of "cpuN" lines of /proc/stat text.
Result<ProcStat> parse_proc_stat(std::string_view text);

/// One reading of the node's load.
struct LoadSample {
  ProcStat stat;
  long ticks_per_s = 100;  // USER_HZ (sysconf _SC_CLK_TCK)
  /// tuner's own CPU and its reaped children's, seconds; 0 on a captured root.
  double self_s = 0, children_s = 0;
  /// rx + tx bytes of each interface but lo.
  std::map<std::string, uint64_t> interface_bytes;
};

/// Reads proc/stat and proc/net/dev through `root`, and getrusage when it is live.
Result<LoadSample> sample_load(const Root& root);

/// What the rest of the node did between two samples.
struct LoadDelta {
  /// The window: /proc/stat's ticks over its CPUs (0: the samples are the same).
  double seconds = 0;
  /// Busy CPU time less tuner's and its children's, seconds. Tick-sampled busy time
  /// less exact rusage: a trial of a quiet node can come out a little below 0.
  double other_cpu_s = 0;
  /// Bytes through every interface but lo.
  uint64_t interface_bytes = 0;
  /// True when the benchmark's own traffic stayed off those interfaces (it reported
  /// its loopback connections), so interface_bytes are all the rest of the node's.
  bool traffic_is_others = false;
};

/// after - before, for a trial whose benchmark measured `m`. A counter that went down
/// (an interface re-created) counts from 0.
LoadDelta load_delta(const LoadSample& before, const LoadSample& after, const Measurement& m);

}  // namespace tuner::bench
