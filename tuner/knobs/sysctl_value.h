// What the kernel would refuse in a sysctl value, known before anything is written:
// the field count of a vector, a leading zero (the kernel reads "05000" as octal:
// 2560), the range of the handler's type and its limits for the keys tuner knows, the
// order of ip_local_port_range, and a congestion control the kernel neither has nor
// can load. The planner refuses these at the profile's file:line:col (exit 2) instead
// of an apply that fails after other writes and reverts (issue: "plan refuses what
// apply would refuse").
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "base/result.h"

namespace tuner {

/// A value against the key's current one: when the current value is whole numbers,
/// the desired must be as many whole numbers, written in decimal, within the range of
/// the key's handler (known keys: sysctl_value.cc's table; others: 64 bits).
/// The Error's what is a sentence for a person ("takes 3 numbers ...").
Status check_sysctl_value(std::string_view key, std::string_view current, std::string_view desired);

/// For a key whose value is a name among those the kernel offers (tcp_congestion_control:
/// the available list, and the tcp_NAME modules it can load): Ok when desired is one.
Status check_sysctl_choice(std::string_view key, std::string_view desired,
                           const std::set<std::string>& offered);

/// The kernel keeps one of each writeback pair in force: writing vm.dirty_ratio zeroes
/// vm.dirty_bytes and the other way round (mm/page-writeback.c; the same for the
/// dirty_background_ pair). The other key of the pair; nullopt for any other key.
/// A pair key reads "PARTNER=N" while its partner is the one in force (SysctlKnob), so
/// that a plan shows "vm.dirty_bytes=1073741824 -> 40" and rollback restores the bytes.
std::optional<std::string_view> writeback_partner(std::string_view key);

}  // namespace tuner
