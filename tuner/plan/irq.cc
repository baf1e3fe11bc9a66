// IRQ rules: where each queue IRQ of a matching NIC should run, and what to do about
// irqbalance, which would otherwise move them back.
//
// A NIC's queue IRQs are the IRQs the probe tied to it (Irq::device, or listed in
// Nic::irqs) of kind queue (probes/irq_names.h knows each driver's names). Control
// vectors serve link events or the device's command queue: they see little traffic
// and are left where they are; so are vectors the probe could not tie to one queue of
// one netdev (Irq::ambiguous): placing them would be a guess. Each is named in a note.
// Kernel-managed IRQs cannot be moved and are skipped with a note.
// When two rules match a NIC, the one later in the profile wins (as later files win).
// Current affinities and whether irqbalance runs come from the Inventory; the ban
// list is the irqbalance:banned knob's read().
#include <algorithm>
#include <map>
#include <set>

#include <fmt/core.h>

#include "base/strings.h"
#include "tuner/plan/builder.h"
#include "tuner/plan/irq_placement.h"

namespace tuner::planner_detail {

bool is_queue_irq(const Irq& irq) { return irq.kind == IrqKind::queue && !irq.ambiguous; }

bool owned_by(const Irq& irq, const Nic& nic) {
  return (irq.device && *irq.device == nic.name) ||
         std::find(nic.irqs.begin(), nic.irqs.end(), irq.number) != nic.irqs.end();
}

namespace {

/// "queue 3", "rx queue 3", "tx queue 3", or "every queue" for a shared vector.
std::string queue_words(const Irq& irq) {
  if (irq.queue_type == QueueType::shared) return "every queue";
  if (!irq.queue_index)
    return "queue " + irq.queue.value_or("of IRQ " + std::to_string(irq.number));
  std::string prefix = irq.queue_type == QueueType::rx   ? "rx "
                       : irq.queue_type == QueueType::tx ? "tx "
                                                         : "";
  return prefix + "queue " + std::to_string(*irq.queue_index);
}

/// Placement rank: RX or combined vectors first, then TX-only ones, then vectors that
/// serve every queue.
int rank(const Irq& irq) {
  if (irq.queue_type == QueueType::tx) return 1;
  if (irq.queue_type == QueueType::shared) return 2;
  return 0;
}

/// The queue IRQs of nic in placement order: receive (or combined) vectors by queue
/// index, then transmit-only ones by queue index, then IRQ number. NICs with separate
/// RX and TX vectors (virtio's input.N/output.N) would otherwise alternate, and round
/// robin would put every RX queue on the same half of the cores.
std::vector<const Irq*> queue_irqs(const Inventory& inv, const Nic& nic) {
  std::vector<const Irq*> out;
  for (const Irq& irq : inv.irqs)
    if (owned_by(irq, nic) && is_queue_irq(irq)) out.push_back(&irq);
  std::sort(out.begin(), out.end(), [](const Irq* a, const Irq* b) {
    if (rank(*a) != rank(*b)) return rank(*a) < rank(*b);
    if (a->queue_index != b->queue_index)
      return a->queue_index.value_or(~0u) < b->queue_index.value_or(~0u);
    return a->number < b->number;
  });
  return out;
}

/// "IRQ 44 (eth0)" or "IRQs 44 (a), 45 (b)", at most 8 named.
std::string irq_list(const std::vector<const Irq*>& irqs) {
  std::string out = irqs.size() == 1 ? "IRQ " : "IRQs ";
  for (std::size_t i = 0; i < irqs.size() && i < 8; ++i)
    out += (i ? ", " : "") + std::to_string(irqs[i]->number) + " (" + irqs[i]->name + ")";
  if (irqs.size() > 8) out += " and " + std::to_string(irqs.size() - 8) + " more";
  return out;
}

/// Names what a rule leaves alone on nic and why: its control vectors, vectors whose
/// owner or queue the probe could not tell (also those of its PCI function that no
/// netdev could be picked for), and vectors no rule recognises.
void note_left_alone(PlanBuilder& b, const Nic& nic) {
  std::vector<const Irq*> control, unknown;
  std::map<std::string, std::vector<const Irq*>> ambiguous;
  for (const Irq& irq : b.inventory.irqs) {
    bool mine = owned_by(irq, nic);
    bool functions = !irq.device && nic.pci && irq.pci == nic.pci && irq.ambiguous;
    if (!mine && !functions) continue;
    if (irq.ambiguous) ambiguous[*irq.ambiguous].push_back(&irq);
    else if (irq.kind == IrqKind::control) control.push_back(&irq);
    else if (irq.kind == IrqKind::other) unknown.push_back(&irq);
  }
  if (!control.empty())
    b.note(nic.name, "left alone, control vectors (link, mailbox, events): " + irq_list(control));
  for (const auto& [why, irqs] : ambiguous)
    b.note(nic.name, "left alone, " + irq_list(irqs) + ": " + why);
  if (!unknown.empty())
    b.note(nic.name, "left alone, not known as queue vectors: " + irq_list(unknown));
}

struct IrqbalanceWish {
  const IrqRule* stop = nullptr;  // first rule asking to stop it
  const IrqRule* ban = nullptr;   // first rule asking for bans
  std::vector<KnobId> banned;     // as irq:...:affinity names them: by owner where known
};

/// Plans one NIC's IRQs under rule; adds notes for fallbacks.
Status place_nic(PlanBuilder& b, const Nic& nic, const IrqRule& rule,
                 const std::vector<const Irq*>& irqs) {
  const Inventory& inv = b.inventory;
  const Topology& topo = inv.topology;
  std::string group = rule.group.empty() ? "irq" : rule.group;
  std::vector<std::string> desired(irqs.size());
  std::vector<std::string> reasons(irqs.size());

  if (rule.policy == IrqPolicy::pin) {
    for (std::size_t i = 0; i < irqs.size(); ++i) {
      desired[i] = rule.cpus->to_string();
      reasons[i] = nic.name + " " + queue_words(*irqs[i]) + " pinned to " + desired[i] + " (" +
                   short_loc(rule.loc) + ")";
    }
  } else {
    CpuSet candidates = topo.all_pus;
    std::string why;
    const NumaNode* node = nic.numa_node ? inv.find_node(static_cast<unsigned>(*nic.numa_node))
                                         : nullptr;
    if (rule.policy == IrqPolicy::spread) {
      why = nic.name + ": spread over all CPUs";
    } else if (!node || node->cpus.empty()) {
      why = nic.name + " has no NUMA locality, so spread over all nodes";
      b.note(nic.name, "no NUMA node with CPUs: IRQs spread over all nodes");
    } else if (irq_allowed_cpus(node->cpus, inv.host).empty()) {
      why = nic.name + " is on NUMA node " + std::to_string(node->os_index) +
            " whose CPUs are all isolated, so spread over all nodes";
      b.note(nic.name, "every CPU of its NUMA node " + std::to_string(node->os_index) +
                           " is isolated (isolcpus/nohz_full): IRQs spread over all nodes");
    } else {
      candidates = node->cpus;
      why = nic.name + " is on NUMA node " + std::to_string(node->os_index);
    }
    CpuSet allowed = irq_allowed_cpus(candidates, inv.host);
    std::vector<unsigned> order = irq_cpu_order(topo.core_list, allowed);
    if (rule.policy == IrqPolicy::numa_local && node && candidates == node->cpus) {
      // More queue vectors than the node has cores, on a socket split into nodes:
      // the socket's other cores before any SMT sibling doubles up.
      CpuSet socket = socket_cpus(topo, *node);
      CpuSet further = irq_allowed_cpus(socket.minus(node->cpus), inv.host);
      std::size_t node_cores = count_cores(topo, allowed);
      if (irqs.size() > node_cores && !further.empty()) {
        order = irq_cpu_order_near(topo.core_list, allowed, further);
        why += fmt::format(" with {} cores for {} queue vectors, so the rest of its socket's "
                           "cores too",
                           node_cores, irqs.size());
      }
    }
    std::vector<unsigned> cpus = assign_round_robin(irqs.size(), order);
    if (cpus.empty()) {
      b.note(nic.name,
             "no CPU may take its IRQs (topology unknown or every CPU isolated): skipped");
      return Ok{};
    }
    for (std::size_t i = 0; i < irqs.size(); ++i) {
      desired[i] = std::to_string(cpus[i]);
      reasons[i] = why + "; " + queue_words(*irqs[i]) + " -> CPU " + desired[i];
    }
  }

  for (std::size_t i = 0; i < irqs.size(); ++i) {
    const Irq& irq = *irqs[i];
    auto id = irq_affinity_id(irq);
    if (!id.ok()) return error_at(rule.loc, id.error().message());
    bool done = false;
    if (irq.affinity) {
      auto cur = CpuSet::parse(*irq.affinity);
      done = cur.ok() && cur->to_string() == desired[i];
    }
    b.add(Change{id->str(), group, irq.affinity, desired[i], reasons[i]}, done);
  }
  return Ok{};
}

/// Whether irqbalance runs on the target. An XML topology describes another machine:
/// the host facts the probes add are this one's, so it is unknown there.
std::optional<bool> irqbalance_running(const PlanBuilder& b) {
  if (!b.current.readable()) return std::nullopt;
  return b.inventory.host.irqbalance_running;
}

void plan_irqbalance(PlanBuilder& b, const IrqbalanceWish& wish) {
  std::optional<bool> running = irqbalance_running(b);
  if (wish.stop) {
    Change c{KnobId::irqbalance_service().str(),
             wish.stop->group.empty() ? "irq" : wish.stop->group,
             running ? std::optional<std::string>(*running ? "active" : "inactive") : std::nullopt,
             "inactive",
             "irqbalance would move the placed IRQs back (" + short_loc(wish.stop->loc) + ")"};
    b.add(std::move(c), running == false);
    if (wish.ban) b.note("", "irqbalance is stopped, so the IRQ ban list is not needed");
    return;
  }
  if (!wish.ban || wish.banned.empty()) return;
  if (running == false) {
    b.note("", "irqbalance is not running: no IRQs need banning");
    return;
  }
  Change c{KnobId::irqbalance_banned().str(), wish.ban->group.empty() ? "irq" : wish.ban->group,
           std::nullopt, irq_ref_list(wish.banned),
           "keep irqbalance off the placed IRQs (" + short_loc(wish.ban->loc) + ")"};
  bool done = false;
  if (b.current.readable()) {
    CurrentValue cur = b.current.get(KnobId::irqbalance_banned());
    if (cur.state == CurrentValue::State::known) {
      c.current = cur.value;
      done = cur.value == c.desired;
    }
  }
  b.add(std::move(c), done);
}

/// Checks a rule on its own, so a bad rule is an error even when no NIC matches it.
Status check_rule(const IrqRule& rule, const Topology& topo) {
  if (rule.policy != IrqPolicy::pin) return Ok{};
  if (!rule.cpus || rule.cpus->empty())
    return error_at(rule.loc, "irq policy 'pin' needs a non-empty cpus list");
  if (!topo.all_pus.empty() && !rule.cpus->is_subset_of(topo.all_pus))
    return error_at(rule.loc, "cpus '" + rule.cpus->to_string() +
                                  "' names CPUs this machine does not have (it has " +
                                  topo.all_pus.to_string() + ")");
  return Ok{};
}

}  // namespace

Status plan_irqs(PlanBuilder& b) {
  for (const IrqRule& rule : b.profile.irqs) {
    Status s = check_rule(rule, b.inventory.topology);
    if (!s.ok()) return s;
  }
  IrqbalanceWish wish;
  std::set<const IrqRule*> warned_leave;
  std::vector<const Nic*> nics;
  for (const Nic& nic : b.inventory.nics) nics.push_back(&nic);
  std::sort(nics.begin(), nics.end(),
            [](const Nic* x, const Nic* y) { return natural_less(x->name, y->name); });
  for (const Nic* nic : nics) {
    const IrqRule* rule = nullptr;
    std::string globs;
    for (const IrqRule& r : b.profile.irqs) {
      if (!glob_match(r.glob, nic->name)) continue;
      if (rule) globs += ", ";
      globs += "'" + r.glob + "'";
      rule = &r;
    }
    if (!rule) continue;
    if (globs.find(", ") != std::string::npos)
      b.note(nic->name,
             "matches irq rules " + globs + "; the last one ('" + rule->glob + "') is used");
    if (nic->is_virtual) {
      b.note(nic->name, "virtual, no IRQs to place (irq rule '" + rule->glob + "')");
      continue;
    }
    if (auto why = out_of_scope(*nic, *rule, b.inventory.nics)) {
      b.note(nic->name, *why);
      continue;
    }
    if (auto caveat = unknown_route(*nic, *rule)) b.note(nic->name, *caveat);
    note_left_alone(b, *nic);
    std::vector<const Irq*> all = queue_irqs(b.inventory, *nic);
    std::vector<const Irq*> irqs;
    std::string managed;
    for (const Irq* irq : all) {
      if (irq->managed) managed += (managed.empty() ? "" : ",") + std::to_string(irq->number);
      else irqs.push_back(irq);
    }
    if (!managed.empty())
      b.note(nic->name,
             "IRQs " + managed + " have kernel-managed affinity and cannot be moved: skipped");
    if (irqs.empty()) {
      if (managed.empty())
        b.note(nic->name, (b.inventory.irqs.empty() ? "no IRQs known on this target, nothing placed"
                                                    : "no queue IRQs to place") +
                              std::string(" (irq rule '") + rule->glob + "')");
      continue;
    }
    Status s = place_nic(b, *nic, *rule, irqs);
    if (!s.ok()) return s;
    if (rule->irqbalance == IrqbalanceAction::stop) {
      if (!wish.stop) wish.stop = rule;
    } else if (rule->irqbalance == IrqbalanceAction::ban) {
      if (!wish.ban) wish.ban = rule;
      for (const Irq* irq : irqs)
        if (auto id = irq_affinity_id(*irq); id.ok()) wish.banned.push_back(*id);
    } else if (irqbalance_running(b) == true && warned_leave.insert(rule).second) {
      b.note("", "irqbalance is running and will move the IRQs of rule '" + rule->glob +
                     "' back; set irqbalance = \"ban\" or \"stop\" in that rule");
    }
  }
  plan_irqbalance(b, wish);
  return Ok{};
}

}  // namespace tuner::planner_detail
