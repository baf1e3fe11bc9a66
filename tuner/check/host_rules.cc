// Host rules: CPU vulnerabilities the kernel reports as not mitigated, and a clock no
// NTP daemon keeps synchronised (adjtimex on the live machine).
#include <cstdlib>

#include <fmt/core.h>

#include "probes/cpu_vulnerabilities.h"
#include "tuner/check/check.h"

namespace tuner {

void check_cpu_vulnerabilities(const CheckInput& in, CheckReport& out) {
  const Host& h = in.inventory.host;
  if (in.hwloc_export) {
    skip(out, Rule::cpu_vulnerable, {"a hwloc export holds no sysfs of its machine"});
    return;
  }
  if (!h.cpu_vulnerabilities) {
    skip(out, Rule::cpu_vulnerable,
         probe_failed(in.inventory, "vulnerabilities", true)
             .value_or(Unavailable{"no sys/devices/system/cpu/vulnerabilities: a kernel before "
                                   "4.15 does not say"}));
    return;
  }
  const std::string microcode = h.microcode.value_or("unknown");
  for (const auto& [name, verdict] : *h.cpu_vulnerabilities) {
    if (!is_vulnerable(verdict)) continue;
    out.findings.push_back(
        {Rule::cpu_vulnerable,
         Severity::warning,
         name,
         fmt::format("the kernel reports the CPU vulnerable to {}: '{}' (microcode {})", name,
                     verdict, microcode),
         {{"sys/devices/system/cpu/vulnerabilities/" + name, verdict},
          {"proc/cpuinfo microcode", microcode},
          {"kernel", h.kernel.value_or("unknown")}},
         "update the CPU microcode (the distribution's intel-microcode or amd64-microcode "
         "package, or the BIOS) and the kernel, then reboot; 'tuner report' over the fleet's "
         "probes names the nodes on other microcode. 'mitigations=off' or 'nospectre_v2' on "
         "the kernel command line turns a mitigation off on purpose"});
  }
}

void check_clock(const CheckInput& in, CheckReport& out) {
  if (!in.clock) {
    skip(out, Rule::clock_unsynchronised,
         in.clock_skipped.value_or(Unavailable{"the clock was not read"}));
    return;
  }
  const ClockSync& c = *in.clock;
  // ntpd steps rather than slews past 128 ms: a PLL offset beyond 100 ms is a clock the
  // daemon is not keeping, or one just set; a synchronised node is within milliseconds.
  constexpr int64_t kMaxOffsetNs = 100'000'000;
  const bool far = std::llabs(c.offset_ns) > kMaxOffsetNs;
  if (!c.unsynchronised() && !far) return;
  const std::string offset = fmt::format("{:.3f} ms", static_cast<double>(c.offset_ns) / 1e6);
  std::string why = c.status_unsync() && c.time_error() ? "STA_UNSYNC, TIME_ERROR"
                    : c.status_unsync()                 ? "STA_UNSYNC"
                                                        : "TIME_ERROR";
  std::string summary =
      c.unsynchronised()
          ? fmt::format("the clock is not synchronised: no NTP daemon has told the kernel it is "
                        "right ({}); logs, traces and timeouts across nodes disagree",
                        why)
          : "";
  if (far)
    summary += (summary.empty() ? "the clock is " : "; it is ") +
               fmt::format("{} off by the NTP daemon's last measure (more than 100 ms)", offset);
  out.findings.push_back(
      {Rule::clock_unsynchronised,
       Severity::warning,
       "clock",
       std::move(summary),
       {{"adjtimex state", clock_state_name(c.state)},
        {"adjtimex status", clock_status_names(c.status)},
        {"adjtimex offset", offset},
        {"adjtimex maxerror", fmt::format("{} us", c.maxerror_us)},
        {"adjtimex esterror", fmt::format("{} us", c.esterror_us)}},
       "run an NTP daemon that reaches a time server (chronyd, or systemd-timesyncd: "
       "'timedatectl set-ntp true'); 'chronyc tracking' or 'timedatectl timesync-status' shows "
       "what it does"});
}

}  // namespace tuner
