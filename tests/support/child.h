// Test support: a child process for the tests that bind or move one (numa:pid, a cpuset
// cgroup), and the CPUs this process may use to move it between.
#pragma once

#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "base/cpuset.h"
#include "probes/root.h"
#include "tuner/knobs/numa_knobs.h"

namespace tuner::testing {

/// The CPUs this process may run on (sched_getaffinity); throws when it cannot say.
inline CpuSet own_cpus() {
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) != 0)
    throw std::runtime_error(std::string("sched_getaffinity: ") + std::strerror(errno));
  CpuSet out;
  for (unsigned cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) out.add(cpu);
  return out;
}

/// A child (`sleep 60`) that is killed and reaped when this goes, or at stop(). Throws
/// when it cannot be started or its /proc/PID/stat cannot be read.
class SleepingChild {
 public:
  SleepingChild() {
    const char* argv[] = {"sleep", "60", nullptr};
    int rc = ::posix_spawnp(&pid_, "sleep", nullptr, nullptr, const_cast<char**>(argv), environ);
    if (rc != 0) throw std::runtime_error(std::string("posix_spawnp sleep: ") + std::strerror(rc));
    auto stat = Root::live().read("proc/" + std::to_string(pid_) + "/stat");
    Result<unsigned long long> start = stat.ok() ? parse_stat_starttime(*stat, "stat")
                                                 : Result<unsigned long long>(stat.error());
    if (!start.ok()) {
      stop();
      throw std::runtime_error(start.error().message());
    }
    start_time_ = *start;
  }
  ~SleepingChild() { stop(); }
  SleepingChild(const SleepingChild&) = delete;
  SleepingChild& operator=(const SleepingChild&) = delete;

  pid_t pid() const { return pid_; }
  /// Its start time (field 22 of /proc/PID/stat): with the pid, a numa:pid knob's id.
  unsigned long long start_time() const { return start_time_; }

  /// Kills and reaps it now; later calls do nothing.
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
  unsigned long long start_time_ = 0;
};

}  // namespace tuner::testing
