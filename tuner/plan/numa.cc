// [[numa.bind]]: pin a systemd unit or a cgroup to the NUMA node nearest a device, or
// to a node given by number. Devices are resolved by near.h, as `tuner exec --near`
// resolves them. Values are the numa knobs' "cpus=<cpulist>,mems=<nodelist>", and the
// current value is the knob's own read() (a unit without tuner's drop-in is "none"):
// nothing here knows how a drop-in or a cpuset file looks.
#include <map>

#include "base/strings.h"
#include "tuner/plan/builder.h"
#include "tuner/plan/near.h"

namespace tuner::planner_detail {
namespace {

std::string node_list(const Inventory& inv) {
  std::vector<unsigned> ids;
  for (const NumaNode& n : inv.topology.numa_nodes) ids.push_back(n.os_index);
  return CpuSet(ids).to_string();
}

/// The device as reasons and notes name it: "eth0", "gpu1 (0000:af:00.0)".
std::string label(const Near& near) {
  if (near.pci && starts_with(near.device, "gpu")) return near.device + " (" + *near.pci + ")";
  return near.device;
}

}  // namespace

Status plan_numa(PlanBuilder& b) {
  const Inventory& inv = b.inventory;
  // Later binds of the same unit or cgroup win, as later profile files do.
  std::map<std::string, std::pair<Change, bool>> planned;
  std::vector<std::string> order;
  for (const NumaBind& bind : b.profile.binds) {
    if (bind.unit.has_value() == bind.cgroup.has_value())
      return error_at(bind.loc, "numa.bind needs exactly one of unit or cgroup");
    auto knob = bind.unit ? KnobId::numa_unit(*bind.unit) : KnobId::numa_cgroup(*bind.cgroup);
    if (!knob.ok())
      return error_at(bind.loc, (bind.unit ? "unit '" + *bind.unit : "cgroup '" + *bind.cgroup) +
                                    "': " + knob.error().what);
    std::string id = knob->str();
    std::string subject = bind.unit ? *bind.unit : "cgroup " + knob->name;

    std::optional<int> node_id;
    std::string why;
    if (bind.node) {
      node_id = static_cast<int>(*bind.node);
      why = subject + ": profile binds it to NUMA node " + std::to_string(*bind.node);
    } else if (bind.near) {
      auto found = resolve_near(inv, *bind.near, NearErrors::short_reason);
      if (!found.ok())
        return error_at(bind.loc, "near = '" + *bind.near + "': " + found.error().what);
      if (!found->node) {
        b.note(label(*found), "no NUMA locality: binding " + subject + " near it skipped");
        continue;
      }
      node_id = static_cast<int>(*found->node);
      why = subject + " near " + label(*found) +
            (found->only_node ? ", which has no NUMA locality; the machine's only NUMA node is "
                              : ", which is on NUMA node ") +
            std::to_string(*node_id);
    } else {
      return error_at(bind.loc, "numa.bind needs near or node");
    }
    const NumaNode* node = *node_id >= 0 ? inv.find_node(static_cast<unsigned>(*node_id)) : nullptr;
    if (!node)
      return error_at(bind.loc, "NUMA node " + std::to_string(*node_id) +
                                    " does not exist on this machine (it has nodes " +
                                    node_list(inv) + ")");
    if (node->cpus.empty())
      return error_at(bind.loc, "NUMA node " + std::to_string(*node_id) +
                                    " has no CPUs (memory only): nothing to bind " + subject +
                                    " to");

    std::string loc = short_loc(bind.loc);
    Change change{id, bind.group.empty() ? "numa" : bind.group, std::nullopt,
                  "cpus=" + node->cpus.to_string() + ",mems=" + std::to_string(node->os_index),
                  loc.empty() ? why : why + " (" + loc + ")"};
    bool done = false;
    if (b.current.readable()) {
      CurrentValue cur = b.current.get(*knob);
      if (cur.state == CurrentValue::State::missing) return error_at(bind.loc, cur.why);
      if (cur.state == CurrentValue::State::known) {
        change.current = cur.value;
        done = cur.value == change.desired;
      } else {
        change.reason += "; current value unreadable: " + cur.why;
      }
    }
    if (planned.contains(id)) b.note(subject, "bound more than once; the last binding is used");
    else order.push_back(id);
    planned.insert_or_assign(id, std::make_pair(std::move(change), done));
  }
  for (const std::string& id : order) {
    auto& [change, done] = planned.at(id);
    b.add(std::move(change), done);
  }
  return Ok{};
}

}  // namespace tuner::planner_detail
