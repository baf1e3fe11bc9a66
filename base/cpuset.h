// CpuSet: a set of CPU (or NUMA node) numbers with the kernel's cpulist text form.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace tuner {

class CpuSet {
 public:
  CpuSet() = default;
  explicit CpuSet(std::vector<unsigned> cpus);

  /// Parses a cpulist ("0-3,8,10-11", "" for empty, whitespace and a trailing
  /// newline allowed). Ranges like "0-31:2/4" (the first 2 of every 4) are accepted
  /// too. CPU numbers stop below 2^20.
  static Result<CpuSet> parse(std::string_view text);
  /// Parses a hex mask as in /proc/irq/N/smp_affinity ("ff,00000000"), with the same
  /// bound as parse.
  static Result<CpuSet> parse_mask(std::string_view text);

  /// Canonical cpulist: sorted, ranges merged, "" when empty.
  std::string to_string() const;
  /// Hex mask in the kernel's comma-separated 32-bit groups.
  std::string to_mask() const;

  void add(unsigned cpu);
  void remove(unsigned cpu);
  bool contains(unsigned cpu) const;
  bool empty() const { return cpus_.empty(); }
  std::size_t size() const { return cpus_.size(); }
  /// Sorted, unique.
  const std::vector<unsigned>& cpus() const { return cpus_; }
  bool is_subset_of(const CpuSet& other) const;
  CpuSet intersect(const CpuSet& other) const;
  CpuSet unite(const CpuSet& other) const;
  CpuSet minus(const CpuSet& other) const;

  bool operator==(const CpuSet&) const = default;

 private:
  std::vector<unsigned> cpus_;
};

}  // namespace tuner
