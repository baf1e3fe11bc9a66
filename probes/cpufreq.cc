#include "probes/cpufreq.h"

#include <algorithm>

#include "base/strings.h"

namespace tuner {

namespace {

const char* const kCpufreq = "sys/devices/system/cpu/cpufreq";

}  // namespace

Result<CpuSet> parse_cpu_words(std::string_view text) {
  std::vector<unsigned> cpus;
  for (std::string_view w : split_ws(text)) {
    auto n = parse_u64(w);
    if (!n || *n > 1u << 20) return Error::invalid("not a CPU number: '" + std::string(w) + "'");
    cpus.push_back(static_cast<unsigned>(*n));
  }
  return CpuSet(std::move(cpus));
}

std::vector<CpufreqPolicy> probe_cpufreq(const Root& root, std::vector<ProbeError>& errors) {
  std::vector<CpufreqPolicy> out;
  auto names = root.list(kCpufreq);
  if (!names.ok()) {
    if (names.error().err != ENOENT) errors.push_back({"cpufreq", names.error().message()});
    return out;
  }
  for (const std::string& name : *names) {
    if (!starts_with(name, "policy")) continue;  // "boost", "ondemand", ...
    auto n = parse_u64(std::string_view(name).substr(6));
    if (!n || name.size() == 6 || *n > 1u << 20) continue;
    std::string dir = std::string(kCpufreq) + "/" + name;
    CpufreqPolicy p;
    p.id = static_cast<unsigned>(*n);
    auto related = root.read(dir + "/related_cpus");
    auto affected = root.read(dir + "/affected_cpus");
    if (!related.ok() && !affected.ok()) {
      errors.push_back({"cpufreq", related.error().message()});
      continue;
    }
    std::string file = dir + (related.ok() ? "/related_cpus" : "/affected_cpus");
    auto cpus = parse_cpu_words(related.ok() ? *related : *affected);
    auto online = affected.ok() ? parse_cpu_words(*affected) : cpus;
    if (!cpus.ok() || !online.ok()) {
      const Error& e = !cpus.ok() ? cpus.error() : online.error();
      errors.push_back({"cpufreq", e.context(cpus.ok() ? dir + "/affected_cpus" : file).message()});
      continue;
    }
    p.cpus = *cpus;
    p.online = *online;
    if (auto driver = root.read(dir + "/scaling_driver"); driver.ok())
      p.driver = std::string(trim(*driver));
    out.push_back(std::move(p));
  }
  std::sort(out.begin(), out.end(),
            [](const CpufreqPolicy& a, const CpufreqPolicy& b) { return a.id < b.id; });
  return out;
}

}  // namespace tuner
