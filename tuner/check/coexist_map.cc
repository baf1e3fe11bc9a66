// tuned options and NetworkManager properties as tuner knob ids and values. tuned 2.20's
// plugins (tuned/plugins/plugin_*.py): [sysctl] keys, [vm] transparent_hugepages and
// transparent_hugepage.defrag (and dirty_* since 2.21), [cpu] governor,
// energy_performance_preference and pm_qos_resume_latency_us, [net] ring, channels,
// coalesce (ethtool's "rx 4096 tx 4096" argument form) and mtu, [sysfs] THP paths.
// NetworkManager (nm-settings-nmcli(5)): ethtool.ring-*, channels-*, coalesce-*,
// ethernet.mtu, speed, duplex, auto-negotiate. Others (force_latency, energy_perf_bias,
// min_perf_pct, [disk], [scheduler]) set what no tuner knob sets.
#include <algorithm>
#include <cctype>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "base/strings.h"
#include "tuner/check/coexist.h"
#include "tuner/knobs/knob_id.h"

namespace tuner {
namespace {

// ethtool argument pairs ("rx 4096 tx 4096", "adaptive-rx on rx-usecs 50") as tuner's
// "rx=4096,tx=4096"; nullopt when the words do not pair up.
std::optional<std::string> ethtool_pairs(std::string_view text) {
  auto words = split_ws(text);
  if (words.empty() || words.size() % 2 != 0) return std::nullopt;
  std::string out;
  for (std::size_t i = 0; i < words.size(); i += 2)
    out += fmt::format("{}{}={}", out.empty() ? "" : ",", words[i], words[i + 1]);
  return out;
}

// The CPUs a cpu:policyN:* id governs, as tuned names devices ("cpu3").
std::vector<std::string> policy_cpus(const Inventory& inv, unsigned policy) {
  std::vector<std::string> out;
  if (inv.cpufreq)
    for (const CpufreqPolicy& p : *inv.cpufreq)
      if (p.id == policy)
        for (unsigned cpu : p.cpus.cpus()) out.push_back(fmt::format("cpu{}", cpu));
  if (out.empty()) out.push_back(fmt::format("cpu{}", policy));
  return out;
}

struct Wanted {
  std::string type;
  std::vector<std::string> keys;     // any of them, the last one set wins
  std::vector<std::string> devices;  // one must match the unit's devices; empty: any
};

std::optional<Wanted> tuned_wanted(const KnobId& id, const Inventory& inv) {
  switch (id.kind) {
    case KnobKind::sysctl:
      if (id.name.starts_with("vm.dirty_"))  // [vm] dirty_* since tuned 2.21
        return Wanted{"sysctl", {id.name, id.name.substr(3)}, {}};
      return Wanted{"sysctl", {id.name}, {}};
    case KnobKind::mm_thp:
      return Wanted{"vm", {"transparent_hugepage", "transparent_hugepages"}, {}};
    case KnobKind::mm_thp_defrag: return Wanted{"vm", {"transparent_hugepage.defrag"}, {}};
    case KnobKind::cpu_governor: return Wanted{"cpu", {"governor"}, policy_cpus(inv, id.number)};
    case KnobKind::cpu_epp:
      return Wanted{"cpu", {"energy_performance_preference"}, policy_cpus(inv, id.number)};
    case KnobKind::cpu_resume_latency:
      return Wanted{"cpu", {"pm_qos_resume_latency_us"}, {fmt::format("cpu{}", id.number)}};
    case KnobKind::nic_rings: return Wanted{"net", {"ring"}, {id.name}};
    case KnobKind::nic_channels: return Wanted{"net", {"channels"}, {id.name}};
    case KnobKind::nic_coalesce: return Wanted{"net", {"coalesce"}, {id.name}};
    case KnobKind::nic_mtu: return Wanted{"net", {"mtu"}, {id.name}};
    default: return std::nullopt;
  }
}

std::optional<std::string> thp_sysfs_key(KnobKind kind) {
  if (kind == KnobKind::mm_thp) return "/sys/kernel/mm/transparent_hugepage/enabled";
  if (kind == KnobKind::mm_thp_defrag) return "/sys/kernel/mm/transparent_hugepage/defrag";
  return std::nullopt;
}

ForeignValue foreign(const TunedUnit& u, const TunedOption& o, KnobKind kind) {
  ForeignValue f{o.value, u.name, o.key, o.where, tuned_computed(o.value), 0};
  std::string_view v = trim(f.value);
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
  if (!f.computed && (kind == KnobKind::sysctl || u.type == "sysfs") && !v.empty() &&
      (v.front() == '>' || v.front() == '<')) {
    f.modifier = v.front();
    v = trim(v.substr(1));
  }
  std::string value(v);
  if (!f.computed && (kind == KnobKind::nic_rings || kind == KnobKind::nic_channels ||
                      kind == KnobKind::nic_coalesce))
    if (auto pairs = ethtool_pairs(value)) value = *pairs;
  f.value = value;
  return f;
}

}  // namespace

std::optional<ForeignValue> tuned_value_for(const TunedProfile& profile, const std::string& knob_id,
                                            const Inventory& inv) {
  auto id = parse_knob_id(knob_id);
  if (!id.ok()) return std::nullopt;
  auto wanted = tuned_wanted(*id, inv);
  auto sysfs_key = thp_sysfs_key(id->kind);
  std::optional<ForeignValue> found;
  for (const TunedUnit& u : profile.units) {           // a later unit of the same plugin runs later
    if (!u.enabled || !u.condition.empty()) continue;  // conditions: not evaluated
    bool devices_ok = !wanted || wanted->devices.empty() ||
                      std::ranges::any_of(wanted->devices, [&](const std::string& d) {
                        return tuned_devices_match(u.devices, d);
                      });
    for (const TunedOption& o : u.options) {
      bool hit = false;
      if (wanted && u.type == wanted->type && devices_ok) {
        std::string key = o.key;
        if (u.type == "sysctl") std::ranges::replace(key, '/', '.');
        hit = std::ranges::find(wanted->keys, key) != wanted->keys.end();
      }
      if (sysfs_key && u.type == "sysfs" && o.key == *sysfs_key) hit = true;
      if (hit) found = foreign(u, o, id->kind);
    }
  }
  return found;
}

std::optional<ForeignValue> nm_value_for(const NmConnection& c, const std::string& knob_id,
                                         const Inventory& inv) {
  auto id = parse_knob_id(knob_id);
  if (!id.ok()) return std::nullopt;
  if (!c.interface_name.empty()) {
    if (c.interface_name != id->name) return std::nullopt;
  } else {
    auto nic = std::ranges::find(inv.nics, id->name, &Nic::name);
    if (c.mac.empty() || nic == inv.nics.end() || !nic->mac) return std::nullopt;
    std::string mac = *nic->mac;
    std::ranges::transform(mac, mac.begin(), [](unsigned char ch) { return std::tolower(ch); });
    if (mac != c.mac) return std::nullopt;
  }
  // Each property maps to one key of tuner's value.
  std::vector<std::pair<std::string, std::string>> keys;
  auto prefixed = [&](std::string_view prefix, std::initializer_list<const char*> names) {
    for (const char* n : names) keys.emplace_back(std::string(prefix) + n, n);
  };
  switch (id->kind) {
    case KnobKind::nic_rings: prefixed("ethtool.ring-", {"rx", "tx"}); break;
    case KnobKind::nic_channels:
      prefixed("ethtool.channels-", {"rx", "tx", "other", "combined"});
      break;
    case KnobKind::nic_coalesce:
      prefixed("ethtool.coalesce-",
               {"rx-usecs", "tx-usecs", "rx-frames", "tx-frames", "adaptive-rx", "adaptive-tx"});
      break;
    case KnobKind::nic_mtu: keys.emplace_back("ethernet.mtu", ""); break;
    case KnobKind::nic_link:
      keys = {{"ethernet.auto-negotiate", "autoneg"},
              {"ethernet.speed", "speed"},
              {"ethernet.duplex", "duplex"}};
      break;
    default: return std::nullopt;
  }
  ForeignValue f;
  std::vector<std::string> parts, names;
  for (const auto& [property, key] : keys) {
    auto p = std::ranges::find(c.properties, property, &NmConnection::Property::key);
    if (p == c.properties.end()) continue;
    std::string value = p->value;
    if (key == "autoneg" || key.starts_with("adaptive"))
      value = value == "true" || value == "1" || value == "yes" ? "on" : "off";
    if (id->kind == KnobKind::nic_mtu && value == "0") continue;  // 0: NetworkManager leaves it
    if (id->kind == KnobKind::nic_link && key == "speed" && value == "0") continue;
    parts.push_back(key.empty() ? value : key + "=" + value);
    names.push_back(property);
    if (f.where.empty()) f.where = fmt::format("{}:{}", c.file, p->line);
  }
  if (parts.empty()) return std::nullopt;
  // auto-negotiate=false with neither speed nor duplex: NetworkManager leaves the link.
  if (id->kind == KnobKind::nic_link && parts.size() == 1 && parts[0] == "autoneg=off")
    return std::nullopt;
  f.value = fmt::format("{}", fmt::join(parts, ","));
  f.key = fmt::format("{}", fmt::join(names, ", "));
  return f;
}

bool values_conflict(const std::string& tuner_value, const ForeignValue& other) {
  if (other.computed) return true;  // cannot be shown to agree
  std::string theirs = other.value;
  if (auto bar = theirs.find('|'); bar != std::string::npos)
    theirs.resize(bar);  // tuned: the first available
  if (other.modifier) {
    auto t = parse_i64(trim(tuner_value)), o = parse_i64(trim(theirs));
    if (t && o) return other.modifier == '>' ? *o > *t : *o < *t;
  }
  auto as_map = [](std::string_view v) {
    std::map<std::string, std::string> m;
    for (std::string_view part : split(v, ',')) {
      auto eq = part.find('=');
      if (eq == std::string_view::npos) return std::map<std::string, std::string>{};
      std::string value(trim(part.substr(eq + 1)));
      if (value == "true" || value == "yes") value = "on";
      if (value == "false" || value == "no") value = "off";
      m[std::string(trim(part.substr(0, eq)))] = value;
    }
    return m;
  };
  auto mine = as_map(tuner_value), other_map = as_map(theirs);
  if (!mine.empty() && !other_map.empty()) {
    for (const auto& [key, value] : mine)
      if (auto it = other_map.find(key); it != other_map.end() && it->second != value) return true;
    return false;
  }
  return normalize_ws(tuner_value) != normalize_ws(theirs);
}

}  // namespace tuner
