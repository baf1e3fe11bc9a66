// Shared by the planner's per-kind files (sysctl.cc, irq.cc, nic.cc, nic_queues.cc,
// numa.cc, cpu.cc, mm.cc); not a public interface. They build knob ids with KnobId
// (tuner/knobs/knob_id.h) and read current values through PlanBuilder::current, which
// asks the knobs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "tuner/plan/planner.h"

namespace tuner::planner_detail {

/// What a per-kind planner works on and adds to.
struct PlanBuilder {
  const Profile& profile;
  const Inventory& inventory;
  const CurrentValues& current;
  Plan plan;
  /// Notes by text, with the things they are about ("eth0", "eth1"), first seen first.
  std::vector<std::pair<std::string, std::vector<std::string>>> notes;
  /// The socket flow table RFS needs (net.core.rps_sock_flow_entries): the largest a
  /// [nic] rule's rfs asked for on a NIC it planned RFS on (nic_queues.cc), planned once
  /// after every NIC (plan_rfs_table).
  struct RfsTable {
    uint64_t entries = 0;  // rounded up to a power of two, as the kernel keeps it
    std::string glob;      // the rule's
    std::string group;
    SourceLoc loc;
    std::vector<std::string> nics;  // the NICs whose queues' tables it serves
  };
  std::optional<RfsTable> rfs_table;

