// libFuzzer target: cpulists and hex cpumasks as sysfs, /proc and profiles write them
// (base/cpuset.h). What parses must print back to text that parses to the same set.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "base/cpuset.h"

namespace {

void round_trip(const tuner::CpuSet& set) {
  auto again = tuner::CpuSet::parse(set.to_string());
  if (!again.ok() || *again != set) std::abort();
  auto mask = tuner::CpuSet::parse_mask(set.to_mask());
  if (!mask.ok() || *mask != set) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto list = tuner::CpuSet::parse(text); list.ok()) round_trip(*list);
  if (auto mask = tuner::CpuSet::parse_mask(text); mask.ok()) round_trip(*mask);
  return 0;
}
