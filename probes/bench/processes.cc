#include "probes/bench/processes.h"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include <fmt/core.h>

#include "base/strings.h"

namespace tuner::bench {

Result<PidStat> parse_pid_stat(std::string_view text) {
  // "PID (COMM) STATE PPID ...": COMM may hold ')', spaces and newlines, the fields
  // after it cannot, so they start after the last ')'.
  auto open = text.find('(');
  auto close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open)
    return Error::invalid("no (comm)", "/proc/PID/stat");
  PidStat s;
  auto pid = parse_u64(trim(text.substr(0, open)));
  if (!pid || *pid > 0x7fffffff)
    return Error::invalid(fmt::format("'{}' is not a pid", trim(text.substr(0, open))),
                          "/proc/PID/stat");
  s.pid = static_cast<int>(*pid);
  s.comm = std::string(text.substr(open + 1, close - open - 1));
  // Fields 3..: state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
  // cmajflt utime stime cutime cstime priority nice num_threads itrealvalue starttime.
  std::vector<std::string_view> f = split_ws(text.substr(close + 1));
  if (f.size() < 20)
    return Error::invalid(fmt::format("{} fields after the comm, expected 20 or more", f.size()),
                          "/proc/PID/stat");
  if (f[0].size() != 1) return Error::invalid("no one-letter state", "/proc/PID/stat");
  s.state = f[0][0];
  auto number = [&](std::size_t i) { return parse_u64(f[i]); };
  auto ppid = number(1), flags = number(6), utime = number(11), stime = number(12);
  // cutime and cstime are signed in the kernel's format (long); never negative in fact.
  auto cutime = number(13), cstime = number(14), start = number(19);
  if (!ppid || !flags || !utime || !stime || !cutime || !cstime || !start || *ppid > 0x7fffffff ||
      *flags > 0xffffffffULL)
    return Error::invalid("a field that is not a number", "/proc/PID/stat");
  s.ppid = static_cast<int>(*ppid);
  s.flags = static_cast<unsigned>(*flags);
  s.utime = *utime;
  s.stime = *stime;
  s.cutime = *cutime;
  s.cstime = *cstime;
  s.starttime = *start;
  return s;
}

std::optional<uint64_t> parse_schedstat_wait(std::string_view text) {
  std::vector<std::string_view> f = split_ws(text);
  if (f.size() < 2) return std::nullopt;
  return parse_u64(f[1]);
}

std::optional<uint32_t> parse_status_uid(std::string_view text) {
  for (std::string_view line : split(text, '\n')) {
    if (!starts_with(line, "Uid:")) continue;
    std::vector<std::string_view> f = split_ws(line.substr(4));
    if (f.empty()) return std::nullopt;
    auto uid = parse_u64(f[0]);
    if (!uid || *uid > 0xffffffffULL) return std::nullopt;
    return static_cast<uint32_t>(*uid);
  }
  return std::nullopt;
}

