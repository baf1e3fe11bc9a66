// latency: timer wake-up latency, as cyclictest measures it. One thread per chosen CPU,
// bound to it (optionally SCHED_FIFO, memory locked), sleeps to absolute deadlines
// (clock_nanosleep CLOCK_MONOTONIC TIMER_ABSTIME) one interval apart; each wake-up's
// latency is the time it woke minus the deadline.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/cpuset.h"
#include "base/result.h"
#include "probes/bench/bench.h"
#include "probes/bench/percentile.h"
#include "probes/inventory.h"

namespace tuner::bench {

struct LatencyOptions {
  /// CPUs to measure, one thread each, all at once; empty = the last allowed CPU of
  /// each NUMA node (bench_cpus.h says why).
  CpuSet cpus;
  std::chrono::microseconds interval{1000};
  /// Each thread takes duration / interval samples.
  std::chrono::milliseconds duration{1000};
  /// SCHED_FIFO priority (cyclictest -p); 0 = SCHED_OTHER. Refused without
  /// CAP_SYS_NICE: the run then uses SCHED_OTHER and says so.
  int priority = 80;
  /// mlockall for the run (cyclictest -m), so no wake-up waits on a page fault.
  bool lock_memory = true;
  /// The metric that decides (first in the list): the worst CPU's p99 (default), its
  /// p99.99, or its maximum. A once-a-second disturbance (vmstat's per-CPU update, a
  /// timer that migrates) is one wake-up in a thousand at 1 ms: p99 never sees it; the
  /// maximum of a run of several seconds does.
  enum class Main { p99, p9999, max };
  Main main = Main::p99;
};

/// One CPU's wake-ups, in nanoseconds.
struct CpuLatency {
  unsigned cpu = 0;
  Percentiles ns;
  uint64_t overruns = 0;  // deadlines passed over because a wake-up came later than the next
};

/// The metrics of a run, main first, all µs and lower-is-better: wakeup_p99 (the worst
/// CPU's p99, so that one CPU made worse is not averaged away), wakeup_p50 (worst
/// CPU's median), wakeup_max, wakeup_p9999; then wakeup_overruns (count); then, with
/// more than one CPU, wakeup_p50_cpuN, wakeup_p99_cpuN, wakeup_max_cpuN; last
/// sched_priority, the SCHED_FIFO priority the threads got (0 = SCHED_OTHER), higher =
/// as asked. With main p9999 or max, that metric is moved to the front.
std::vector<Metric> latency_metrics(const std::vector<CpuLatency>& cpus, int priority_used,
                                    LatencyOptions::Main main = LatencyOptions::Main::p99);

/// The CPUs a run uses: opts.cpus, or the default choice. An Error when one is not
/// allowed to this process or none is left.
Result<CpuSet> latency_cpus(const Topology& topo, const CpuSet& allowed,
                            const LatencyOptions& opts);

/// The benchmark; the topology is the inventory's. notes() of the result say what was
/// refused (SCHED_FIFO, mlockall).
class LatencyBench final : public Benchmark {
 public:
  LatencyBench(Topology topo, LatencyOptions opts);
  const std::string& name() const override { return name_; }
  Status check() override;
  Result<Measurement> run() override;
  /// What the last run could not do as asked ("SCHED_FIFO 80 refused: ..."); empty
  /// when everything was granted.
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  Topology topo_;
  LatencyOptions opts_;
  std::vector<std::string> notes_;
  std::string name_ = "latency";
};

std::unique_ptr<Benchmark> make_latency(Topology topo, LatencyOptions opts = {});

}  // namespace tuner::bench
