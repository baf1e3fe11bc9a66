// The knob kinds, one row each: the one table a new kind is added to. parse_knob_id and
// the planner's apply order read it; the tests that must cover every kind (the id round
// trip, plan/apply parity, the apply-plan-rollback round trip) iterate it, so a kind
// added here without its cases fails them (CONTRIBUTING.md, "A knob kind").
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "base/result.h"
#include "tuner/knobs/knob_id.h"

namespace tuner {

struct KnobKindInfo {
  KnobKind kind;
  /// The kind as tests, docs and messages name it: the enumerator's name ("nic_rps").
  std::string_view name;
  /// The id's first part ("nic"): ids of one family share its "unknown ... knob" message.
  std::string_view family;
  /// The id's shape, for messages ("nic:IFNAME:rps:rx-N").
  std::string_view form;
  /// One valid id of this kind, for tests ("nic:eth0:rps:rx-0").
  std::string_view example;
  /// Whether a profile asks for it. Two kinds it never names: numa_pid (a live process,
  /// bound by --pid) and irqbalance_service (stopped when a profile bans IRQs from it).
  bool from_profile;
  /// The planner applies lower ranks first within a group (and rolls back in reverse):
  /// sysctls; a port's shape (link, MTU, channels, rings: a driver may rebuild its
  /// vectors); IRQs, placed on the vectors that shape left; the NIC's per-queue settings
  /// (rps/xps/rfs after the IRQ placement XPS follows: same rank, "irq:" sorts first);
  /// NUMA, irqbalance,
  /// then governors before energy preferences (intel_pstate and amd-pstate refuse a
  /// preference other than performance under the performance governor), CPU latency,
  /// THP.
  int plan_rank;
  /// Whether `id` has this kind's shape ("nic:X:rps:Y"); parse then says if it is valid.
  bool (*claims)(std::string_view id);
  /// The validated id, or Error::invalid with where = id.
  Result<KnobId> (*parse)(KnobKind kind, std::string_view id);
};

inline constexpr std::size_t kKnobKindCount = static_cast<std::size_t>(KnobKind::count_);

/// Every kind, in enum order (knob_kinds.cc checks that at compile time).
extern const std::array<KnobKindInfo, kKnobKindCount> kAllKnobKinds;

const KnobKindInfo& knob_kind_info(KnobKind kind);

}  // namespace tuner
