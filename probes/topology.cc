#include "probes/topology.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <tuple>

#include "base/fd_io.h"
#include "base/strings.h"
#include "probes/capture_check.h"
#include "probes/hwloc_util.h"
#include "probes/topology_pci.h"
#include "probes/topology_xml.h"

namespace tuner {
namespace {

// hwloc settings that would make a "live" or "root" load describe something else.
constexpr const char* kRedirectingEnv[] = {"HWLOC_XMLFILE",    "HWLOC_SYNTHETIC",
                                           "HWLOC_FSROOT",     "HWLOC_THISSYSTEM",
                                           "HWLOC_COMPONENTS", "HWLOC_CPUID_PATH"};

Error hwloc_error(const std::string& what, const std::string& where, int err) {
  return errno_error("hwloc: " + what, where, err ? err : EINVAL);
}

// Filters and components: keep what the inventory uses, skip what costs time.
Status configure(hwloc_topology_t t) {
  hwloc_topology_set_type_filter(t, HWLOC_OBJ_MISC, HWLOC_TYPE_FILTER_KEEP_NONE);
  hwloc_topology_set_type_filter(t, HWLOC_OBJ_MEMCACHE, HWLOC_TYPE_FILTER_KEEP_NONE);
  hwloc_topology_set_icache_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL);
  if (hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) < 0)
    return hwloc_error("cannot enable I/O discovery", "topology", errno);
#if HWLOC_API_VERSION >= 0x00020800
  // Memory attributes (HMAT) and CPU kinds (cpufreq of every PU) are not used here.
  // hwloc before 2.8 (Ubuntu 22.04, RHEL 8 and 9, Debian 11) cannot skip them: the probe
  // is slower there, and the same (README: Supported systems).
  hwloc_topology_set_flags(t, HWLOC_TOPOLOGY_FLAG_NO_MEMATTRS | HWLOC_TOPOLOGY_FLAG_NO_CPUKINDS);
#endif
  // The Linux backend reads everything from /sys, PCI included. The x86 backend would
  // bind to every PU to run CPUID (slow, and it would describe this host under a
  // captured root); libpciaccess, OpenCL and GL add nothing the inventory uses.
  for (const char* name : {"x86", "pci", "opencl", "gl"})
    hwloc_topology_set_components(t, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, name);
  return Ok{};
}

void fill_numa_nodes(hwloc_topology_t t, Topology& topo) {
  for (hwloc_obj_t n = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, nullptr); n;
       n = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, n)) {
    NumaNode node;
    node.os_index = n->os_index;
    node.cpus = to_cpuset(n->cpuset);
    if (n->attr && n->attr->numanode.local_memory > 0)
      node.memory_bytes = n->attr->numanode.local_memory;
    topo.numa_nodes.push_back(std::move(node));
  }
  std::sort(topo.numa_nodes.begin(), topo.numa_nodes.end(),
            [](const NumaNode& a, const NumaNode& b) { return a.os_index < b.os_index; });
}

void fill_cores(hwloc_topology_t t, Topology& topo) {
  for (hwloc_obj_t c = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_CORE, nullptr); c;
       c = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_CORE, c)) {
    Core core;
    core.logical_index = c->logical_index;
    if (c->os_index != HWLOC_UNKNOWN_INDEX) core.os_index = c->os_index;
    if (hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_PACKAGE, c))
      core.package = pkg->logical_index;
    core.numa_node = nearest_numa_node(t, c);
    core.pus = to_cpuset(c->cpuset);
    topo.core_list.push_back(std::move(core));
  }
}

void fill_caches(hwloc_topology_t t, Topology& topo) {
  for (int type = HWLOC_OBJ_L1CACHE; type <= HWLOC_OBJ_L3ICACHE; ++type) {
    auto obj_type = static_cast<hwloc_obj_type_t>(type);
    if (!hwloc_obj_type_is_cache(obj_type)) continue;
    for (hwloc_obj_t c = hwloc_get_next_obj_by_type(t, obj_type, nullptr); c;
         c = hwloc_get_next_obj_by_type(t, obj_type, c)) {
      Cache cache;
      cache.level = c->attr->cache.depth;
      switch (c->attr->cache.type) {
        case HWLOC_OBJ_CACHE_DATA: cache.type = "data"; break;
        case HWLOC_OBJ_CACHE_INSTRUCTION: cache.type = "instruction"; break;
        default: cache.type = "unified"; break;
      }
      cache.size_bytes = c->attr->cache.size;
      cache.cpus = to_cpuset(c->cpuset);
      topo.caches.push_back(std::move(cache));
    }
  }
  auto key = [](const Cache& c) {
    unsigned first = c.cpus.empty() ? 0 : c.cpus.cpus().front();
    return std::make_tuple(c.level, c.type, first, c.size_bytes);
  };
  std::sort(topo.caches.begin(), topo.caches.end(),
            [&](const Cache& a, const Cache& b) { return key(a) < key(b); });
  auto same = [](const Cache& a, const Cache& b) {
    return a.level == b.level && a.type == b.type && a.size_bytes == b.size_bytes &&
           a.cpus == b.cpus;
  };
  topo.caches.erase(std::unique(topo.caches.begin(), topo.caches.end(), same), topo.caches.end());
}

