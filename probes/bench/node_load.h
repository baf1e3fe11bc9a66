// What the rest of the node did while a trial ran: the CPU time and network traffic of
// everything but the benchmark and tuner itself, sampled around each trial like the
// guards, so the verify loop can tell a load that follows the arms (a local user who
// reads which arm is live and burns CPU only on one) from the change it measures
// (tuner/verify/README.md "Interference"). Read through a Root, parsed from text:
//   /proc/stat      the aggregate "cpu" line: idle and iowait, USER_HZ ticks, all CPUs
//   /proc/net/dev   rx and tx bytes of every interface but lo (this network namespace)
//   /proc/uptime    the clock, on a captured root (the live root: CLOCK_MONOTONIC)
// and, on the live root only, getrusage: tuner's own CPU (RUSAGE_SELF, every thread,
// so the in-process tcp, membw and latency benchmarks) and its reaped children's
// (RUSAGE_CHILDREN: an exec benchmark is reaped before its run() returns).
// The CPUs' busy time is the window's length times the online CPUs less their idle and
// iowait time, which a tickless kernel accounts exactly, as getrusage does a task's.
// /proc/stat's own busy columns are sampled at the tick, and a tick that falls while a
// CPU sleeps between a benchmark's wake-ups is lost: with the tcp benchmark running
// they counted 10-15% fewer ticks than the wall clock, so "busy less tuner's exact
// CPU" read -0.1 to -0.2 CPU, by how often the benchmark slept (probes/bench/README.md).
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
  /// Time no task, interrupt or hypervisor (steal) held a CPU.
  uint64_t idle_all() const { return idle + iowait; }
};

struct ProcStat {
  CpuTimes all;
  unsigned cpus = 0;  // the "cpuN" lines: online CPUs
};

/// The "cpu" line and the count of "cpuN" lines of /proc/stat text.
Result<ProcStat> parse_proc_stat(std::string_view text);

/// The first field of /proc/uptime text: seconds since boot.
Result<double> parse_uptime(std::string_view text);

/// One reading of the node's load.
struct LoadSample {
  ProcStat stat;
  long ticks_per_s = 100;  // USER_HZ (sysconf _SC_CLK_TCK)
  /// Seconds: CLOCK_MONOTONIC on the live root, /proc/uptime on a captured one.
  double clock_s = 0;
  /// tuner's own CPU and its reaped children's, seconds; 0 on a captured root.
  double self_s = 0, children_s = 0;
  /// rx + tx bytes of each interface but lo.
  std::map<std::string, uint64_t> interface_bytes;
};

/// Reads proc/stat and proc/net/dev through `root`, and the clock and getrusage when it
/// is live (proc/uptime when it is not).
Result<LoadSample> sample_load(const Root& root);

/// What the rest of the node did between two samples.
struct LoadDelta {
  /// The window, by the clock (0: the samples are the same).
  double seconds = 0;
  /// The CPUs' time not idle less tuner's and its children's, seconds. It holds what
  /// no task is charged with too: interrupts on a CPU woken from idle, the benchmark's
  /// own included (about 0.1 CPU with the tcp benchmark on a 2-vCPU VM). Quantised at
  /// the tick: a quiet trial can come out a little below 0.
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
