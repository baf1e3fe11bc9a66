#include "tuner/check/check.h"

#include <algorithm>

#include <fmt/core.h>

namespace tuner {

namespace {

bool is_pstate(const std::optional<std::string>& driver) {
  return driver == "intel_pstate" || driver == "amd-pstate" || driver == "amd-pstate-epp";
}

}  // namespace

std::optional<Unavailable> probe_failed(const Inventory& inv, std::string_view probe, bool empty) {
  if (!empty) return std::nullopt;
  for (const ProbeError& e : inv.errors)
    if (e.probe == probe)
      return Unavailable{"the " + e.probe + " probe failed: " + e.message, true};
  return std::nullopt;
}

void skip(CheckReport& out, Rule rule, const Unavailable& why) {
  out.skipped.push_back({rule, why.why, why.unreadable});
}

// The governor rule: a profile that asks for a governor (throughput, latency, ...)
// against policies left on powersave. Under intel_pstate and amd-pstate (active mode)
// "powersave" still scales with load, only later; under every other driver it holds
// the lowest frequency.
void check_governor(const CheckInput& in, CheckReport& out) {
  if (!in.governor) {
    skip(out, Rule::cpu_governor_powersave,
         in.governor_skipped.value_or(Unavailable{"no profile"}));
    return;
  }
  const GovernorCheck& g = *in.governor;
  if (g.wanted == "powersave") return;
  for (const auto& [policy, current] : g.current) {
    if (current != "powersave") continue;
    std::optional<std::string> driver;
    if (in.inventory.cpufreq)
      for (const CpufreqPolicy& p : *in.inventory.cpufreq)
        if (p.id == policy) driver = p.driver;
    bool dynamic = is_pstate(driver);
    std::string dir = fmt::format("sys/devices/system/cpu/cpufreq/policy{}/", policy);
    out.findings.push_back(
        {Rule::cpu_governor_powersave,
         dynamic ? Severity::warning : Severity::error,
         fmt::format("policy{}", policy),
         dynamic ? fmt::format("policy{} runs the powersave governor ({}), profile '{}' asks "
                               "for {}: frequency ramps up late after idle",
                               policy, driver.value_or("?"), g.profile, g.wanted)
                 : fmt::format("policy{} runs the powersave governor ({}): its CPUs stay at "
                               "the lowest frequency; profile '{}' asks for {}",
                               policy, driver.value_or("unknown driver"), g.profile, g.wanted),
         {{dir + "scaling_governor", current},
          {dir + "scaling_driver", driver.value_or("unknown")},
          {"profile " + g.profile + " [cpu] governor", g.wanted}},
         "'tuner apply --profile " + g.profile + "' (its [cpu] group sets governor = \"" +
             g.wanted + "\")"});
  }
}

CheckReport run_checks(const CheckInput& in) {
  CheckReport out;
  check_nic_links(in, out);
  check_nic_counters(in, out);
  check_pcie(in, out);
  check_irqs(in, out);
  check_gpus(in, out);
  check_governor(in, out);
  check_cuda(in, out);
  check_cpu_vulnerabilities(in, out);
  check_clock(in, out);
  check_tuned(in, out);
  check_networkmanager(in, out);
  out.errors = in.inventory.errors;
  sort_findings(out.findings);
  std::ranges::stable_sort(out.skipped, {},
                           [](const Skipped& s) { return static_cast<int>(s.rule); });
  return out;
}

}  // namespace tuner
