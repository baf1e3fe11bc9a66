// Test helpers for the planner: hand-built machines, a fake current-value source, and
// "apply" of a plan to those, so tests can re-plan against a desired state. (The real
// round trip, through the knobs, apply and rollback, is tests/support/roundtrip_*.)
#pragma once

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "base/strings.h"
#include "tuner/knobs/nic_value.h"
#include "tuner/plan/planner.h"

namespace tuner::testing {

/// Current values from a map of knob ids; ids listed in missing do not exist.
class FakeCurrent : public CurrentValues {
 public:
  bool readable() const override { return readable_; }
  bool live() const override { return live_; }
  CurrentValue get(const KnobId& knob) const override {
    std::string id = knob.str();
    if (missing_.contains(id)) return {CurrentValue::State::missing, "", id + " does not exist"};
    auto it = values_.find(id);
    if (it == values_.end()) return {CurrentValue::State::unknown, "", "not in the fake"};
    return {CurrentValue::State::known, it->second, ""};
  }
  std::map<std::string, std::string> values_;
  std::set<std::string> missing_;
  bool readable_ = true;
  bool live_ = false;
};

/// A machine of nodes x cores_per_node cores with 2 threads each, numbered as Linux
/// does on Intel: core c (global) has PUs c and c + total_cores. nodes_per_package > 1
/// is a socket split into NUMA nodes (AMD NPS2/NPS4, Intel SNC): nodes 0-3 are socket 0
/// with 4, at SLIT distance 12 from each other and 32 from the other socket's.
inline Inventory smt_machine(unsigned nodes, unsigned cores_per_node,
                             unsigned nodes_per_package = 1) {
  Inventory inv;
  Topology& t = inv.topology;
  unsigned total = nodes * cores_per_node;
  t.source = "test";
  t.packages = nodes / nodes_per_package;
  t.cores = total;
  t.pus = 2 * total;
  std::vector<unsigned> all;
  for (unsigned n = 0; n < nodes; ++n) {
    NumaNode node;
    node.os_index = n;
    std::vector<unsigned> cpus;
    for (unsigned c = n * cores_per_node; c < (n + 1) * cores_per_node; ++c) {
      cpus.push_back(c);
      cpus.push_back(c + total);
      Core core;
      core.logical_index = c;
      core.os_index = c;
      core.package = n / nodes_per_package;
      core.numa_node = n;
      core.pus = CpuSet({c, c + total});
      t.core_list.push_back(core);
    }
    all.insert(all.end(), cpus.begin(), cpus.end());
    node.cpus = CpuSet(cpus);
    t.numa_nodes.push_back(node);
  }
  t.all_pus = CpuSet(all);
  if (nodes_per_package > 1) {
    // SLIT as AMD NPS4 reports it: 10 on the node, 12 on the die, 32 across sockets.
    t.distances.assign(nodes, std::vector<unsigned>(nodes, 32));
    for (unsigned a = 0; a < nodes; ++a)
      for (unsigned b = 0; b < nodes; ++b)
        if (a / nodes_per_package == b / nodes_per_package) t.distances[a][b] = a == b ? 10 : 12;
  }
  inv.host.irqbalance_running = false;
  return inv;
}

/// Adds a physical NIC on node with queues queue IRQs ("NAME-TxRx-i") numbered from
/// first_irq, plus a control IRQ ("NAME", ixgbe's link vector) at first_irq + queues. All IRQs
/// start with affinity "all CPUs".
inline Nic& add_nic(Inventory& inv, const std::string& name, std::optional<int> node,
                    unsigned queues, unsigned first_irq) {
  Nic nic;
  nic.name = name;
  nic.driver = "ixgbe";
  nic.pci = "0000:0" + std::to_string(inv.nics.size()) + ":00.0";
  nic.numa_node = node;
  nic.rx_queues = nic.tx_queues = queues;
  for (unsigned i = 0; i <= queues; ++i) {
    Irq irq;
    irq.number = first_irq + i;
    irq.chip = "PCI-MSIX-" + *nic.pci;
    irq.device = name;
    irq.pci = nic.pci;
    irq.affinity = inv.topology.all_pus.to_string();
    irq.source = "name";
    if (i < queues) {
      irq.name = name + "-TxRx-" + std::to_string(i);
      irq.queue = "TxRx-" + std::to_string(i);
      irq.kind = IrqKind::queue;
      irq.queue_index = i;
      irq.queue_type = QueueType::combined;
    } else {
      irq.name = name;
      irq.kind = IrqKind::control;
    }
    nic.irqs.push_back(irq.number);
    inv.irqs.push_back(irq);
  }
  inv.nics.push_back(nic);
  return inv.nics.back();
}

/// Gives every physical NIC without queue IRQs 2 x (CPUs of its node) + 3 combined
/// ones ("NAME-TxRx-i"), enough to wrap around every CPU (the captures have none).
inline void add_queue_irqs(Inventory& inv) {
  unsigned next = 1000;
  for (const Irq& irq : inv.irqs) next = std::max(next, irq.number + 1);
  for (Nic& nic : inv.nics) {
    if (nic.is_virtual) continue;
    bool has = std::any_of(inv.irqs.begin(), inv.irqs.end(), [&](const Irq& i) {
      return i.device == nic.name && i.kind == IrqKind::queue;
    });
    if (has) continue;
    const NumaNode* node = nic.numa_node ? inv.find_node(*nic.numa_node) : nullptr;
    std::size_t n = 2 * (node ? node->cpus.size() : inv.topology.all_pus.size()) + 3;
    for (std::size_t q = 0; q < n; ++q) {
      Irq irq;
      irq.number = next++;
      irq.name = nic.name + "-TxRx-" + std::to_string(q);
      irq.queue = "TxRx-" + std::to_string(q);
      irq.kind = IrqKind::queue;
      irq.queue_index = static_cast<unsigned>(q);
      irq.queue_type = QueueType::combined;
      irq.device = nic.name;
      irq.affinity = inv.topology.all_pus.to_string();
      nic.irqs.push_back(irq.number);
      inv.irqs.push_back(irq);
    }
  }
}

/// Writes every change's desired value into inv (IRQs, NICs, irqbalance) or current
/// (sysctl, numa, irqbalance ban list, RPS and XPS masks), as a perfect apply would. A
/// channel change makes or removes queues as drivers do: a queue per combined channel
/// plus one per channel of that direction.
inline void apply_plan(const Plan& plan, Inventory& inv, FakeCurrent& current) {
  auto fields = [](const std::string& v) {
    std::map<std::string, std::string> out;
    for (std::string_view f : split(v, ',')) {
      auto eq = f.find('=');
      if (eq != std::string_view::npos)
        out[std::string(f.substr(0, eq))] = std::string(f.substr(eq + 1));
    }
    return out;
  };
  auto u32 = [](const std::string& s) { return static_cast<uint32_t>(*parse_u64(s)); };
  for (const Change& c : plan.changes) {
    auto parts = split(c.knob, ':');
    if (parts[0] == "irq") {
      for (Irq& irq : inv.irqs)
        if (std::to_string(irq.number) == parts[1]) irq.affinity = c.desired;
    } else if (parts[0] == "nic" && parts.size() != 4) {  // not a queue's: nic:IF:xps:tx-N
      for (Nic& nic : inv.nics) {
        if (nic.name != parts[1]) continue;
        if (parts[2] == "channels") {
          if (!nic.channels) nic.channels = Channels{};
          Channels& ch = *nic.channels;
          auto count = [&](std::optional<uint32_t> own) {
            return own.value_or(0) + ch.combined.value_or(0);
          };
          bool rx_follows = nic.rx_queues == count(ch.rx),
               tx_follows = nic.tx_queues == count(ch.tx);
          for (const auto& [k, v] : fields(c.desired)) {
            if (k == "rx") ch.rx = u32(v);
            if (k == "tx") ch.tx = u32(v);
            if (k == "combined") ch.combined = u32(v);
          }
          if (rx_follows) nic.rx_queues = count(ch.rx);
          if (tx_follows) nic.tx_queues = count(ch.tx);
          continue;
        }
        for (const auto& [k, v] : fields(c.desired)) {
          if (parts[2] == "link") {
            if (k == "autoneg") nic.link.autoneg = v == "on";
            if (k == "speed") nic.link.speed_mbps = u32(v);
            if (k == "duplex") nic.link.duplex = parse_duplex(v);
          } else if (parts[2] == "rings") {
            if (!nic.rings) nic.rings = Rings{};
            if (k == "rx") nic.rings->rx = u32(v);
            if (k == "tx") nic.rings->tx = u32(v);
          } else if (parts[2] == "coalesce") {
            if (!nic.coalesce) nic.coalesce = Coalesce{};
            for (const CoalesceField& f : coalesce_fields()) {
              if (k != f.name) continue;
              if (f.count) (*nic.coalesce).*f.count = u32(v);
              else (*nic.coalesce).*f.flag = v == "on";
            }
          }
        }
      }
    } else if (c.knob == "irqbalance:service") {
      inv.host.irqbalance_running = c.desired == "active";
    } else {  // sysctls, queue masks, cpu and mm settings: what the fake reads back
      current.values_[c.knob] = c.desired;
    }
  }
}

inline SourceLoc loc(int line) { return SourceLoc{"/etc/tuner/profiles/test.toml", line, 1}; }

}  // namespace tuner::testing
