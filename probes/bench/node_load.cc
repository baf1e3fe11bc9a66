#include "probes/bench/node_load.h"

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <vector>

#include <fmt/core.h>

#include "base/strings.h"
#include "probes/bench/net_dev.h"

namespace tuner::bench {

namespace {

uint64_t increase(uint64_t before, uint64_t after) {
  return after >= before ? after - before : after;
}

double seconds_of(const timeval& t) {
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
}

}  // namespace

Result<ProcStat> parse_proc_stat(std::string_view text) {
  ProcStat out;
  bool have_all = false;
  for (std::string_view line : split(text, '\n')) {
    if (!starts_with(line, "cpu")) continue;
    std::vector<std::string_view> f = split_ws(line);
    if (f.empty()) continue;
    if (f[0] != "cpu") {
      ++out.cpus;  // "cpu0", "cpu1", ...
      continue;
    }
    // user nice system idle iowait irq softirq steal [guest guest_nice]: kernels since
    // 2.6.11 print at least the eight.
    if (f.size() < 9)
      return Error::invalid(
          fmt::format("the cpu line has {} fields, expected 8 or more", f.size() - 1),
          "/proc/stat");
    uint64_t* fields[] = {&out.all.user,   &out.all.nice, &out.all.system,  &out.all.idle,
                          &out.all.iowait, &out.all.irq,  &out.all.softirq, &out.all.steal};
    for (std::size_t i = 0; i < 8; ++i) {
      std::optional<uint64_t> v = parse_u64(f[i + 1]);
      if (!v)
        return Error::invalid(fmt::format("cpu line: '{}' is not a tick count", f[i + 1]),
                              "/proc/stat");
      *fields[i] = *v;
    }
    have_all = true;
  }
  if (!have_all) return Error::missing("no cpu line", "/proc/stat");
  if (out.cpus == 0) return Error::invalid("no cpuN lines", "/proc/stat");
  return out;
}

Result<double> parse_uptime(std::string_view text) {
  std::vector<std::string_view> f = split_ws(text);
  std::string first = f.empty() ? std::string() : std::string(f[0]);
  char* end = nullptr;
  double v = first.empty() ? -1 : std::strtod(first.c_str(), &end);
  if (first.empty() || end != first.c_str() + first.size() || !(v >= 0))
    return Error::invalid(fmt::format("'{}' is not seconds since boot", first), "/proc/uptime");
  return v;
}

Result<LoadSample> sample_load(const Root& root) {
  LoadSample s;
  auto stat_text = root.read("proc/stat");
  if (!stat_text.ok()) return stat_text.error();
  auto stat = parse_proc_stat(*stat_text);
  if (!stat.ok()) return stat.error();
  s.stat = *stat;
  if (root.is_live()) {
    timespec now{};
    if (::clock_gettime(CLOCK_MONOTONIC, &now) != 0)
      return errno_error("clock_gettime", "CLOCK_MONOTONIC");
    s.clock_s = static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
  } else {
    auto uptime_text = root.read("proc/uptime");
    if (!uptime_text.ok()) return uptime_text.error();
    auto uptime = parse_uptime(*uptime_text);
    if (!uptime.ok()) return uptime.error();
    s.clock_s = *uptime;
  }
  auto dev_text = root.read("proc/net/dev");
  if (!dev_text.ok()) return dev_text.error();
  auto rows = parse_net_dev_rows(*dev_text);
  if (!rows.ok()) return rows.error();
  for (const auto& [name, r] : *rows)
    if (name != "lo") s.interface_bytes[name] = r.rx_bytes() + r.tx_bytes();
  if (root.is_live()) {
    // Only the live machine's tuner is this process.
    if (long hz = ::sysconf(_SC_CLK_TCK); hz > 0) s.ticks_per_s = hz;
    rusage self{}, children{};
    if (::getrusage(RUSAGE_SELF, &self) != 0) return errno_error("getrusage", "RUSAGE_SELF");
    if (::getrusage(RUSAGE_CHILDREN, &children) != 0)
      return errno_error("getrusage", "RUSAGE_CHILDREN");
    s.self_s = seconds_of(self.ru_utime) + seconds_of(self.ru_stime);
    s.children_s = seconds_of(children.ru_utime) + seconds_of(children.ru_stime);
  }
  return s;
}

LoadDelta load_delta(const LoadSample& before, const LoadSample& after, const Measurement& m) {
  LoadDelta d;
  auto hz = static_cast<double>(after.ticks_per_s > 0 ? after.ticks_per_s : 100);
  unsigned cpus = after.stat.cpus > 0 ? after.stat.cpus : 1;
  d.seconds = std::max(0.0, after.clock_s - before.clock_s);
  double idle =
      static_cast<double>(increase(before.stat.all.idle_all(), after.stat.all.idle_all())) / hz;
  double busy = cpus * d.seconds - idle;
  d.other_cpu_s = busy - (after.self_s - before.self_s) - (after.children_s - before.children_s);
  for (const auto& [name, bytes] : after.interface_bytes) {
    auto was = before.interface_bytes.find(name);
    d.interface_bytes += increase(was == before.interface_bytes.end() ? 0 : was->second, bytes);
  }
  d.traffic_is_others = m.loopback.has_value();
  return d;
}

}  // namespace tuner::bench
