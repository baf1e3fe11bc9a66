// Checks of single profile values that need no TOML: sysctl values, name globs,
// comparison conditions, "did you mean". Errors carry only `what`; the parser adds the
// file:line:col. What names a knob (sysctl keys, unit names, cgroup paths) is checked
// by the knob ids' own validators (tuner/knobs/knob_id.h), never here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "tuner/profile/profile.h"

namespace tuner {

/// "; did you mean 'policy'?" when key is a small typo of one of allowed, else "".
std::string did_you_mean(std::string_view key, const std::vector<std::string_view>& allowed);

/// A sysctl value written as a string: ">=N" / "<=N" (a whole number) or any other
/// text, whitespace-normalised ("4096  87380 6291456" -> "4096 87380 6291456").
Result<SysctlSetting> parse_sysctl_text(std::string_view text);

/// Interface-name glob for [irq."..."] and [nic."..."]: no '/', ':', blanks, at most 64.
Status check_name_glob(std::string_view glob);
/// Group or benchmark name: [A-Za-z0-9_-]+.
Status check_plain_name(std::string_view name, std::string_view what);
/// A device named by `near`: netdev, PCI address or "gpuN": printable, no blanks or '/'.
Status check_device_name(std::string_view near);

/// A numeric condition "N", ">=N" or "<=N" (N >= 0).
struct Comparison {
  enum class Op { eq, ge, le } op = Op::eq;
  int64_t value = 0;
  bool holds(int64_t x) const;
  std::string str() const;
};
Result<Comparison> parse_comparison(std::string_view text);

}  // namespace tuner