Result<ProcessSample> sample_processes(const Root& root, std::size_t cap) {
  ProcessSample s;
  std::size_t threads = 0;
  auto names = root.list("proc");
  if (!names.ok()) return names.error();
  for (const std::string& name : *names) {
    if (name.empty() ||
        !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    if (s.processes.size() >= cap) {
      s.capped = true;
      break;
    }
    auto text = root.read("proc/" + name + "/stat");
    if (!text.ok()) continue;  // exited since the listing, or hidden (hidepid)
    auto stat = parse_pid_stat(*text);
    if (!stat.ok()) continue;
    auto tasks = threads < kMaxThreads
                     ? root.list("proc/" + name + "/task")
                     : Result<std::vector<std::string>>(std::vector<std::string>{});
    if (threads >= kMaxThreads) s.capped = true;
    for (const std::string& tid : tasks.ok() ? *tasks : std::vector<std::string>{}) {
      if (++threads > kMaxThreads) break;
      auto sched = root.read("proc/" + name + "/task/" + tid + "/schedstat");
      std::optional<uint64_t> wait = sched.ok() ? parse_schedstat_wait(*sched) : std::nullopt;
      if (!wait) continue;
      stat->wait_ns += *wait;
      s.waits = true;
    }
    s.processes.push_back(std::move(stat).value());
  }
  std::sort(s.processes.begin(), s.processes.end(),
            [](const PidStat& a, const PidStat& b) { return a.pid < b.pid; });
  if (root.is_live()) {
    s.self = static_cast<int>(::getpid());
    if (long hz = ::sysconf(_SC_CLK_TCK); hz > 0) s.ticks_per_s = hz;
  }
  return s;
}

namespace {

/// `self` and its descendants, by the parent links of both samples.
std::set<int> tree_of(int self, const ProcessSample& before, const ProcessSample& after) {
  std::set<int> ours;
  if (self <= 0) return ours;
  std::multimap<int, int> children;
  for (const auto* sample : {&before, &after})
    for (const PidStat& p : sample->processes) children.emplace(p.ppid, p.pid);
  std::vector<int> todo = {self};
  while (!todo.empty()) {
    int pid = todo.back();
    todo.pop_back();
    if (!ours.insert(pid).second) continue;
    auto [from, to] = children.equal_range(pid);
    for (auto it = from; it != to; ++it) todo.push_back(it->second);
  }
  return ours;
}

/// Each process of `after` outside tuner's tree with what it was in `before` (nullptr:
/// new since).
template <typename F>
void each_other(const ProcessSample& before, const ProcessSample& after, F f) {
  std::set<int> ours = tree_of(after.self, before, after);
  std::map<std::pair<int, uint64_t>, const PidStat*> was;
  for (const PidStat& p : before.processes) was[{p.pid, p.starttime}] = &p;
  for (const PidStat& p : after.processes) {
    if (ours.contains(p.pid)) continue;
    auto it = was.find({p.pid, p.starttime});
    f(p, it == was.end() ? nullptr : it->second);
  }
}

uint64_t grown(uint64_t before, uint64_t after) { return after > before ? after - before : 0; }

}  // namespace

std::vector<ProcessUse> process_use(const ProcessSample& before, const ProcessSample& after,
                                    std::size_t limit) {
  auto hz = static_cast<double>(after.ticks_per_s > 0 ? after.ticks_per_s : 100);
  std::vector<ProcessUse> out;
  each_other(before, after, [&](const PidStat& p, const PidStat* was) {
    uint64_t ticks = grown(was ? was->ticks() : 0, p.ticks());
    uint64_t wait = grown(was ? was->wait_ns : 0, p.wait_ns);
    if (ticks == 0 && wait == 0) return;
    out.push_back({p.pid, p.starttime, p.comm, p.kernel_thread(), static_cast<double>(ticks) / hz,
                   static_cast<double>(wait) / 1e9, std::nullopt});
  });
  std::sort(out.begin(), out.end(), [](const ProcessUse& a, const ProcessUse& b) {
    return a.demand_s() != b.demand_s() ? a.demand_s() > b.demand_s() : a.pid < b.pid;
  });
  if (out.size() > limit) out.resize(limit);
  return out;
}

double others_wait_s(const ProcessSample& before, const ProcessSample& after) {
  uint64_t ns = 0;
  each_other(before, after, [&](const PidStat& p, const PidStat* was) {
    // A kernel thread's wait is the benchmark's too (ksoftirqd runs its deferred
    // network work and queues behind it); its use is in /proc/stat's either way.
    if (!p.kernel_thread()) ns += grown(was ? was->wait_ns : 0, p.wait_ns);
  });
  return static_cast<double>(ns) / 1e9;
}

void read_uids(const Root& root, std::vector<ProcessUse>& uses) {
  for (ProcessUse& u : uses) {
    auto text = root.read(fmt::format("proc/{}/status", u.pid));
    if (!text.ok()) continue;
    // Still the same process (not a new one with its pid) after the status was read.
    auto stat_text = root.read(fmt::format("proc/{}/stat", u.pid));
    auto stat = stat_text.ok() ? parse_pid_stat(*stat_text) : Result<PidStat>(stat_text.error());
    if (stat.ok() && stat->starttime == u.starttime) u.uid = parse_status_uid(*text);
  }
}

}  // namespace tuner::bench
