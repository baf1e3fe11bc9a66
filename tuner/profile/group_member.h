// The grammar of a [group.NAME] members entry, parsed in one place: the profile parser
// validates each entry with it, and apply_group_members (merge.h) finds the setting an
// entry names with it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "tuner/profile/profile.h"

namespace tuner {

/// What a member names: a [sysctl] key, an [irq] or [nic] glob as written, a
/// [[numa.bind]] unit or cgroup, or a [cpu]/[mm] key.
enum class MemberKind { sysctl, irq, nic, numa_unit, numa_cgroup, cpu_mm };

struct MemberRef {
  MemberKind kind = MemberKind::sysctl;
  /// The key, glob, unit or cgroup path after the prefix; for cpu_mm the whole id
  /// ("cpu:governor").
  std::string name;
};

/// Parses and validates a member ("sysctl:KEY", "irq:GLOB", "nic:GLOB", "numa:unit:U",
/// "numa:cgroup:P", "cpu:governor", "cpu:epp", "cpu:resume_latency", "mm:thp",
/// "mm:thp_defrag"). Error::invalid with only `what`: the unknown form lists them all.
Result<MemberRef> parse_group_member(std::string_view id);

/// The [cpu] or [mm] setting a cpu_mm member names in p (it may be unset); nullptr for
/// an id that names none.
std::optional<TableSetting>* table_setting(Profile& p, std::string_view id);

}  // namespace tuner
