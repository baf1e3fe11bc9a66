#include "tuner/profile/match.h"

#include <dirent.h>
#include <strings.h>

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/strings.h"
#include "tuner/profile/values.h"

namespace tuner {

int match_specificity(const Match& m) {
  return m.numa_nodes.has_value() + m.cpu_vendor.has_value() + m.nic_driver.has_value() +
         m.gpu.has_value() + m.virtualized.has_value();
}

bool profile_matches(const Profile& profile, const Inventory& inv, std::string* why_not) {
  const Match& m = profile.match;
  auto no = [&](std::string why) {
    if (why_not) *why_not = std::move(why);
    return false;
  };
  // Without a topology, "no GPU" and "0 nodes" mean unknown, not absent.
  bool topology_failed = std::any_of(inv.errors.begin(), inv.errors.end(),
                                     [](const ProbeError& e) { return e.probe == "topology"; });
  if (m.numa_nodes) {
    auto c = parse_comparison(*m.numa_nodes);
    std::size_t n = inv.topology.numa_nodes.size();
    if (!c.ok()) return no(fmt::format("numa_nodes {}: {}", *m.numa_nodes, c.error().what));
    if (n == 0)
      return no(fmt::format("numa_nodes {}: the NUMA node count is unknown{}", c->str(),
                            topology_failed ? " (the topology probe failed)" : ""));
    if (!c->holds(static_cast<int64_t>(n)))
      return no(fmt::format("numa_nodes {}: this machine has {} NUMA node{}", c->str(), n,
                            n == 1 ? "" : "s"));
  }
  if (m.cpu_vendor) {
    if (!inv.host.cpu_vendor)
      return no(fmt::format("cpu_vendor {}: the CPU vendor is unknown", *m.cpu_vendor));
    if (::strcasecmp(inv.host.cpu_vendor->c_str(), m.cpu_vendor->c_str()) != 0)
      return no(fmt::format("cpu_vendor {}: the CPU is {}", *m.cpu_vendor, *inv.host.cpu_vendor));
  }
  if (m.nic_driver) {
    bool any = std::any_of(inv.nics.begin(), inv.nics.end(), [&](const Nic& n) {
      return n.driver && glob_match(*m.nic_driver, *n.driver);
    });
    if (!any) {
      std::vector<std::string> drivers;
      for (const Nic& n : inv.nics)
        if (n.driver && std::find(drivers.begin(), drivers.end(), *n.driver) == drivers.end())
          drivers.push_back(*n.driver);
      return no(fmt::format("nic_driver {}: no NIC uses such a driver ({})", *m.nic_driver,
                            drivers.empty()
                                ? "no NIC drivers known"
                                : fmt::format("drivers here: {}", fmt::join(drivers, ", "))));
    }
  }
  if (m.gpu) {
    std::size_t gpus = inv.gpus().size();
    if (topology_failed && gpus == 0)
      return no(fmt::format("gpu = {}: unknown, the topology probe failed", *m.gpu));
    if (*m.gpu && gpus == 0)
      return no(std::any_of(inv.topology.pci.begin(), inv.topology.pci.end(),
                            [](const PciDevice& d) { return d.kind == "display"; })
                    ? "gpu = true: no compute GPU found (only display controllers)"
                    : "gpu = true: no GPU found");
    if (!*m.gpu && gpus > 0)
      return no(fmt::format("gpu = false: {} GPU{} found", gpus, gpus == 1 ? "" : "s"));
  }
  if (m.virtualized) {
    if (!inv.host.virtualized)
      return no(fmt::format("virtualized = {}: whether this machine is virtual is unknown",
                            *m.virtualized));
    if (*inv.host.virtualized != *m.virtualized)
      return no(*m.virtualized
                    ? "virtualized = true: this is bare metal"
                    : fmt::format("virtualized = false: this is a virtual machine{}",
                                  inv.host.hypervisor ? " (" + *inv.host.hypervisor + ")" : ""));
  }
  if (why_not) why_not->clear();
  return true;
}

std::vector<FoundProfile> find_profiles(const std::vector<std::string>& search_path) {
  std::map<std::string, std::string> found;
  for (const std::string& dir : search_path) {
    DIR* d = ::opendir(dir.c_str());
    if (!d) continue;
    while (dirent* e = ::readdir(d)) {
      std::string f = e->d_name;
      if (f.size() <= 5 || !f.ends_with(".toml")) continue;
      std::string name = f.substr(0, f.size() - 5);
      if (!is_profile_name(name)) continue;  // cannot be asked for by name
      found.try_emplace(name, dir + "/" + f);
    }
    ::closedir(d);
  }
  std::vector<FoundProfile> out;
  out.reserve(found.size());
  for (auto& [name, file] : found) out.push_back(FoundProfile{name, file});
  return out;
}

std::string select_profile(const std::vector<std::pair<std::string, const Profile*>>& loaded,
                           const Inventory& inv) {
  std::string best, fallback;
  int best_score = 0;
  // loaded is walked in name order so that ties go to the first name.
  std::vector<std::pair<std::string, const Profile*>> sorted = loaded;
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [name, p] : sorted) {
    if (!p) continue;
    if (name == "balanced") fallback = name;
    int score = match_specificity(p->match);
    if (score > best_score && profile_matches(*p, inv, nullptr)) best = name, best_score = score;
  }
  return best.empty() ? fallback : best;
}

Result<std::string> best_profile(const std::vector<std::string>& search_path, const Inventory& inv,
                                 std::vector<Error>* broken) {
  std::vector<Profile> profiles;
  std::vector<std::string> names;
  for (const FoundProfile& f : find_profiles(search_path)) {
    auto p = load_profile(f.file, search_path);
    if (!p.ok()) {  // a broken file never wins; the caller says so
      if (broken) broken->push_back(p.error());
      continue;
    }
    profiles.push_back(std::move(p).value());
    names.push_back(f.name);
  }
  std::vector<std::pair<std::string, const Profile*>> loaded;
  for (std::size_t i = 0; i < profiles.size(); ++i) loaded.emplace_back(names[i], &profiles[i]);
  std::string name = select_profile(loaded, inv);
  if (name.empty())
    return Error::invalid(
        fmt::format(
            "no profile matches this machine and there is no 'balanced' profile "
            "to fall back on (searched: {})",
            search_path.empty() ? "nothing" : fmt::format("{}", fmt::join(search_path, ", "))),
        "");
  return name;
}

}  // namespace tuner
