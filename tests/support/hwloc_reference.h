// Test support: an independent reading of a topology through nothing but hwloc's C API,
// so tests compare the topology and NUMA probes against what hwloc itself reports.
#pragma once

#include <hwloc.h>
#include <stdlib.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tuner::testing {

/// What hwloc reports for one input, read with nothing but hwloc's C API.
struct HwlocReference {
  bool loaded = false;
  unsigned numa_nodes = 0;
  unsigned pus = 0;
  std::map<unsigned, uint64_t> local_memory;  // node os_index -> bytes
  /// netdev name -> os_indexes of the nodes local to its PCI device's CPU-side
  /// ancestor; empty when that ancestor is the whole machine of a multi-node system.
  std::map<std::string, std::vector<unsigned>> netdev_nodes;
  /// (from, to) node os_index -> latency, from hwloc's first NUMA latency matrix.
  std::map<std::pair<unsigned, unsigned>, uint64_t> distances;
};

/// Loads an XML export (xml) or a captured root (fsroot) the way hwloc's own tools do.
inline HwlocReference hwloc_reference(const std::optional<std::string>& xml,
                                      const std::optional<std::string>& fsroot) {
  HwlocReference ref;
  hwloc_topology_t t;
  if (hwloc_topology_init(&t) < 0) return ref;
  if (fsroot) {
    ::setenv("HWLOC_FSROOT", fsroot->c_str(), 1);
    ::setenv("HWLOC_THISSYSTEM", "0", 1);
  }
  // libpciaccess (hwloc's "pci" plugin) leaks under ASan; hwloc's Linux backend
  // finds the same PCI devices in sysfs.
  hwloc_topology_set_components(t, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "pci");
  bool ok = (!xml || hwloc_topology_set_xml(t, xml->c_str()) == 0) &&
            hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) == 0 &&
            hwloc_topology_load(t) == 0;
  ::unsetenv("HWLOC_FSROOT");
  ::unsetenv("HWLOC_THISSYSTEM");
  if (!ok) {
    hwloc_topology_destroy(t);
    return ref;
  }
  ref.loaded = true;
  ref.numa_nodes = static_cast<unsigned>(hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE));
  ref.pus = static_cast<unsigned>(hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU));
  for (unsigned i = 0; i < ref.numa_nodes; ++i) {
    hwloc_obj_t n = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, i);
    ref.local_memory[n->os_index] = n->attr->numanode.local_memory;
  }
  for (hwloc_obj_t o = hwloc_get_next_osdev(t, nullptr); o; o = hwloc_get_next_osdev(t, o)) {
    if (o->attr->osdev.type != HWLOC_OBJ_OSDEV_NETWORK) continue;
    if (!o->parent || o->parent->type != HWLOC_OBJ_PCI_DEVICE) continue;
    hwloc_obj_t a = o->parent;
    while (a && (a->type == HWLOC_OBJ_PCI_DEVICE || a->type == HWLOC_OBJ_BRIDGE ||
                 a->type == HWLOC_OBJ_OS_DEVICE))
      a = a->parent;
    std::vector<unsigned>& nodes = ref.netdev_nodes[o->name];
    if (!a || (a->parent == nullptr && ref.numa_nodes > 1)) continue;
    unsigned id;
    hwloc_bitmap_foreach_begin(id, a->nodeset) nodes.push_back(id);
    hwloc_bitmap_foreach_end();
  }
  unsigned nr = 1;
  hwloc_distances_s* d = nullptr;
  if (hwloc_distances_get_by_type(t, HWLOC_OBJ_NUMANODE, &nr, &d,
                                  HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) == 0 &&
      nr == 1) {
    for (unsigned i = 0; i < d->nbobjs; ++i)
      for (unsigned j = 0; j < d->nbobjs; ++j)
        ref.distances[{d->objs[i]->os_index, d->objs[j]->os_index}] = d->values[i * d->nbobjs + j];
    hwloc_distances_release(t, d);
  }
  hwloc_topology_destroy(t);
  return ref;
}

}  // namespace tuner::testing
