#include "tuner/plan/xps_map.h"

#include <optional>
#include <tuple>

namespace tuner {
namespace {

/// A core's online PUs and where it sits; a PU no core lists is a core of its own.
struct Unit {
  CpuSet pus;
  std::optional<unsigned> node, package;
};

std::vector<Unit> units_of(const Topology& topo) {
  std::vector<Unit> out;
  CpuSet listed;
  for (const Core& c : topo.core_list) {
    CpuSet pus = c.pus.intersect(topo.all_pus).minus(listed);
    listed = listed.unite(c.pus);
    if (!pus.empty()) out.push_back({pus, c.numa_node, c.package});
  }
  CpuSet unlisted = topo.all_pus.minus(listed);
  for (unsigned pu : unlisted.cpus()) {
    Unit u{CpuSet(std::vector<unsigned>{pu}), std::nullopt, std::nullopt};
    for (const NumaNode& n : topo.numa_nodes)
      if (n.cpus.contains(pu)) u.node = n.os_index;
    out.push_back(u);
  }
  return out;
}

unsigned distance(const Topology& topo, std::optional<unsigned> a, std::optional<unsigned> b) {
  if (!a || !b) return a == b ? 10 : 20;
  std::optional<std::size_t> ia, ib;
  for (std::size_t i = 0; i < topo.numa_nodes.size(); ++i) {
    if (topo.numa_nodes[i].os_index == *a) ia = i;
    if (topo.numa_nodes[i].os_index == *b) ib = i;
  }
  if (ia && ib && *ia < topo.distances.size() && *ib < topo.distances[*ia].size())
    return topo.distances[*ia][*ib];
  return *a == *b ? 10 : 20;
}

/// How far a CPU of `from` is from a queue anchored on `to`: lower is nearer.
std::tuple<int, unsigned> nearness(const Topology& topo, const Unit& from, const Unit& to) {
  return {from.package == to.package ? 0 : 1, distance(topo, from.node, to.node)};
}

}  // namespace

std::vector<CpuSet> xps_masks(const Topology& topo, const std::vector<CpuSet>& anchors) {
  if (topo.all_pus.empty()) return anchors;  // no CPUs known to map
  std::vector<CpuSet> masks(anchors.size());
  std::vector<Unit> units = units_of(topo);
  CpuSet claimed;
  for (std::size_t q = 0; q < anchors.size(); ++q) {
    masks[q] = anchors[q].intersect(topo.all_pus);
    claimed = claimed.unite(masks[q]);
  }
  if (claimed.empty()) return masks;

  // The units each queue is anchored on; a unit with anchors lends its free siblings.
  std::vector<std::vector<const Unit*>> homes(anchors.size());
  std::vector<const Unit*> pending;
  for (const Unit& u : units) {
    bool anchored = false;
    for (std::size_t q = 0; q < masks.size(); ++q)
      if (!masks[q].intersect(u.pus).empty()) {
        homes[q].push_back(&u);
        anchored = true;
      }
    if (!anchored) pending.push_back(&u);
  }
  for (std::size_t q = 0; q < masks.size(); ++q)
    for (const Unit* u : homes[q]) masks[q] = masks[q].unite(u->pus.minus(claimed));

  for (const Unit* u : pending) {
    std::optional<std::size_t> best;
    std::tuple<int, unsigned> best_near{};
    for (std::size_t q = 0; q < masks.size(); ++q) {
      if (homes[q].empty()) continue;
      std::optional<std::tuple<int, unsigned>> near;
      for (const Unit* h : homes[q])
        if (auto n = nearness(topo, *u, *h); !near || n < *near) near = n;
      if (!best || *near < best_near ||
          (*near == best_near && masks[q].size() < masks[*best].size())) {
        best = q;
        best_near = *near;
      }
    }
    masks[*best] = masks[*best].unite(u->pus);
  }
  return masks;
}

}  // namespace tuner
