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

std::vector<ProcessUse> process_use(const ProcessSample& before, const ProcessSample& after,
                                    std::size_t limit) {
  // Tuner and its descendants, by the parent links of both samples.
  std::multimap<int, int> children;
  for (const auto* sample : {&before, &after})
    for (const PidStat& p : sample->processes) children.emplace(p.ppid, p.pid);
  std::set<int> ours;
  if (after.self > 0) {
    std::vector<int> todo = {after.self};
    while (!todo.empty()) {
      int pid = todo.back();
      todo.pop_back();
      if (!ours.insert(pid).second) continue;
      auto [from, to] = children.equal_range(pid);
      for (auto it = from; it != to; ++it) todo.push_back(it->second);
    }
  }
  std::map<std::pair<int, uint64_t>, uint64_t> was;
  for (const PidStat& p : before.processes) was[{p.pid, p.starttime}] = p.ticks();
  auto hz = static_cast<double>(after.ticks_per_s > 0 ? after.ticks_per_s : 100);
  std::vector<ProcessUse> out;
  for (const PidStat& p : after.processes) {
    if (ours.contains(p.pid)) continue;
    auto it = was.find({p.pid, p.starttime});
    uint64_t from = it == was.end() ? 0 : it->second;
    if (p.ticks() <= from) continue;
    out.push_back({p.pid, p.starttime, p.comm, p.kernel_thread(),
                   static_cast<double>(p.ticks() - from) / hz, std::nullopt});
  }
  std::sort(out.begin(), out.end(), [](const ProcessUse& a, const ProcessUse& b) {
    return a.cpu_s != b.cpu_s ? a.cpu_s > b.cpu_s : a.pid < b.pid;
  });
  if (out.size() > limit) out.resize(limit);
  return out;
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
