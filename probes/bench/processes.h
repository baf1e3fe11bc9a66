// Which processes used or waited for the CPU between two samples: /proc/PID/stat of
// every process and /proc/PID/task/TID/schedstat of its threads, read around each
// trial, so that an interference the verify loop proves has names, and so that it can
// judge the rest of the node's demand for CPU, not only its use (tuner/verify/README.md
// "Interference": on a busy node the others' use mirrors the benchmark's). /proc/PID/stat and status are hostile input:
// a process names itself (prctl PR_SET_NAME) with any 15 bytes but NUL, ')' and newlines
// and escape codes included, so stat is parsed from its last ')' and a name is shown
// only through escape_controls. The work is bounded: at most kMaxProcesses are read per
// sample, and process_use keeps the largest users.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "probes/root.h"

namespace tuner::bench {

/// The fields of /proc/PID/stat tuner reads, times in USER_HZ ticks.
struct PidStat {
  int pid = 0;
  std::string comm;  // as the process set it: untrusted bytes
  char state = '?';
  int ppid = 0;
  unsigned flags = 0;
  uint64_t utime = 0, stime = 0, cutime = 0, cstime = 0;
  uint64_t starttime = 0;  // ticks after boot: with pid, one process for good
  /// Nanoseconds its threads have waited on a run queue (schedstat run_delay, summed
  /// over /proc/PID/task); sample_processes fills it, parse_pid_stat does not.
  uint64_t wait_ns = 0;
  /// PF_KTHREAD: a kernel thread (ksoftirqd, kworker), no user's.
  bool kernel_thread() const { return (flags & 0x00200000U) != 0; }
  /// Its own CPU and that of the children it reaped: a shell loop's short-lived
  /// commands are charged to the shell as they are reaped.
  uint64_t ticks() const { return utime + stime + cutime + cstime; }
};

/// One /proc/PID/stat line: the comm between the first '(' and the last ')', the
/// fields after that ')' by position.
Result<PidStat> parse_pid_stat(std::string_view text);

/// The run_delay (second field, nanoseconds waiting on a run queue) of
/// /proc/PID/task/TID/schedstat text ("runtime run_delay timeslices").
std::optional<uint64_t> parse_schedstat_wait(std::string_view text);

/// The real uid of /proc/PID/status text ("Uid:\treal\teffective\tsaved\tfs"); nullopt
/// without one.
std::optional<uint32_t> parse_status_uid(std::string_view text);

/// Processes read per sample at most: a node with more (a fork bomb, a huge container
/// host) is sampled in part, and the sample says so.
inline constexpr std::size_t kMaxProcesses = 4096;
/// Threads whose schedstat is read per sample at most.
inline constexpr std::size_t kMaxThreads = 16384;

struct ProcessSample {
  std::vector<PidStat> processes;  // by pid
  int self = 0;                    // this process's pid on the live root, else 0
  long ticks_per_s = 100;          // USER_HZ
  bool capped = false;             // more processes (or threads) than were read
  bool waits = false;              // some schedstat was read (CONFIG_SCHED_INFO)
};

/// Every /proc/PID/stat under `root` (up to `cap`) with its threads' run queue waits;
/// a process that exits while it is read is left out.
Result<ProcessSample> sample_processes(const Root& root, std::size_t cap = kMaxProcesses);

/// One process's CPU between two samples.
struct ProcessUse {
  int pid = 0;
  uint64_t starttime = 0;
  std::string comm;
  bool kernel_thread = false;
  double cpu_s = 0;             // used
  double wait_s = 0;            // waited for, on a run queue
  std::optional<uint32_t> uid;  // read_uids sets it
  double demand_s() const { return cpu_s + wait_s; }
};

/// The processes that used or waited for CPU between `before` and `after`, largest
/// demand first, at most `limit`, leaving out `after.self` and its descendants (tuner
/// and its benchmarks, whose CPU the load sample subtracts). A process new in `after`
/// started in between and counts from 0; pid and starttime tell a reused pid from the
/// old process.
std::vector<ProcessUse> process_use(const ProcessSample& before, const ProcessSample& after,
                                    std::size_t limit);

/// Seconds every process but tuner's tree and the kernel's threads waited on a run
/// queue between the samples:
/// with their use, their demand for CPU, which does not depend on how much of a busy
/// node the benchmark took.
double others_wait_s(const ProcessSample& before, const ProcessSample& after);

/// Sets each use's uid from proc/PID/status; one that exited (or whose pid another
/// process took since) stays unknown.
void read_uids(const Root& root, std::vector<ProcessUse>& uses);

}  // namespace tuner::bench
