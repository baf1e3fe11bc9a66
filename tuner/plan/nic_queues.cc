// [nic] rps, xps and rfs: the CPUs that steer each queue's packets in software, and the
// flow tables that steer each flow to the CPU its reader runs on.
//
//   rps = "numa-local"  Each RX queue's rps_cpus = the NIC's NUMA node's CPUs (less
//                       isolcpus/nohz_full, which the kernel drops from RPS maps anyway).
//                       Only where the NIC has fewer RX queues than that node has cores:
//                       with a queue per core, hardware already spreads the work and RPS
//                       would only add a hop; then nothing is planned and a note says so.
//                       A NIC with no locality is local to the only node of a one-node
//                       machine, and skipped with a note on a machine of several.
//   xps = "follow-irq"  Each TX queue's xps_cpus = the CPUs of the IRQ that completes it
//                       (its TX or combined vector, else a vector shared by every queue),
//                       as this plan places that IRQ, else as it is now, with their SMT
//                       siblings; every other online CPU goes to its nearest queue
//                       (xps_map.h), so the map covers every CPU as the drivers' own do.
//                       A CPU sends on the queue whose completions it handles itself, or
//                       one whose completions run near it. Where no TX queue has a known
//                       IRQ, the driver's map is kept when it covers every CPU already.
//   "off"               Every queue's mask empty ("none"): no steering.
//   rfs = N             Receive Flow Steering (networking/scaling.rst, "RFS: Receive Flow
//                       Steering"): the socket flow table net.core.rps_sock_flow_entries
//                       raised to N at least (a site's larger table stays), planned once
//                       for every NIC that asks (plan_rfs_table, in the rule's group:
//                       the queues' tables do nothing without it), and each RX queue's
//                       rps_flow_cnt = N / the RX queues, as scaling.rst suggests; both
//                       rounded up to a power of two as the kernel rounds them, so the
//                       plan shows what the files will read. The socket table is global,
//                       kept by the initial network namespace: planned from another one,
//                       the plan says so and leaves it. rfs = "off": every queue's table
//                       0 (the socket table, which other NICs may use, stays).
// Queues are those the NIC has once this plan's channel change (if any) is applied:
// masks and flow tables for queues it makes, and XPS maps (which drivers rewrite when
// channels change), are written after it (Change::written_after), so one apply
// converges. Values are the
// knobs' (nic_queue_cpus.cc), so the same value the planner accepts is what apply writes.
#include <algorithm>
#include <map>

#include <fmt/core.h>

#include "base/strings.h"
#include "tuner/knobs/nic_value.h"
#include "tuner/plan/builder.h"
#include "tuner/plan/irq_placement.h"
#include "tuner/plan/xps_map.h"

