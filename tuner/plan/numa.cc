// [[numa.bind]]: pin a systemd unit or a cgroup to the NUMA node nearest a device (or
// a node given by number). Values are "cpus=<cpulist>,mems=<nodelist>"; a unit without
// tuner's drop-in reads as "none".
#include <algorithm>
#include <map>

#include "base/strings.h"
#include "tuner/plan/builder.h"

namespace tuner::planner_detail {
namespace {

bool valid_name_char(char c, std::string_view extra) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         extra.find(c) != std::string_view::npos;
}

/// systemd unit names: [A-Za-z0-9:_.@-\\], never a path.
bool valid_unit(std::string_view unit) {
  if (unit.empty() || unit == "." || unit == ".." || unit.size() > 255) return false;
  return std::all_of(unit.begin(), unit.end(), [](char c) { return valid_name_char(c, ":_.@-\\"); });
}

/// "/sys/fs/cgroup/a/b", "/a/b" or "a/b" -> "a/b"; nullopt for anything that could
/// leave the cgroup tree.
std::optional<std::string> cgroup_relpath(std::string_view path) {
  if (starts_with(path, "/sys/fs/cgroup/")) path.remove_prefix(15);
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  if (path.empty()) return std::nullopt;
  for (std::string_view seg : split(path, '/')) {
    if (seg.empty() || seg == "." || seg == "..") return std::nullopt;
    if (!std::all_of(seg.begin(), seg.end(), [](char c) { return valid_name_char(c, ":_.@-\\"); }))
      return std::nullopt;
  }
  return std::string(path);
}

std::string node_list(const Inventory& inv) {
  std::vector<unsigned> ids;
  for (const NumaNode& n : inv.topology.numa_nodes) ids.push_back(n.os_index);
  return CpuSet(ids).to_string();
}

struct Located {
  std::optional<int> node;  // nullopt: the device has no locality
  std::string what;         // "mlx5_0", "GPU 0000:3b:00.0"
};

/// Finds near among netdevs, PCI addresses, PCI OS devices ("mlx5_0") and "gpuN".
Result<Located> locate(const Inventory& inv, const std::string& near, const SourceLoc& loc) {
  if (const Nic* nic = inv.find_nic(near)) return Located{nic->numa_node, near};
  if (starts_with(near, "gpu") && near.size() > 3) {
    if (auto n = parse_u64(std::string_view(near).substr(3))) {
      auto gpus = inv.gpus();
      if (*n >= gpus.size())
        return error_at(loc, "near = '" + near + "': this machine has " + std::to_string(gpus.size()) +
                                 " GPU" + (gpus.size() == 1 ? "" : "s"));
      return Located{gpus[*n]->numa_node, near + " (" + gpus[*n]->address + ")"};
    }
  }
  for (const PciDevice& d : inv.topology.pci) {
    if (d.address == near || d.address == "0000:" + near) return Located{d.numa_node, near};
    if (std::find(d.os_devices.begin(), d.os_devices.end(), near) != d.os_devices.end())
      return Located{d.numa_node, near};
  }
  return error_at(loc, "near = '" + near + "': no network interface, PCI device or GPU of that "
                       "name on this machine");
}

}  // namespace

std::string parse_numa_dropin(std::string_view text) {
  std::optional<std::string> cpus, mems;
  for (std::string_view line : split(text, '\n')) {
    line = trim(line);
    auto eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view key = trim(line.substr(0, eq));
    std::string value(trim(line.substr(eq + 1)));
    std::replace(value.begin(), value.end(), ' ', ',');  // systemd also takes "0 1 2"
    auto set = CpuSet::parse(value);
    std::string canon = set.ok() ? set->to_string() : value;
    if (key == "CPUAffinity") cpus = canon;
    else if (key == "NUMAMask") mems = canon;
  }
  if (!cpus && !mems) return "none";
  return "cpus=" + cpus.value_or("") + ",mems=" + mems.value_or("");
}

Result<std::string> canonical_binding(std::string_view cpus, std::string_view mems) {
  auto c = CpuSet::parse(cpus);
  if (!c.ok()) return Error::invalid("cpuset.cpus: " + c.error().what, "");
  auto m = CpuSet::parse(mems);
  if (!m.ok()) return Error::invalid("cpuset.mems: " + m.error().what, "");
  return "cpus=" + c->to_string() + ",mems=" + m->to_string();
}

Status plan_numa(PlanBuilder& b) {
  const Inventory& inv = b.inventory;
  // Later binds of the same unit or cgroup win, as later profile files do.
  std::map<std::string, std::pair<Change, bool>> planned;
  std::vector<std::string> order;
  for (const NumaBind& bind : b.profile.binds) {
    std::string id, subject;
    if (bind.unit.has_value() == bind.cgroup.has_value())
      return error_at(bind.loc, "numa.bind needs exactly one of unit or cgroup");
    if (bind.unit) {
      if (!valid_unit(*bind.unit))
        return error_at(bind.loc, "unit '" + *bind.unit + "' is not a valid systemd unit name");
      id = "numa:unit:" + *bind.unit;
      subject = *bind.unit;
    } else {
      auto rel = cgroup_relpath(*bind.cgroup);
      if (!rel)
        return error_at(bind.loc, "cgroup '" + *bind.cgroup +
                                      "' is not a path below /sys/fs/cgroup (no '..', no empty parts)");
      id = "numa:cgroup:/sys/fs/cgroup/" + *rel;
      subject = "cgroup " + *rel;
    }

    std::optional<int> node_id;
    std::string why;
    if (bind.node) {
      node_id = static_cast<int>(*bind.node);
      why = subject + ": profile binds it to NUMA node " + std::to_string(*bind.node);
    } else if (bind.near) {
      auto found = locate(inv, *bind.near, bind.loc);
      if (!found.ok()) return found.error();
      if (!found->node) {
        b.note(found->what, "no NUMA locality: binding " + subject + " near it skipped");
        continue;
      }
      node_id = found->node;
      why = subject + " near " + found->what + ", which is on NUMA node " + std::to_string(*node_id);
    } else {
      return error_at(bind.loc, "numa.bind needs near or node");
    }
    const NumaNode* node = *node_id >= 0 ? inv.find_node(static_cast<unsigned>(*node_id)) : nullptr;
    if (!node)
      return error_at(bind.loc, "NUMA node " + std::to_string(*node_id) +
                                    " does not exist on this machine (it has nodes " + node_list(inv) + ")");
    if (node->cpus.empty())
      return error_at(bind.loc, "NUMA node " + std::to_string(*node_id) +
                                    " has no CPUs (memory only): nothing to bind " + subject + " to");

    std::string loc = short_loc(bind.loc);
    Change change{id, bind.group.empty() ? "numa" : bind.group, std::nullopt,
                  "cpus=" + node->cpus.to_string() + ",mems=" + std::to_string(node->os_index),
                  loc.empty() ? why : why + " (" + loc + ")"};
    bool done = false;
    if (b.current.readable()) {
      CurrentValue cur = b.current.get(id);
      if (cur.state == CurrentValue::State::missing) return error_at(bind.loc, cur.why);
      if (cur.state == CurrentValue::State::known) {
        change.current = cur.value;
        done = cur.value == change.desired;
      } else {
        change.reason += "; current value unreadable: " + cur.why;
      }
    }
    if (planned.count(id)) b.note(subject, "bound more than once; the last binding is used");
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
