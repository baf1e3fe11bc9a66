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

/// One CPU per IRQ, round robin: IRQ i gets order[i % order.size()]. Empty when order
/// is empty.
std::vector<unsigned> assign_round_robin(std::size_t irq_count, const std::vector<unsigned>& order);

}  // namespace tuner