namespace tuner::planner_detail {
namespace {

/// A run of queue numbers for a note: "0-3,6".
std::string queue_list(const std::vector<unsigned>& queues) { return CpuSet(queues).to_string(); }

/// The queues a NIC has once this plan is applied.
struct QueueCounts {
  /// nullopt: this plan changes the channels and the count after it cannot be told.
  std::optional<unsigned> rx, tx;
  std::string channels;  // the channel change's knob id; "" when the plan has none
};

/// The queue counts after this plan's channel change of nic, if it has one. A netdev
/// has a queue per combined channel plus one per channel of that direction; where
/// sysfs disagrees with ethtool's counts now (several traffic classes), nullopt.
QueueCounts queues_after(const PlanBuilder& b, const Nic& nic) {
  QueueCounts out{nic.rx_queues, nic.tx_queues, ""};
  auto id = KnobId::nic(KnobKind::nic_channels, nic.name);
  if (!id.ok()) return out;
  auto change =
      std::ranges::find_if(b.plan.changes, [&](const Change& c) { return c.knob == id->str(); });
  if (change == b.plan.changes.end()) return out;
  out.channels = id->str();
  out.rx = out.tx = std::nullopt;
  auto want = parse_channels(change->desired, change->knob);
  if (!nic.channels || !want.ok()) return out;
  const Channels& now = *nic.channels;
  auto after = [&](unsigned sysfs, std::optional<uint32_t> own,
                   std::optional<uint32_t> want_own) -> std::optional<unsigned> {
    if (sysfs != own.value_or(0) + now.combined.value_or(0)) return std::nullopt;
    return want_own.value_or(own.value_or(0)) + want->combined.value_or(now.combined.value_or(0));
  };
  out.rx = after(nic.rx_queues, now.rx, want->rx);
  out.tx = after(nic.tx_queues, now.tx, want->tx);
  return out;
}

/// Plans one queue's mask; a queue that vanished since the probe is collected in gone.
/// With a channel change in the plan (channels), the change is written after it; a
/// queue it makes (none now) and any XPS map (drivers rewrite theirs when channels
/// change: virtio, ice, i40e) are planned whatever they hold now.
Status add_queue(PlanBuilder& b, KnobKind kind, const Nic& nic, unsigned queue,
                 const std::string& desired, const std::string& group, const SourceLoc& loc,
                 const std::string& reason, const std::string& channels,
                 std::vector<std::string>& gone) {
  auto id = KnobId::nic_queue(kind, nic.name, queue);
  if (!id.ok()) return error_at(loc, id.error().what);
  bool made = queue >= (kind == KnobKind::nic_xps ? nic.tx_queues : nic.rx_queues);
  if (channels.empty() || (kind != KnobKind::nic_xps && !made)) {
    std::string why;
    std::size_t before = b.plan.changes.size();
    auto planned = plan_table_knob(b, *id, TableSetting{desired, group, loc, {}}, reason, why);
    if (!planned.ok()) return planned.error();
    if (!*planned) gone.push_back(why);
    if (b.plan.changes.size() > before) b.plan.changes.back().written_after = channels;
    return Ok{};
  }
  std::string where = short_loc(loc);
  Change c{id->str(), group, std::nullopt, desired,
           reason + "; written after the channel change, which " +
               (made ? "makes this queue" : "may reset its map") +
               (where.empty() ? "" : " (" + where + ")")};
  c.written_after = channels;
  if (!made && b.current.readable()) {
    CurrentValue cur = b.current.get(*id);
    if (cur.state == CurrentValue::State::known) {
      auto canonical = b.current.canonical(*id, desired);
      if (!canonical.ok()) return error_at(loc, c.knob + ": " + canonical.error().what);
      c.current = cur.value;
      c.desired = *canonical;
    }
  }
  b.add(std::move(c), false);
  return Ok{};
}

void note_gone(PlanBuilder& b, const Nic& nic, const std::vector<std::string>& gone) {
  for (const std::string& why : gone) b.note(nic.name, why + ": skipped");
}

/// The NIC's NUMA node for rps = "numa-local": its own, or the only one there is.
const NumaNode* local_node(const PlanBuilder& b, const Nic& nic) {
  const Topology& t = b.inventory.topology;
  if (nic.numa_node) return b.inventory.find_node(static_cast<unsigned>(*nic.numa_node));
  return t.numa_nodes.size() == 1 ? &t.numa_nodes.front() : nullptr;
}

Status plan_rps(PlanBuilder& b, const Nic& nic, const NicRule& rule, const std::string& group,
                unsigned rx_queues, const std::string& channels) {
  if (rx_queues == 0) {
    b.note(nic.name, "has no RX queues in sysfs: rps of nic rule '" + rule.glob + "' skipped");
    return Ok{};
  }
  std::string desired = "none";
  std::string why = nic.name + ": profile turns RPS off";
  if (rule.rps == RpsPolicy::numa_local) {
    const NumaNode* node = local_node(b, nic);
    if (!node || node->cpus.empty()) {
      b.note(nic.name, "no NUMA locality on a machine of several nodes: rps = \"numa-local\" "
                       "skipped");
      return Ok{};
    }
    std::string on_node = "NUMA node " + std::to_string(node->os_index);
    CpuSet cpus = irq_allowed_cpus(node->cpus, b.inventory.host);
    if (cpus.empty()) {
      b.note(nic.name, "every CPU of its " + on_node +
                           " is isolated (isolcpus/nohz_full): rps = \"numa-local\" skipped");
      return Ok{};
    }
    std::size_t cores = 0;
    for (const Core& c : b.inventory.topology.core_list)
      if (c.numa_node == node->os_index && !c.pus.intersect(cpus).empty()) ++cores;
    if (b.inventory.topology.core_list.empty()) cores = cpus.size();
    std::string counts = std::to_string(rx_queues) +
                         (rx_queues == 1 ? " RX queue for the " : " RX queues for the ") +
                         std::to_string(cores) + " cores of its " + on_node;
    if (rx_queues >= cores) {
      b.note(nic.name, counts + ": a queue per core already, rps = \"numa-local\" plans nothing");
      return Ok{};
    }
    desired = cpus.to_string();
    why = nic.name + " has " + counts + ": steered to the node's CPUs " + desired;
  }
  std::vector<std::string> gone;
  for (unsigned q = 0; q < rx_queues; ++q) {
    Status s = add_queue(b, KnobKind::nic_rps, nic, q, desired, group, rule.rps_loc,
                         why + " (rx queue " + std::to_string(q) + ")", channels, gone);
    if (!s.ok()) return s;
  }
  note_gone(b, nic, gone);
  return Ok{};
}

/// The IRQ completing TX queue `queue` of nic: its TX or combined vector, else one
/// serving every queue; nullptr when the probe knows none.
const Irq* tx_irq(const Inventory& inv, const Nic& nic, unsigned queue) {
  const Irq* shared = nullptr;
  for (const Irq& irq : inv.irqs) {
    if (!owned_by(irq, nic) || !is_queue_irq(irq)) continue;
    if (irq.queue_type == QueueType::shared) shared = shared ? shared : &irq;
    else if (irq.queue_index == queue &&
             (irq.queue_type == QueueType::tx || irq.queue_type == QueueType::combined))
      return &irq;
  }
  return shared;
}

/// With no TX queue's IRQ known: whether the driver's map (read now) covers every
/// online CPU, so that keeping it steers every sender already.
bool driver_map_covers(const PlanBuilder& b, const Nic& nic, unsigned tx_queues) {
  if (!b.current.readable()) return false;
  CpuSet mapped;
  for (unsigned q = 0; q < tx_queues; ++q) {
    auto id = KnobId::nic_queue(KnobKind::nic_xps, nic.name, q);
    if (!id.ok()) return false;
    CurrentValue cur = b.current.get(*id);
    if (cur.state != CurrentValue::State::known) return false;
    if (auto set = CpuSet::parse(cur.value == "none" ? "" : cur.value); set.ok())
      mapped = mapped.unite(*set);
  }
  return b.inventory.topology.all_pus.is_subset_of(mapped);
}

Status plan_xps(PlanBuilder& b, const Nic& nic, const NicRule& rule, const std::string& group,
                unsigned tx_queues, const std::string& channels) {
  if (tx_queues <= 1) {
    // The kernel keeps no XPS map for a single-queue device (xps_cpus is ENOENT).
    b.note(nic.name, std::string(tx_queues ? "has one TX queue" : "has no TX queues in sysfs") +
                         (channels.empty() ? "" : " after the channel change") +
                         ": nothing to steer, xps of nic rule '" + rule.glob + "' skipped");
    return Ok{};
  }
  std::vector<std::string> gone;
  if (rule.xps == XpsPolicy::off) {
    for (unsigned q = 0; q < tx_queues; ++q)
      if (Status s =
              add_queue(b, KnobKind::nic_xps, nic, q, "none", group, rule.xps_loc,
                        nic.name + ": profile turns XPS off (tx queue " + std::to_string(q) + ")",
                        channels, gone);
          !s.ok())
        return s;
    note_gone(b, nic, gone);
    return Ok{};
  }
  // IRQ affinities as this plan leaves them: its changes, else the probe's.
  std::map<std::string, std::string> placed;
  for (const Change& c : b.plan.changes)
    if (starts_with(c.knob, "irq:")) placed[c.knob] = c.desired;
  const CpuSet& online = b.inventory.topology.all_pus;
  std::vector<unsigned> no_irq, made_no_irq, no_cpus;
  std::vector<CpuSet> anchors(tx_queues);
  std::vector<std::string> follows(tx_queues);
  for (unsigned q = 0; q < tx_queues; ++q) {
    const Irq* irq = tx_irq(b.inventory, nic, q);
    if (!irq) {
      (q < nic.tx_queues ? no_irq : made_no_irq).push_back(q);
      continue;
    }
    auto id = irq_affinity_id(*irq);
    auto it = id.ok() ? placed.find(id->str()) : placed.end();
    bool moved = it != placed.end();
    auto cpus = CpuSet::parse(moved ? it->second : irq->affinity.value_or(""));
    // An affinity may name CPUs that are offline; XPS can only use online ones.
    if (cpus.ok() && !online.empty()) cpus = cpus->intersect(online);
    if (!cpus.ok() || cpus->empty()) {
      no_cpus.push_back(q);
      continue;
    }
    anchors[q] = *cpus;
    follows[q] = nic.name + " tx queue " + std::to_string(q) + " follows IRQ " +
                 std::to_string(irq->number) + " (" + irq->name + ") " +
                 (moved ? "as this plan places it" : "as it is now") + ": CPUs " +
                 cpus->to_string();
  }
  std::vector<CpuSet> masks = xps_masks(b.inventory.topology, anchors);
  bool any = std::ranges::any_of(masks, [](const CpuSet& m) { return !m.empty(); });
  if (!any && no_cpus.empty() && channels.empty() && driver_map_covers(b, nic, tx_queues)) {
    b.note(nic.name, "no IRQ known to serve its TX queues; the driver's XPS map covers every "
                     "CPU already: kept (xps = \"follow-irq\")");
    return Ok{};
  }
  for (unsigned q = 0; q < tx_queues; ++q) {
    if (masks[q].empty()) continue;
    std::string why = follows[q];
    if (masks[q] != anchors[q])
      why += "; with their SMT siblings and the nearest CPUs no queue's IRQ is on: " +
             masks[q].to_string();
    if (Status s = add_queue(b, KnobKind::nic_xps, nic, q, masks[q].to_string(), group,
                             rule.xps_loc, why, channels, gone);
        !s.ok())
      return s;
  }
  if (!no_irq.empty())
    b.note(nic.name, "tx queues " + queue_list(no_irq) +
                         ": no IRQ known to serve them, xps = \"follow-irq\" left them alone");
  if (!made_no_irq.empty())
    b.note(nic.name, "tx queues " + queue_list(made_no_irq) +
                         ": made by the channel change, their IRQs are not known yet; "
                         "xps = \"follow-irq\" maps them when planned again afterwards");
  if (!no_cpus.empty())
    b.note(nic.name, "tx queues " + queue_list(no_cpus) +
                         ": their IRQs' CPUs are not known, xps = \"follow-irq\" left them alone");
  note_gone(b, nic, gone);
  return Ok{};
}

/// rfs: each RX queue's flow table, its share of the socket table.
Status plan_rfs(PlanBuilder& b, const Nic& nic, const NicRule& rule, const std::string& group,
                unsigned rx_queues, const std::string& channels) {
  if (rx_queues == 0) {
    b.note(nic.name, "has no RX queues in sysfs: rfs of nic rule '" + rule.glob + "' skipped");
    return Ok{};
  }
  std::string desired = "0";
  std::string why = nic.name + ": profile turns RFS off (its flow tables removed)";
  if (*rule.rfs != 0) {
    uint64_t table = rfs_table_size(*rule.rfs);
    uint64_t share = (table + rx_queues - 1) / rx_queues;
    // At least 2: Linux 6.18 refuses a table of 1 (EINVAL; nic_rfs.cc).
    uint64_t per = std::max<uint64_t>(rfs_table_size(share), 2);
    std::string entries = std::to_string(table) + " entries";
    if (table != *rule.rfs)
      entries += fmt::format(" (rfs = {}, rounded up as the kernel does)", *rule.rfs);
    why = fmt::format("{}: RFS, the socket flow table's {} / {} RX queue{} = {}", nic.name, entries,
                      rx_queues, rx_queues == 1 ? "" : "s", share);
    if (per > rfs_table_size(share)) why += ", at least 2";
    else if (per != share) why += fmt::format(", rounded up as the kernel does: {}", per);
    desired = std::to_string(per);
    if (!b.rfs_table)
      b.rfs_table = PlanBuilder::RfsTable{table, rule.glob, group, rule.rfs_loc, {}};
    else if (table > b.rfs_table->entries)
      b.rfs_table = PlanBuilder::RfsTable{table, rule.glob, group, rule.rfs_loc,
                                          std::move(b.rfs_table->nics)};
    b.rfs_table->nics.push_back(nic.name);
  }
  std::vector<std::string> gone;
  for (unsigned q = 0; q < rx_queues; ++q)
    if (Status s = add_queue(b, KnobKind::nic_rfs, nic, q, desired, group, rule.rfs_loc,
                             why + " (rx queue " + std::to_string(q) + ")", channels, gone);
        !s.ok())
      return s;
  note_gone(b, nic, gone);
  return Ok{};
}

}  // namespace

Status plan_rfs_table(PlanBuilder& b) {
  if (!b.rfs_table) return Ok{};
  const PlanBuilder::RfsTable& t = *b.rfs_table;
  const std::string key = "net.core.rps_sock_flow_entries";
  std::string nics;
  for (const std::string& n : t.nics) nics += (nics.empty() ? "" : ", ") + n;
  for (const SysctlSetting& s : b.profile.sysctls)
    if (s.key == key) {
      b.note("", fmt::format("[sysctl] sets {} ({}): the RFS of nic rule '{}' ({}) leaves the "
                             "socket flow table to it",
                             key, short_loc(s.loc), t.glob, nics));
      return Ok{};
    }
  SysctlSetting s;
  s.key = key;
  s.op = SysctlSetting::Op::at_least;
  s.value = std::to_string(t.entries);
  s.group = t.group;
  s.loc = t.loc;
  std::size_t changes = b.plan.changes.size(), unchanged = b.plan.unchanged;
  if (Status st = plan_sysctl(
          b, s, fmt::format("RFS on {} (nic rule '{}'), the socket flow table: ", nics, t.glob));
      !st.ok())
    return st;
  // Left out: the table is registered in the initial network namespace only
  // (net/core/sysctl_net_core.c), and this is another one. The queues' tables are
  // planned all the same; the host's table decides whether they steer anything.
  if (b.plan.changes.size() == changes && b.plan.unchanged == unchanged)
    b.note("", fmt::format("RFS on {}: the socket flow table ({}) is global, kept by the "
                           "initial network namespace, not this one, so this plan leaves it: "
                           "the queues' flow tables planned here steer nothing until the host "
                           "sets it to {} or more",
                           nics, key, t.entries));
  return Ok{};
}

Status plan_nic_queues(PlanBuilder& b, const Nic& nic, const NicRule& rule,
                       const std::string& group) {
  if (!rule.rps && !rule.xps && !rule.rfs) return Ok{};
  QueueCounts after = queues_after(b, nic);
  if (((rule.rps || rule.rfs) && !after.rx) || (rule.xps && !after.tx))
    b.note(nic.name, "rps/xps/rfs wait for the channel change of this plan (the queue count "
                     "after it cannot be told from ethtool's and sysfs's counts now): plan and "
                     "apply again afterwards");
  if (rule.rps && after.rx)
    if (Status s = plan_rps(b, nic, rule, group, *after.rx, after.channels); !s.ok()) return s;
  if (rule.xps && after.tx)
    if (Status s = plan_xps(b, nic, rule, group, *after.tx, after.channels); !s.ok()) return s;
  if (rule.rfs && after.rx)
    if (Status s = plan_rfs(b, nic, rule, group, *after.rx, after.channels); !s.ok()) return s;
  return Ok{};
}

}  // namespace tuner::planner_detail
