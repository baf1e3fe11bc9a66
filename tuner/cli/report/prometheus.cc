#include "tuner/cli/report/prometheus.h"

#include <cmath>
#include <optional>
#include <vector>

#include <fmt/core.h>

#include "base/strings.h"
#include "tuner/verify/outcome.h"

namespace tuner {

namespace {

// The text format is UTF-8 with three escapes; a byte that is not UTF-8 (an interface
// name, a DMI string) would make node_exporter drop the whole file.
std::string escape(const std::string& raw) {
  std::string v = valid_utf8(raw);
  std::string out;
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

std::string or_empty(const std::optional<std::string>& v) { return v.value_or(""); }

// Walks every GroupDecision, for the one-series-per-state form; the names come from
// group_decision_name. No default: a decision added to the enum fails the build here
// (-Wswitch under -Werror) until it is given its place, so no state goes missing.
std::optional<GroupDecision> next_decision(GroupDecision d) {
  switch (d) {
    case GroupDecision::applied: return GroupDecision::kept;
    case GroupDecision::kept: return GroupDecision::rolled_back;
    case GroupDecision::rolled_back: return std::nullopt;
  }
  return std::nullopt;
}

std::vector<GroupDecision> all_decisions() {
  std::vector<GroupDecision> all;
  for (std::optional<GroupDecision> d = GroupDecision::applied; d; d = next_decision(*d))
    all.push_back(*d);
  return all;
}

}  // namespace

void PromText::metric(const std::string& name, const std::string& help, const char* type) {
  name_ = name;
  text_ += "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

void PromText::sample(const Labels& labels, double value) {
  text_ += name_;
  if (!labels.empty()) {
    text_ += "{";
    bool first = true;
    for (const auto& [k, v] : labels) {
      text_ += (first ? "" : ",") + k + "=\"" + escape(v) + "\"";
      first = false;
    }
    text_ += "}";
  }
  text_ += " " + number(value) + "\n";
}

std::string prometheus_probe(const Inventory& inv, double now) {
  PromText p;
  const Host& h = inv.host;
  p.metric("tuner_node_info", "Facts of this node, in labels (value 1).");
  p.sample({{"hostname", or_empty(h.hostname)},
            {"kernel", or_empty(h.kernel)},
            {"cpu_model", or_empty(h.cpu_model)},
            {"microcode", or_empty(h.microcode)},
            {"nvidia_driver", or_empty(h.nvidia_driver)},
            {"bios_vendor", or_empty(h.platform.bios_vendor)},
            {"bios_version", or_empty(h.platform.bios_version)},
            {"bios_date", or_empty(h.platform.bios_date)},
            {"system_vendor", or_empty(h.platform.system_vendor)},
            {"system_product", or_empty(h.platform.system_product)},
            {"board_name", or_empty(h.platform.board_name)}},
           1);
  p.metric("tuner_nic_info", "Each physical NIC's driver and firmware, in labels (value 1).");
  for (const Nic& n : inv.nics)
    if (!n.is_virtual)
      p.sample({{"device", n.name},
                {"driver", or_empty(n.driver)},
                {"driver_version", or_empty(n.driver_version)},
                {"firmware_version", or_empty(n.firmware_version)},
                {"pci", or_empty(n.pci)}},
               1);
  p.metric("tuner_nic_link_speed_bits_per_second", "Each NIC's negotiated link speed.");
  for (const Nic& n : inv.nics)
    if (n.link.speed_mbps) p.sample({{"device", n.name}}, *n.link.speed_mbps * 1e6);
  auto pcie = [&](const char* name, const char* help, auto get) {
    p.metric(name, help);
    for (const PciDevice& d : inv.topology.pci)
      if (auto v = get(d.link)) p.sample({{"address", d.address}, {"kind", d.kind}}, *v);
  };
  pcie("tuner_pcie_link_speed_transfers_per_second", "Each PCIe device's current link speed.",
       [](const PciDevice::Link& l) -> std::optional<double> {
         return l.speed_gts ? std::optional<double>(*l.speed_gts * 1e9) : std::nullopt;
       });
  pcie("tuner_pcie_link_max_speed_transfers_per_second", "Each PCIe device's maximum link speed.",
       [](const PciDevice::Link& l) -> std::optional<double> {
         return l.max_speed_gts ? std::optional<double>(*l.max_speed_gts * 1e9) : std::nullopt;
       });
  pcie("tuner_pcie_link_width_lanes", "Each PCIe device's current link width.",
       [](const PciDevice::Link& l) -> std::optional<double> {
         return l.width ? std::optional<double>(*l.width) : std::nullopt;
       });
  pcie("tuner_pcie_link_max_width_lanes", "Each PCIe device's maximum link width.",
       [](const PciDevice::Link& l) -> std::optional<double> {
         return l.max_width ? std::optional<double>(*l.max_width) : std::nullopt;
       });
  p.metric("tuner_probe_errors", "What the probe could not read (see tuner probe).");
  p.sample({}, static_cast<double>(inv.errors.size()));
  p.metric("tuner_probe_timestamp_seconds", "When this probe ran (Unix time).");
  p.sample({}, now);
  return p.text();
}

std::string prometheus_run(const RunReport& r, double now) {
  PromText p;
  std::string profiles;
  for (const std::string& s : r.profiles) profiles += (profiles.empty() ? "" : ",") + s;
  p.metric("tuner_run_info", "The last apply: its run id and profiles, in labels (value 1).");
  p.sample({{"run_id", r.run_id}, {"profiles", profiles}}, 1);
  p.metric("tuner_run_timestamp_seconds", "When the last apply finished (Unix time).");
  p.sample({}, now);
  p.metric("tuner_run_changed", "1 when the last apply changed the machine, else 0.");
  p.sample({}, r.changed ? 1 : 0);
  p.metric("tuner_run_errors", "Errors the last apply reported.");
  p.sample({}, static_cast<double>(r.errors.size()));
  std::string states;
  for (GroupDecision d : all_decisions())
    states += (states.empty() ? "" : ", ") + std::string(group_decision_name(d));
  p.metric("tuner_group_decision", "Each group's decision in the last apply: a series per state (" +
                                       states + "), 1 for the group's decision, else 0.");
  for (const GroupReport& g : r.groups)
    for (GroupDecision d : all_decisions())
      p.sample({{"group", g.name}, {"state", group_decision_name(d)}}, d == g.decision ? 1 : 0);
  p.metric("tuner_group_changes", "Knob changes in each group of the last apply.");
  for (const GroupReport& g : r.groups)
    p.sample({{"group", g.name}}, static_cast<double>(g.changes.size()));
  p.metric("tuner_group_effect_ratio",
           "Each verified group's measured effect (relative; positive = better).");
  for (const GroupReport& g : r.groups) {
    if (g.stats.empty()) continue;  // applied without verification
    auto o = verify::outcome_from_json(g.stats);
    if (!o.ok() || !o->measured || !std::isfinite(o->measured->stats.effect)) continue;
    p.sample({{"group", g.name}, {"bench", o->measured->bench}}, o->measured->stats.effect);
  }
  return p.text();
}

std::string prometheus_status(const std::vector<KeptReading>& readings, bool unfinished,
                              double now) {
  PromText p;
  std::size_t drifted = 0;
  for (const KeptReading& r : readings) drifted += r.drifted();
  p.metric("tuner_kept_settings", "Settings tuner keeps on this node (state.json).");
  p.sample({}, static_cast<double>(readings.size()));
  p.metric("tuner_drifted_settings",
           "Kept settings whose live value differs or cannot be read (status exit 3).");
  p.sample({}, static_cast<double>(drifted));
  // Only the drifted ones: a node keeps hundreds of settings (an IRQ's affinity each),
  // and a series for each of them on every node would cost more than it tells.
  p.metric("tuner_setting_drifted",
           "Each kept setting that drifted (value 1; state: changed, gone or unreadable); "
           "absent while it holds.");
  for (const KeptReading& r : readings)
    if (r.drifted())
      p.sample({{"setting", r.knob}, {"group", r.group}, {"state", live_state_name(r.state())}}, 1);
  p.metric("tuner_unfinished_run", "1 while a run is unfinished (apply refuses until rollback).");
  p.sample({}, unfinished ? 1 : 0);
  p.metric("tuner_status_error", "1 when tuner status failed (the counts are then unknown).");
  p.sample({}, 0);
  p.metric("tuner_status_timestamp_seconds", "When status ran (Unix time).");
  p.sample({}, now);
  return p.text();
}

std::string prometheus_status_error(double now) {
  PromText p;
  p.metric("tuner_status_error", "1 when tuner status failed (the counts are then unknown).");
  p.sample({}, 1);
  p.metric("tuner_status_timestamp_seconds", "When status ran (Unix time).");
  p.sample({}, now);
  return p.text();
}

std::string prometheus_build_info(std::string_view version) {
  PromText p;
  p.metric("tuner_build_info", "The tuner that wrote this node's status (value 1).");
  p.sample({{"version", std::string(version)}}, 1);
  return p.text();
}

}  // namespace tuner
