// IRQ placement: which CPU each queue IRQ of a NIC gets. Pure functions over the
// topology, so the rule ("a core each before any SMT sibling, never an isolated CPU")
// is tested without a machine.
#pragma once

#include <cstddef>
#include <vector>

#include "base/cpuset.h"
#include "base/result.h"
#include "probes/inventory.h"
#include "tuner/knobs/knob_id.h"

namespace tuner {

/// The CPUs of candidates that IRQs may use: host.isolcpus and host.nohz_full are
/// removed (those CPUs were set aside for latency-critical work).
CpuSet irq_allowed_cpus(const CpuSet& candidates, const Host& host);

/// The SLIT distance below which another node of the same package counts as the same
/// socket split up (AMD NPS2/NPS4 and Intel SNC report 11-12 on the die; another
/// socket is 20-32, and 20 is ACPI's "remote" default).
inline constexpr unsigned kSplitSocketDistance = 20;

/// The CPUs of the socket holding `node`: the node's, and those of every node of the
/// same package whose SLIT distance from it is below kSplitSocketDistance (NPS2/NPS4,
/// SNC). Just the node's when the distances are unknown, or the package's other nodes
/// are as far as another socket (a VM whose one socket spans two remote nodes).
CpuSet socket_cpus(const Topology& topo, const NumaNode& node);

/// The cores with at least one PU in allowed (allowed's size when the topology lists no
/// cores).
std::size_t count_cores(const Topology& topo, const CpuSet& allowed);

/// The order in which CPUs are handed to queue IRQs: the first allowed PU of every core,
/// then every core's second allowed PU, and so on. Cores are taken from each NUMA node
/// in turn (node A's first, node B's first, node A's second, ...; within a node in
/// logical-index order), so IRQs spread over several nodes reach all of them whatever
/// the CPU numbering; within one node this is logical-index order.
/// Cores with no allowed PU are left out. Allowed PUs that no core lists (a topology
/// without cores) count as cores of their own, after the listed ones.
std::vector<unsigned> irq_cpu_order(const std::vector<Core>& cores, const CpuSet& allowed);

/// The knob id of an IRQ's affinity: by owner (PCI function and MSI vector) when the
/// probe could tell them, so that journal, state and `restore` follow the queue when the
/// numbers change; by number otherwise (INTx lines, captures without
/// /sys/kernel/irq/N/hwirq).
Result<KnobId> irq_affinity_id(const Irq& irq);

/// irq_cpu_order over near, then over further, a thread per core at a time: every core
/// of near, then every core of further, before any core's second thread. For a NIC
/// with more queue vectors than its node has cores on a socket split into nodes
/// (NPS2/NPS4, SNC): a core of its own for each queue on the same socket before SMT
/// siblings share one.
std::vector<unsigned> irq_cpu_order_near(const std::vector<Core>& cores, const CpuSet& near,
                                         const CpuSet& further);

/// One CPU per IRQ, round robin: IRQ i gets order[i % order.size()]. Empty when order
/// is empty.
std::vector<unsigned> assign_round_robin(std::size_t irq_count, const std::vector<unsigned>& order);

}  // namespace tuner
