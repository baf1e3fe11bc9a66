// Test support for the topology and NUMA probes: the shared fixtures, unpacked sysfs
// captures, and an independent reading of the same input through hwloc's C API, so
// that tests compare the probes against what hwloc itself reports.
#pragma once

#include <hwloc.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tuner::test {

namespace fs = std::filesystem;

/// Sorted paths of the fixtures in ${TUNER_FIXTURES}/SUBDIR ending in SUFFIX.
inline std::vector<std::string> fixture_files(const std::string& subdir, const std::string& suffix) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(fs::path(TUNER_FIXTURES) / subdir)) {
    std::string p = e.path().string();
    if (p.size() > suffix.size() && p.compare(p.size() - suffix.size(), suffix.size(), suffix) == 0)
      out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// A fresh directory, removed with everything in it. In /dev/shm when there is one:
/// unpacking thousands of small sysfs files onto a slow disk takes seconds each.
class TempDir {
 public:
  TempDir() {
    fs::path base = ::access("/dev/shm", W_OK) == 0 ? fs::path("/dev/shm") : fs::temp_directory_path();
    std::string tmpl = (base / "tuner-topo-XXXXXX").string();
    if (::mkdtemp(tmpl.data())) path_ = tmpl;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// Unpacks a sysfs tarball into dir; returns its single top folder (the root), or ""
/// when tar failed or the tarball does not hold exactly one folder.
inline std::string unpack_root(const std::string& tarball, const std::string& dir) {
  std::string cmd = "tar -xjf '" + tarball + "' -C '" + dir + "'";
  if (std::system(cmd.c_str()) != 0) return "";
  std::vector<std::string> tops;
  for (const auto& e : fs::directory_iterator(dir)) tops.push_back(e.path().string());
  return tops.size() == 1 && fs::is_directory(tops[0]) ? tops[0] : "";
}

/// The root of a sysfs tarball, unpacked once per test run and shared by the tests
/// that read it (they only read). "" when it cannot be unpacked.
inline std::string shared_root(const std::string& tarball) {
  static std::map<std::string, std::pair<std::unique_ptr<TempDir>, std::string>> unpacked;
  auto it = unpacked.find(tarball);
  if (it == unpacked.end()) {
    auto dir = std::make_unique<TempDir>();
    std::string root = unpack_root(tarball, dir->path());
    it = unpacked.emplace(tarball, std::make_pair(std::move(dir), root)).first;
  }
  return it->second.second;
}

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
                                  HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) == 0 && nr == 1) {
    for (unsigned i = 0; i < d->nbobjs; ++i)
      for (unsigned j = 0; j < d->nbobjs; ++j)
        ref.distances[{d->objs[i]->os_index, d->objs[j]->os_index}] =
            d->values[i * d->nbobjs + j];
    hwloc_distances_release(t, d);
  }
  hwloc_topology_destroy(t);
  return ref;
}

}  // namespace tuner::test
