#include "tuner/cli/report/fleet_facts.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string_view>
#include <utility>

namespace tuner {

namespace {

/// The nodes (indexes among those with facts) that share one value of a fact.
struct Group {
  std::string_view value;
  std::vector<std::uint32_t> nodes;
};

/// A differing fact's groups, most nodes first, ties by their first node: two facts that
/// split the nodes alike then list their groups in the same order.
struct Spread {
  std::string_view fact;
  std::vector<Group> groups;
};

constexpr std::string_view kUnknown = "(unknown)";

}  // namespace

void compare_facts(const std::vector<NodeFactSources>& nodes, FleetSummary& s) {
  std::vector<const NodeFactSources*> with;  // nodes with facts; indexes below are into it
  for (const NodeFactSources& n : nodes) {
    if (n.sources.empty()) s.without_facts.push_back(n.node);
    else with.push_back(&n);
  }
  const auto m = static_cast<std::uint32_t>(with.size());
  // fact -> value -> nodes; views of the documents' strings, which outlive this function.
  std::map<std::string_view, std::map<std::string_view, std::vector<std::uint32_t>>> values;
  for (std::uint32_t i = 0; i < m; ++i) {
    const auto& sources = with[i]->sources;
    for (std::size_t j = 0; j < sources.size(); ++j)
      for (const auto& [k, v] : *sources[j]) {
        if (k == "hostname") continue;  // identity, not a fact to compare
        // A fact of a document that counts more hides this one.
        bool hidden = false;
        for (std::size_t before = 0; before < j && !hidden; ++before)
          hidden = sources[before]->contains(k);
        if (!hidden) values[k][v].push_back(i);
      }
  }

  // Facts with the same partition of the nodes (the label of each node's group) are one
  // block; blocks in the order of their first fact, facts by name.
  std::map<std::vector<std::uint32_t>, std::size_t> block_of;
  std::vector<std::vector<Spread>> blocks;
  for (auto& [fact, by_value] : values) {
    std::size_t known = 0;
    for (const auto& [v, idx] : by_value) known += idx.size();
    if (by_value.size() == 1 && known == m) {
      s.common[std::string(fact)] = std::string(by_value.begin()->first);
      continue;
    }
    Spread spread{fact, {}};
    for (auto& [v, idx] : by_value) spread.groups.push_back({v, std::move(idx)});
    if (known < m) {
      // Nodes that do not report the fact at all (an older tuner, no such NIC) differ too.
      std::vector<bool> reports(m);
      for (const Group& g : spread.groups)
        for (std::uint32_t i : g.nodes) reports[i] = true;
      Group unknown{kUnknown, {}};
      for (std::uint32_t i = 0; i < m; ++i)
        if (!reports[i]) unknown.nodes.push_back(i);
      spread.groups.push_back(std::move(unknown));
    }
    std::sort(spread.groups.begin(), spread.groups.end(), [](const Group& a, const Group& b) {
      if (a.nodes.size() != b.nodes.size()) return a.nodes.size() > b.nodes.size();
      return a.nodes.front() < b.nodes.front();
    });
    std::vector<std::uint32_t> label(m);
    for (std::uint32_t g = 0; g < spread.groups.size(); ++g)
      for (std::uint32_t i : spread.groups[g].nodes) label[i] = g;
    auto [it, added] = block_of.try_emplace(std::move(label), blocks.size());
    if (added) blocks.emplace_back();
    blocks[it->second].push_back(std::move(spread));
  }
  for (const std::vector<Spread>& block : blocks) {
    std::vector<std::size_t> split;
    for (const Spread& spread : block) {
      FactSpread f;
      f.fact = spread.fact;
      for (const Group& g : spread.groups) {
        FactSpread::Value v{std::string(g.value), {}};
        v.nodes.reserve(g.nodes.size());
        for (std::uint32_t i : g.nodes) v.nodes.push_back(with[i]->node);
        f.values.push_back(std::move(v));
      }
      split.push_back(s.differing.size());
      s.differing.push_back(std::move(f));
    }
    s.splits.push_back(std::move(split));
  }
}

}  // namespace tuner