// The latency matrix hwloc found between all NUMA nodes (sysfs, ACPI SLIT, or an XML
// export), in numa_nodes order; left empty when there is none covering every node.
void fill_distances(hwloc_topology_t t, Topology& topo) {
  unsigned nr = 1;
  hwloc_distances_s* d = nullptr;
  if (hwloc_distances_get_by_type(t, HWLOC_OBJ_NUMANODE, &nr, &d,
                                  HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) < 0 ||
      nr == 0)
    return;
  const size_t n = topo.numa_nodes.size();
  if (d->nbobjs == n) {
    std::vector<size_t> pos(n);  // numa_nodes index -> matrix index
    bool all = true;
    for (size_t i = 0; i < n; ++i) {
      auto* it = std::find_if(d->objs, d->objs + n, [&](hwloc_obj_t o) {
        return o && o->os_index == topo.numa_nodes[i].os_index;
      });
      if (it == d->objs + n) all = false;
      else pos[i] = static_cast<size_t>(it - d->objs);
    }
    if (all) {
      topo.distances.assign(n, std::vector<unsigned>(n));
      for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j)
          topo.distances[i][j] = static_cast<unsigned>(d->values[pos[i] * n + pos[j]]);
    }
  }
  hwloc_distances_release(t, d);
}

/// The machine's own facts as hwloc records them (an XML export carries the exporting
/// machine's): the root object's info pairs, and CPUModel/CPUVendor of the first
/// package that has them. Blank values are left out.
std::map<std::string, std::string> machine_info(hwloc_topology_t t) {
  std::map<std::string, std::string> out;
  auto add = [&out](const hwloc_obj* obj) {
    for (unsigned i = 0; i < obj->infos_count; ++i) {
      const hwloc_info_s& info = obj->infos[i];
      if (!info.name || !info.value) continue;
      std::string value(trim(info.value));
      if (!value.empty()) out.try_emplace(info.name, std::move(value));
    }
  };
  add(hwloc_get_root_obj(t));
  for (hwloc_obj_t pkg = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_PACKAGE, nullptr); pkg;
       pkg = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_PACKAGE, pkg))
    for (const char* key : {"CPUModel", "CPUVendor"})
      if (const char* v = hwloc_obj_get_info_by_name(pkg, key); v && !trim(v).empty())
        out.try_emplace(key, std::string(trim(v)));
  return out;
}

Topology extract(hwloc_topology_t t) {
  Topology topo;
  topo.info = machine_info(t);
  topo.packages = static_cast<unsigned>(hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE));
  topo.cores = static_cast<unsigned>(hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE));
  topo.pus = static_cast<unsigned>(hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU));
  topo.all_pus = to_cpuset(hwloc_get_root_obj(t)->cpuset);
  fill_numa_nodes(t, topo);
  fill_cores(t, topo);
  fill_caches(t, topo);
  fill_distances(t, topo);
  topo.pci = collect_pci(t);
  return topo;
}

}  // namespace

Result<Topology> probe_topology(const Root& root, const std::optional<std::string>& xml_file) {
  std::string source = "live";
  ScopedEnv env;
  for (const char* name : kRedirectingEnv) env.set(name, std::nullopt);
  std::string xml_text;
  if (xml_file) {
    // Read here, bounded and checked, and hand hwloc the bytes: it reports an
    // unreadable file as EINVAL, waits forever on a FIFO and recurses without limit.
    auto text = read_topology_xml(*xml_file);
    if (!text.ok()) return text.error();
    xml_text = std::move(text).value();
    // hwloc's own minimal parser reads its exports a third faster than libxml2.
    env.set("HWLOC_LIBXML_IMPORT", "0");
    source = "xml:" + *xml_file;
  } else if (!root.is_live()) {
    // Without this check hwloc falls back to a one-PU machine instead of failing.
    if (!root.exists("sys/devices/system/cpu"))
      return errno_error("not a captured machine: no sys/devices/system/cpu", root.dir(), ENOENT);
    // hwloc opens the capture's files itself, blocking and unbounded.
    if (Status s = check_capture(root); !s.ok()) return s.error();
    env.set("HWLOC_FSROOT", root.dir());
    env.set("HWLOC_THISSYSTEM", "0");
    source = "root:" + root.dir();
  }

  HwlocTopology holder;
  if (!holder.init()) return hwloc_error("cannot initialise a topology", "topology", errno);
  hwloc_topology_t t = holder.get();
  // The size counts the terminating NUL, as hwloc_topology_export_xmlbuffer's does.
  if (xml_file &&
      hwloc_topology_set_xmlbuffer(t, xml_text.c_str(), static_cast<int>(xml_text.size() + 1)) < 0)
    return hwloc_error("not a topology XML export", *xml_file, errno);
  if (auto st = configure(t); !st.ok()) return st.error();
  if (hwloc_topology_load(t) < 0) {
    if (xml_file) return hwloc_error("not a valid topology XML export", *xml_file, errno);
    return hwloc_error("cannot load the topology", root.dir(), errno);
  }

  Topology topo = extract(t);
  if (topo.pus == 0 || topo.numa_nodes.empty())
    return Error::invalid("topology has no PUs or no NUMA nodes",
                          xml_file ? *xml_file : root.dir());
  topo.source = std::move(source);
  return topo;
}

}  // namespace tuner
