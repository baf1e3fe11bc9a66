// Test support: the kernel's side of the cpu and mm knobs' files, and of RFS's flow
// tables, in a fake machine's TempDir. It lays the files out as a real kernel does
// (cpufreq/policyN with its lists, cpuN/power/pm_qos_resume_latency_us,
// transparent_hugepage/{enabled,defrag} with the current word bracketed, a netdev's
// queues/rx-N/rps_flow_cnt) and, as the KnobContext's fake_kernel, answers writes as the
// kernel would: a word not offered is EINVAL, a THP write reads back bracketed, an
// energy preference other than performance under the performance governor is EBUSY
// (intel_pstate, amd-pstate), and a flow table's size (rps_flow_cnt,
// net.core.rps_sock_flow_entries) reads back rounded up to a power of two, with Linux
// 6.18's refusals (EINVAL): a queue's table of 1 or past 2^32, a socket table past 2^29.
// Every answer is counted in `writes`.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/strings.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"
#include "tuner/knobs/knob_files.h"
#include "tuner/knobs/sysfs_choice.h"

namespace tuner::testing {

class FakeSysfs {
 public:
  /// A cpufreq policy as intel_pstate shows it, unless the fields say otherwise.
  struct Policy {
    unsigned id = 0;
    std::string cpus = "0";  // related_cpus: "0 1 2 3", as the kernel writes it
    std::string governor = "powersave";
    std::string governors = "performance powersave";
    std::optional<std::string> epp = "balance_performance";  // nullopt: no EPP files
    std::string epps = "default performance balance_performance balance_power power";
    std::string driver = "intel_pstate";
    bool online = true;  // false: affected_cpus is empty (every CPU offline)
  };

  static constexpr const char* kCpu = "sys/devices/system/cpu";
  static constexpr const char* kThp = "sys/kernel/mm/transparent_hugepage";

  explicit FakeSysfs(const TempDir& dir) : dir_(dir) {}

  void policy(const Policy& p) const {
    std::string d = std::string(kCpu) + "/cpufreq/policy" + std::to_string(p.id) + "/";
    dir_.write(d + "related_cpus", p.cpus + "\n");
    dir_.write(d + "affected_cpus", (p.online ? p.cpus : "") + "\n");
    dir_.write(d + "scaling_driver", p.driver + "\n");
    dir_.write(d + "scaling_governor", p.governor + "\n");
    dir_.write(d + "scaling_available_governors", p.governors + " \n");
    if (!p.epp) return;
    dir_.write(d + "energy_performance_preference", *p.epp + "\n");
    dir_.write(d + "energy_performance_available_preferences", p.epps + " \n");
  }

  /// cpuN/power/pm_qos_resume_latency_us for each CPU of first..last.
  void resume_latency(unsigned first, unsigned last, const std::string& value = "0") const {
    for (unsigned cpu = first; cpu <= last; ++cpu)
      dir_.write(
          std::string(kCpu) + "/cpu" + std::to_string(cpu) + "/power/pm_qos_resume_latency_us",
          value + "\n");
  }

  /// netdev (a folder under sys/devices) with rx queues 0..rx_queues-1, each with
  /// rps_cpus empty and rps_flow_cnt 0, and sys/class/net/NAME a link to it.
  void netdev_queues(const std::string& netdev, unsigned rx_queues) const {
    for (unsigned q = 0; q < rx_queues; ++q) {
      std::string d = netdev + "/queues/rx-" + std::to_string(q) + "/";
      dir_.write(d + "rps_cpus", "00\n");
      dir_.write(d + "rps_flow_cnt", "0\n");
    }
    std::string name = netdev.substr(netdev.rfind('/') + 1);
    std::filesystem::create_directories(dir_ / "sys/class/net");
    std::filesystem::create_directory_symlink("../../" + netdev.substr(4),
                                              dir_ / ("sys/class/net/" + name));
  }

  void thp(const std::string& enabled = "always [madvise] never",
           const std::string& defrag = "always defer defer+madvise [madvise] never") const {
    dir_.write(std::string(kThp) + "/enabled", enabled + "\n");
    dir_.write(std::string(kThp) + "/defrag", defrag + "\n");
  }

  /// For KnobContext::fake_kernel.
  FakeKernel kernel() {
    return [this](const std::string& rel, std::string& text) { return store(rel, text); };
  }

  std::map<std::string, unsigned> writes;  // path -> writes the kernel took

 private:
  std::string sibling(const std::string& rel, const std::string& name) const {
    return sysfs_value(dir_ / (rel.substr(0, rel.rfind('/') + 1) + name));
  }

  static bool offered(const std::vector<std::string>& words, const std::string& word) {
    return std::find(words.begin(), words.end(), word) != words.end();
  }
  static bool offered(const std::string& list, const std::string& word) {
    return offered(parse_word_list(list), word);
  }

  int store(const std::string& rel, std::string& text) {
    if (rel.ends_with("/scaling_governor")) {
      if (!offered(sibling(rel, "scaling_available_governors"), text)) return EINVAL;
    } else if (rel.ends_with("/energy_performance_preference")) {
      auto raw = parse_u64(text);
      if (!offered(sibling(rel, "energy_performance_available_preferences"), text) &&
          !(raw && *raw <= 255))
        return EINVAL;
      if (sibling(rel, "scaling_governor") == "performance" && text != "performance") return EBUSY;
    } else if (rel.ends_with("/pm_qos_resume_latency_us")) {
      auto n = parse_u64(text);
      if (text != "n/a" && (!n || *n >= 2147483647)) return EINVAL;
    } else if (rel.ends_with("/rps_flow_cnt") ||
               rel.ends_with("proc/sys/net/core/rps_sock_flow_entries")) {
      // kstrtoul(buf, 0) for a queue's table, proc_dointvec for the socket table; both
      // round up to a power of two.
      bool queue = rel.ends_with("/rps_flow_cnt");
      std::string t(trim(text));
      auto n = parse_u64(t);
      if (!n || (t.size() > 1 && t[0] == '0')) return EINVAL;
      if (queue ? *n == 1 || *n > (uint64_t{1} << 32) : *n > (uint64_t{1} << 29)) return EINVAL;
      uint64_t size = 1;
      while (size < *n) size <<= 1;
      text = std::to_string(*n == 0 ? 0 : size);
    } else if (rel.starts_with(kThp)) {
      auto now = parse_bracketed_choice(sysfs_value(dir_ / rel));
      if (!now.ok() || !offered(now->offered, text)) return EINVAL;
      std::string shown;
      for (const std::string& w : now->offered)
        shown += (shown.empty() ? "" : " ") + (w == text ? "[" + w + "]" : w);
      text = shown;
    }
    text += "\n";
    ++writes[rel];
    return 0;
  }

  const TempDir& dir_;
};

}  // namespace tuner::testing
