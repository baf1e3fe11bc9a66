// XPS maps for xps = "follow-irq": which CPUs send on each TX queue. A pure function
// over the topology, so the rule is tested on captured machines without one.
#pragma once

#include <vector>

#include "base/cpuset.h"
#include "probes/inventory.h"

namespace tuner {

/// Each TX queue's xps_cpus, such that every online CPU (topo.all_pus) is in some
/// queue's map. anchors[q] is the CPUs of queue q's completion IRQ (online ones; empty
/// when unknown: that queue gets an empty set and no CPUs).
///  - Queue q gets its anchors and their SMT siblings, except a sibling that is itself
///    another queue's anchor (a CPU sends on the queue whose completions it handles).
///    Siblings of a core holding several queues' anchors go to each of them.
///  - Every CPU still unmapped goes, a core at a time (in topology order), to the
///    nearest queue: same package first, then NUMA distance (SLIT; 10 on the node, 20
///    elsewhere when unknown); among equally near queues, the one with the fewest CPUs
///    so far, then the lowest number.
/// The drivers' own maps cover every CPU too; a map that leaves CPUs out makes their
/// senders pick a queue by flow hash, whose completions may be on another socket.
/// Empty sets everywhere when no queue has an anchor; the anchors as they are when the
/// topology lists no CPUs.
std::vector<CpuSet> xps_masks(const Topology& topo, const std::vector<CpuSet>& anchors);

}  // namespace tuner
