// [nic] rps and xps: the CPUs that steer each queue's packets in software.
//
//   rps = "numa-local"  Each RX queue's rps_cpus = the NIC's NUMA node's CPUs (less
//                       isolcpus/nohz_full, which the kernel drops from RPS maps anyway).
//                       Only where the NIC has fewer RX queues than that node has cores:
//                       with a queue per core, hardware already spreads the work and RPS
//                       would only add a hop; then nothing is planned and a note says so.
//                       A NIC with no locality is local to the only node of a one-node
//                       machine, and skipped with a note on a machine of several.
//   xps = "follow-irq"  Each TX queue's xps_cpus = the CPUs of the IRQ that completes it
//                       (its TX or combined vector, else a vector shared by every queue):
//                       as this plan places that IRQ, else as it is now. So a CPU sends
//                       on the queue whose completions it handles itself.
//   "off"               Every queue's mask empty ("none"): no steering.
// Queues are those the probe found (Nic::rx_queues, tx_queues); values are the knobs'
// (nic_queue_cpus.cc), so the same value the planner accepts is what apply writes.
#include <algorithm>
#include <map>

#include "base/strings.h"
#include "tuner/plan/builder.h"
#include "tuner/plan/irq_placement.h"

namespace tuner::planner_detail {
namespace {

/// A run of queue numbers for a note: "0-3,6".
std::string queue_list(const std::vector<unsigned>& queues) { return CpuSet(queues).to_string(); }

/// Plans one queue's mask; a queue that vanished since the probe is collected in gone.
Status add_queue(PlanBuilder& b, KnobKind kind, const Nic& nic, unsigned queue,
                 const std::string& desired, const std::string& group, const SourceLoc& loc,
                 const std::string& reason, std::vector<std::string>& gone) {
  auto id = KnobId::nic_queue(kind, nic.name, queue);
  if (!id.ok()) return error_at(loc, id.error().what);
  std::string why;
  auto planned = plan_table_knob(b, *id, TableSetting{desired, group, loc, {}}, reason, why);
  if (!planned.ok()) return planned.error();
  if (!*planned) gone.push_back(why);
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

Status plan_rps(PlanBuilder& b, const Nic& nic, const NicRule& rule, const std::string& group) {
  if (nic.rx_queues == 0) {
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
    std::string counts = std::to_string(nic.rx_queues) +
                         (nic.rx_queues == 1 ? " RX queue for the " : " RX queues for the ") +
                         std::to_string(cores) + " cores of its " + on_node;
    if (nic.rx_queues >= cores) {
      b.note(nic.name, counts + ": a queue per core already, rps = \"numa-local\" plans nothing");
      return Ok{};
    }
    desired = cpus.to_string();
    why = nic.name + " has " + counts + ": steered to the node's CPUs " + desired;
  }
  std::vector<std::string> gone;
  for (unsigned q = 0; q < nic.rx_queues; ++q) {
    Status s = add_queue(b, KnobKind::nic_rps, nic, q, desired, group, rule.rps_loc,
                         why + " (rx queue " + std::to_string(q) + ")", gone);
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

Status plan_xps(PlanBuilder& b, const Nic& nic, const NicRule& rule, const std::string& group) {
  if (nic.tx_queues <= 1) {
    // The kernel keeps no XPS map for a single-queue device (xps_cpus is ENOENT).
    b.note(nic.name, std::string(nic.tx_queues ? "has one TX queue" : "has no TX queues in sysfs") +
                         ": nothing to steer, xps of nic rule '" + rule.glob + "' skipped");
    return Ok{};
  }
  // IRQ affinities as this plan leaves them: its changes, else the probe's.
  std::map<std::string, std::string> placed;
  for (const Change& c : b.plan.changes)
    if (starts_with(c.knob, "irq:")) placed[c.knob] = c.desired;
  const CpuSet& online = b.inventory.topology.all_pus;
  std::vector<unsigned> no_irq, no_cpus;
  std::vector<std::string> gone;
  for (unsigned q = 0; q < nic.tx_queues; ++q) {
    std::string desired = "none";
    std::string why = nic.name + ": profile turns XPS off";
    if (rule.xps == XpsPolicy::follow_irq) {
      const Irq* irq = tx_irq(b.inventory, nic, q);
      if (!irq) {
        no_irq.push_back(q);
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
      desired = cpus->to_string();
      why = nic.name + " tx queue " + std::to_string(q) + " follows IRQ " +
            std::to_string(irq->number) + " (" + irq->name + ") " +
            (moved ? "as this plan places it" : "as it is now") + ": CPUs " + desired;
    }
    Status s = add_queue(
        b, KnobKind::nic_xps, nic, q, desired, group, rule.xps_loc,
        rule.xps == XpsPolicy::off ? why + " (tx queue " + std::to_string(q) + ")" : why, gone);
    if (!s.ok()) return s;
  }
  if (!no_irq.empty())
    b.note(nic.name, "tx queues " + queue_list(no_irq) +
                         ": no IRQ known to serve them, xps = \"follow-irq\" left them alone");
  if (!no_cpus.empty())
    b.note(nic.name, "tx queues " + queue_list(no_cpus) +
                         ": their IRQs' CPUs are not known, xps = \"follow-irq\" left them alone");
  note_gone(b, nic, gone);
  return Ok{};
}

}  // namespace

Status plan_nic_queues(PlanBuilder& b, const Nic& nic, const NicRule& rule,
                       const std::string& group) {
  if (!rule.rps && !rule.xps) return Ok{};
  // A channel change in this plan makes or removes queues: masks planned for today's
  // queues would be written to queues that no longer exist (apply fails and rolls
  // back) or leave the new ones out. They wait for the next plan, on the new queues.
  auto channels = KnobId::nic(KnobKind::nic_channels, nic.name);
  if (channels.ok() && std::ranges::any_of(b.plan.changes, [&](const Change& c) {
        return c.knob == channels->str();
      })) {
    b.note(nic.name, "rps/xps wait for the channel change of this plan (it makes or removes "
                     "queues): plan and apply again afterwards");
    return Ok{};
  }
  if (rule.rps)
    if (Status s = plan_rps(b, nic, rule, group); !s.ok()) return s;
  if (rule.xps)
    if (Status s = plan_xps(b, nic, rule, group); !s.ok()) return s;
  return Ok{};
}

}  // namespace tuner::planner_detail