  /// Records a setting: a change when current differs, else one more "unchanged".
  void add(Change change, bool already_desired);
  /// A note about subject (a NIC, a unit; "" for none). Notes with the same text are
  /// printed once, naming every subject: "eth0, eth1: rings ... skipped".
  void note(const std::string& subject, std::string text);
  /// Moves the collected notes into plan.notes.
  void flush_notes();
};

/// A queue vector the probe tied to one queue (or every queue) of one netdev: the only
/// kind the planner places or follows.
bool is_queue_irq(const Irq& irq);
/// The probe tied irq to nic (Irq::device, or listed in Nic::irqs).
bool owned_by(const Irq& irq, const Nic& nic);
/// Which ports a rule covers, besides its glob: the port-scope keys of an IrqRule or
/// a NicRule.
struct PortScope {
  std::string glob;
  std::optional<uint32_t> min_speed_mbps;
  std::optional<bool> rdma;
  std::optional<bool> default_route;
  std::vector<std::string> ports;
  std::optional<LinkKind> link_type;
};
template <typename Rule>
PortScope port_scope(const Rule& r) {
  return {r.glob, r.min_speed_mbps, r.rdma, r.default_route, r.ports, r.link_type};
}
/// Why an [irq] or [nic] rule whose glob matched nic leaves it alone, for the plan's
/// note; nullopt when the rule applies. `nics` are every port of the machine. An IPoIB
/// port (link type 32: an InfiniBand fabric's) is for a rule that says link_type =
/// "infiniband", names it (without a wildcard, or in ports), or whose wildcard glob
/// matches only IPoIB ports here (`ib*`); never for `*` alone, which is for Ethernet
/// ports, nor for a glob that also matches one (`eth*`). With link_type, only ports of
/// that kind. With min_speed, only a link known to run at least that fast (a 1 GbE
/// management port is not a data port; a link that is down or a topology file says no
/// speed); with rdma = false, not a port with an RDMA device (a RoCE fabric's); with
/// default_route = false, not a port a default route goes out of (the management or
/// front-end port; where the routes are unknown, a capture without them, the port is
/// in scope and `unknown_route` says so), nor one an SSH session arrives through
/// (Nic::ssh_session); with ports, only the ports named, which are
/// in scope even when IPoIB, RDMA or routed.
std::optional<std::string> out_of_scope(const Nic& nic, const PortScope& scope,
                                        const std::vector<Nic>& nics);
template <typename Rule>
std::optional<std::string> out_of_scope(const Nic& nic, const Rule& rule,
                                        const std::vector<Nic>& nics) {
  return out_of_scope(nic, port_scope(rule), nics);
}
/// One note when the profile's [irq] and [nic] rules match ports here but every one of
/// them is out of scope (an all-ConnectX GPU node under rdma = false, a data transfer
/// node whose only fast port holds the default route): the per-port notes say why each
/// is left out; this says that no port is tuned and how to name them.
void note_rules_without_ports(PlanBuilder& b);
/// What the plan should say about a port a rule covers but could not fully judge: a
/// rule with default_route = false on a root whose routes are unknown.
std::optional<std::string> unknown_route(const Nic& nic, const PortScope& scope);
template <typename Rule>
std::optional<std::string> unknown_route(const Nic& nic, const Rule& rule) {
  return unknown_route(nic, port_scope(rule));
}

Status plan_sysctls(PlanBuilder& b);
/// One sysctl setting, as plan_sysctls plans each of [sysctl]'s; `why` goes before the
/// setting's own reason ("raise only: profile asks >= N (file:line)").
Status plan_sysctl(PlanBuilder& b, const SysctlSetting& s, const std::string& why = "");
/// The node's memory (every NUMA node's), or nullopt when a node's is unknown.
std::optional<uint64_t> memory_bytes(const Inventory& inv);
/// What [mm] dirty_max_bytes makes of a writeback ratio (cap_writeback).
struct WritebackCap {
  bool capped = false;         // change.desired is the cap's: bytes, or the kernel's ratio
  std::string unchanged_note;  // the plan's note when the node already holds that ratio
};
/// [mm] dirty_max_bytes on vm.dirty_ratio = R (and the vm.dirty_background_ratio beside
/// it), R above the kernel's 20%, where R% of memory is more than the cap
/// (sysctl_writeback.cc). R% of memory is what the kernel allows at most (it counts only
/// dirtyable memory, free and file pages, so its limit is lower, never higher). The
/// dirty limit becomes the larger of the cap and the kernel's 20%: vm.dirty_bytes = the
/// cap, or the ratio 20 where 20% of memory is already above it. The background limit
/// keeps its share of that, but not below the kernel's 10% (then the ratio 10). Sets
/// change.desired and adds to its reason; capped false when the ratio stays as given.
WritebackCap cap_writeback(PlanBuilder& b, const SysctlSetting& s, Change& change);
/// A writeback key's exact value against the one in force (sysctl_writeback.cc): true
/// when the change is to be made (its reason then says the effective limit before and
/// after); false, with a plan note, where a site's limit is as strict or stricter.
bool writeback_allowed(PlanBuilder& b, const SysctlSetting& s, Change& change,
                       std::optional<uint64_t> memory);
/// vm.swappiness with a lower-only bound that would lower it (sysctl_swap.cc): false,
/// with a plan note, where every active swap device is zram; an exact value stands.
bool swappiness_allowed(PlanBuilder& b, const SysctlSetting& s, const Change& change);
Status plan_irqs(PlanBuilder& b);
Status plan_nics(PlanBuilder& b);
/// A [nic] rule's rps and xps (nic_queues.cc), after plan_irqs: XPS follows the IRQ
/// placement this plan makes.
Status plan_nic_queues(PlanBuilder& b, const Nic& nic, const NicRule& rule,
                       const std::string& group);
/// net.core.rps_sock_flow_entries for b.rfs_table, raise only, once every NIC's queues
/// are planned (nic_queues.cc).
Status plan_rfs_table(PlanBuilder& b);
Status plan_numa(PlanBuilder& b);
Status plan_cpu(PlanBuilder& b);
Status plan_mm(PlanBuilder& b);

/// make_plan_with without the value searches: the profile as written, each searched
/// setting at its first candidate.
Result<Plan> plan_settings(const Profile& profile, const Inventory& inventory,
                           const CurrentValues& current);
/// Plans every candidate of every searched setting into plan.searches (search.cc).
Status plan_searches(const Profile& profile, const Inventory& inventory,
                     const CurrentValues& current, Plan& plan);

/// The candidates of a searched [cpu] resume_latency_us left on a node, and why
/// (idle_search.cc).
struct FittedCandidates {
  std::vector<std::string> kept;   // in the profile's order
  std::vector<std::string> notes;  // for the plan
};
/// Fits candidates (canonical resume latencies) to a node's idle states: a number that
/// admits no enabled idle state but polling is dropped; candidates that admit the same
/// enabled states are one, the smallest limit ("0", no limit, counts as the largest).
/// Where the table is unknown, or a state's exit latency, they stay as written. Every
/// decision is a note naming `where` ("latency.toml:67").
FittedCandidates fit_resume_latency_search(const std::vector<std::string>& candidates,
                                           const std::optional<Cpuidle>& table,
                                           const std::string& where);
/// The profile with its searched resume_latency_us fitted to inventory.cpuidle: the kept
/// candidates as its search, one kept as its stated value, none as no setting; the
/// notes are appended to `notes`.
Profile fit_idle_search(const Profile& profile, const Inventory& inventory,
                        std::vector<std::string>& notes);

/// Plans knob = s.value for a [cpu] or [mm] setting, reason + " (file:line)". The current
/// value is the knob's; the desired one is made canonical by the knob, so a value this
/// machine does not offer is an Error at s.loc. A knob that does not exist here adds
/// nothing: false, with why_missing set, for the caller's note.
Result<bool> plan_table_knob(PlanBuilder& b, const KnobId& knob, const TableSetting& s,
                             const std::string& reason, std::string& why_missing);

/// An Error placed at a profile setting: where = "file:line:col".
Error error_at(const SourceLoc& loc, std::string what);
/// "throughput.toml:12": short enough for a reason line.
std::string short_loc(const SourceLoc& loc);
/// Compares two whole decimal integers of any length ("-1", "18446744073709551615");
/// nullopt when either is not one.
std::optional<int> compare_integers(std::string_view a, std::string_view b);
/// Numeric-aware ordering of knob ids: "irq:9:affinity" < "irq:57:affinity".
bool natural_less(std::string_view a, std::string_view b);
/// Position of a knob's kind in the plan: sysctl, irq, nic, numa, irqbalance, cpu
/// governor, cpu epp, cpu resume latency, mm thp, mm thp_defrag.
int kind_rank(std::string_view knob_id);

}  // namespace tuner::planner_detail
