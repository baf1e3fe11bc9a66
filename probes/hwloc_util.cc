#include "probes/hwloc_util.h"

#include <cstdlib>

namespace tuner {

ScopedEnv::~ScopedEnv() {
  // Restore in reverse so a variable set twice ends at its original value.
  for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
    if (it->old) ::setenv(it->name.c_str(), it->old->c_str(), 1);
    else ::unsetenv(it->name.c_str());
  }
}

void ScopedEnv::set(const std::string& name, const std::optional<std::string>& value) {
  const char* old = ::getenv(name.c_str());
  saved_.push_back({name, old ? std::optional<std::string>(old) : std::nullopt});
  if (value) ::setenv(name.c_str(), value->c_str(), 1);
  else ::unsetenv(name.c_str());
}

CpuSet to_cpuset(hwloc_const_bitmap_t bitmap) {
  if (!bitmap || hwloc_bitmap_weight(bitmap) < 0) return {};
  std::vector<unsigned> ids;
  for (int i = hwloc_bitmap_first(bitmap); i >= 0; i = hwloc_bitmap_next(bitmap, i))
    ids.push_back(static_cast<unsigned>(i));
  return CpuSet(std::move(ids));
}

std::optional<unsigned> nearest_numa_node(hwloc_topology_t topo, hwloc_obj_t obj) {
  const bool single = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE) == 1;
  for (hwloc_obj_t a = obj; a && a->parent; a = a->parent) {
    if (a->memory_arity == 0) continue;
    // Memory-side caches may sit between an object and its nodes.
    hwloc_obj_t m = a->memory_first_child;
    while (m && m->type != HWLOC_OBJ_NUMANODE) m = m->memory_first_child;
    if (m && m->os_index != HWLOC_UNKNOWN_INDEX) return m->os_index;
  }
  // Attached to the whole machine: local to every node when there is only one.
  if (single) {
    hwloc_obj_t n = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, 0);
    if (n && n->os_index != HWLOC_UNKNOWN_INDEX) return n->os_index;
  }
  return std::nullopt;
}

}  // namespace tuner
