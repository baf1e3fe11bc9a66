// The value of cpu:N:resume_latency, /sys/devices/system/cpu/cpuN/power/
// pm_qos_resume_latency_us (Documentation/ABI/testing/sysfs-devices-power), in one
// place for the knob and the profile parser. The kernel's meanings, which are easy to
// get backwards:
//   "0"    no constraint: any idle state may be used. The kernel's default; writing 0
//          stores "no constraint", and it reads back "0".
//   "N"    cpuidle may only pick idle states that wake up within N microseconds.
//   "n/a"  no resume latency is acceptable at all: the CPU only polls when idle. It
//          reads back "n/a".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace tuner {

/// The largest limit the kernel takes: S32_MAX is its internal "no constraint", which
/// it refuses to be written directly.
inline constexpr uint64_t kMaxResumeLatencyUs = 2147483646;

/// The canonical form of a limit: "n/a", or microseconds in decimal without leading
/// zeros ("020" -> "20"; the kernel would read "020" as octal). The Error carries only
/// `what`.
Result<std::string> parse_resume_latency(std::string_view text);

/// What a canonical value means, for a plan's reason: "no constraint", "no wake-up
/// latency at all: idle CPUs only poll", "idle states that wake within 20 us".
std::string describe_resume_latency(const std::string& value);

/// The limit a canonical value sets, for telling which idle states it admits (those
/// whose exit latency is at most the limit) and which of two values is stricter: "n/a"
/// is 0 us (only what wakes at once: polling), "N" is N us, and "0" (no constraint) is
/// nullopt, looser than any number.
std::optional<uint64_t> resume_latency_limit_us(const std::string& value);

/// Whether canonical value a admits fewer idle states than b can: "2" than "99", "n/a"
/// than "2", any value but "0" than "0".
bool resume_latency_stricter(const std::string& a, const std::string& b);

}  // namespace tuner
