// NIC rules: link mode, MTU, channels, rings and interrupt coalescing. Current values come
// from the Inventory (the probe asks the same ethtool backend, netlink or the ioctl, the
// nic knobs write through; a live NIC that reports no link settings, channels, rings or
// coalescing gets a note for each, and the setting is left out); desired ones are fields the knob's canonical() completes and compares
// (tuner/knobs/nic_value.h).
//
// Values (the nic knob reads and writes the same text):
//   nic:IF:link      "autoneg=on|off,speed=N,duplex=full|half", fields in that order.
//                    The current value lists every field the NIC reports. The desired
//                    value always has autoneg (the rule's, else the current one, else
//                    on) plus the speed and duplex the rule asks. With autoneg on and no
//                    speed asked it is just "autoneg=on": negotiation picks the rest.
//                    With a speed but no duplex, duplex is the current one (else full);
//                    autoneg off without a speed keeps the current speed: a forced mode
//                    needs both. A field missing from the desired value is "don't care",
//                    so a change is a no-op when every desired field equals the current
//                    one. Speed compares with the negotiated speed the NIC reports: a
//                    link already running at the asked speed needs no change. With
//                    autoneg on, speed = "max" is plain "autoneg=on" (every supported
//                    mode advertised), never a restriction to the NIC's top speed.
//   nic:IF:mtu       the interface MTU in bytes, decimal. Planned on virtual NICs too
//                    (a veth or bond carries an MTU like a port). A value outside the
//                    device's range (rtnetlink's min/max MTU, in the inventory when
//                    the probe had netlink) is an error here; the knob checks it again.
//   nic:IF:channels  "rx=N,tx=N,other=N,combined=N", only the fields the rule sets;
//                    combined = "local-cores" is resolved to the physical cores of the
//                    NIC's NUMA node that may take IRQs, capped at the driver's maximum.
//   nic:IF:rings     "rx=N,tx=N", only the fields the rule sets; "max" is resolved to
//                    the driver's maximum.
//   nic:IF:coalesce  "rx-usecs=N,tx-usecs=N,rx-frames=N,tx-frames=N,adaptive-rx=on|off,
//                    adaptive-tx=on|off", only the fields the rule sets that the NIC
//                    reports: the kernel leaves out a field its driver cannot change,
//                    and the knob refuses one, so the plan leaves it out with a note.
//   nic:IF:rps:rx-N, nic:IF:xps:tx-N, nic:IF:rfs:rx-N  a rule's rps, xps and rfs (with
//                    the sysctl RFS needs): nic_queues.cc.
// When two rules match a NIC, the later one wins.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "base/strings.h"
#include "tuner/knobs/nic_value.h"
#include "tuner/plan/builder.h"
#include "tuner/plan/irq_placement.h"

namespace tuner::planner_detail {
namespace {

std::string with_loc(const std::string& text, const SourceLoc& loc) {
  std::string where = short_loc(loc);
  return where.empty() ? text : text + " (" + where + ")";
}

/// The knob id of a NIC setting; plan_nics has checked the name already.
std::string nic_knob(KnobKind kind, const Nic& nic) {
  auto id = KnobId::nic(kind, nic.name);
  return id.ok() ? id->str() : std::string();
}

using Fields = std::vector<std::pair<std::string, std::string>>;

std::string join_fields(const Fields& f) {
  std::string out;
  for (const auto& [k, v] : f) out += (out.empty() ? "" : ",") + k + "=" + v;
  return out;
}

/// No-op when every desired field has the same value in current.
bool fields_satisfied(const Fields& desired, const Fields& current) {
  return std::ranges::all_of(
      desired, [&](const auto& d) { return std::ranges::find(current, d) != current.end(); });
}

Status plan_link(PlanBuilder& b, const Nic& nic, const NicRule& rule, const std::string& group) {
  if (!rule.speed_max && !rule.speed_mbps && !rule.duplex && !rule.autoneg) return Ok{};
  if (nic.is_virtual) {
    b.note(nic.name, "virtual, link settings of nic rule '" + rule.glob + "' skipped");
    return Ok{};
  }
  const LinkInfo& link = nic.link;
  // Every ethtool backend that reads link settings says whether autoneg is on.
  if (!link.autoneg && b.current.live()) {
    b.note(nic.name, "does not report link settings (no ethtool link support): link settings of "
                     "nic rule '" +
                         rule.glob + "' skipped");
    return Ok{};
  }
  std::set<uint32_t> speeds;
  for (const std::string& name : link.supported_modes)
    if (auto m = parse_link_mode(name); m && (!rule.duplex || m->duplex == *rule.duplex))
      speeds.insert(m->speed_mbps);
  bool modes_known =
      std::any_of(link.supported_modes.begin(), link.supported_modes.end(),
                  [](const std::string& n) { return parse_link_mode(n).has_value(); });
  std::string duplex_text = rule.duplex ? std::string(" ") + duplex_name(*rule.duplex) + "-duplex"
                                        : "";

  std::optional<uint32_t> speed;
  std::string why;
  if (rule.speed_max) {
    if (speeds.empty()) {
      b.note(nic.name,
             "reports no supported" + duplex_text + " link modes: speed = \"max\" skipped");
    } else {
      speed = *speeds.rbegin();
      why = "fastest" + duplex_text + " mode it supports is " + std::to_string(*speed) + " Mb/s";
    }
  } else if (rule.speed_mbps) {
    speed = rule.speed_mbps;
    if (modes_known && !speeds.contains(*speed)) {
      std::string list;
      std::set<uint32_t> all;
      for (const std::string& n : link.supported_modes)
        if (auto m = parse_link_mode(n)) all.insert(m->speed_mbps);
      for (uint32_t s : (speeds.empty() ? all : speeds))
        list += (list.empty() ? "" : ", ") + std::to_string(s);
      return error_at(rule.loc,
                      nic.name + " has no " + std::to_string(*speed) + " Mb/s" + duplex_text +
                          " link mode (it supports " + list + " Mb/s" +
                          (speeds.empty() && rule.duplex
                               ? std::string(", none ") + duplex_name(*rule.duplex) + "-duplex"
                               : "") +
                          ")");
    }
    if (!modes_known)
      b.note(nic.name, "reports no link modes: speed " + std::to_string(*speed) +
                           " is not checked here (the nic knob checks it when applying)");
  }

  Fields current;
  if (link.autoneg) current.emplace_back("autoneg", *link.autoneg ? "on" : "off");
  if (link.speed_mbps) current.emplace_back("speed", std::to_string(*link.speed_mbps));
  if (link.duplex) current.emplace_back("duplex", duplex_name(*link.duplex));

  if (!rule.autoneg && !speed && !rule.duplex) return Ok{};  // only "max", and it was skipped
  Fields desired;
  bool autoneg = rule.autoneg.value_or(link.autoneg.value_or(true));
  if (!autoneg && !speed) {
    // A forced mode needs a speed: keep the current one.
    if (!link.speed_mbps)
      return error_at(rule.loc, nic.name + ": autoneg = false needs a speed (none is given and "
                                           "the current one is not known)");
    speed = link.speed_mbps;
  }
  // With autonegotiation, "max" is every supported mode advertised: the link then comes
  // up at the fastest speed both ends share. Advertising only the NIC's top speed
  // would take the link down wherever the partner cannot reach it.
  bool advertise_all = autoneg && rule.speed_max;
  if (advertise_all)
    why += "; autonegotiation advertises every mode and picks the fastest both ends share";
  desired.emplace_back("autoneg", autoneg ? "on" : "off");
  if (speed && !advertise_all) desired.emplace_back("speed", std::to_string(*speed));
  if (rule.duplex) desired.emplace_back("duplex", duplex_name(*rule.duplex));
  else if (speed && !advertise_all)
    desired.emplace_back("duplex", duplex_name(link.duplex.value_or(Duplex::full)));

  std::string reason = nic.name + ": profile asks " + join_fields(desired);
  if (!why.empty()) reason += "; " + why;
  b.add(Change{nic_knob(KnobKind::nic_link, nic), group,
               current.empty() ? std::nullopt : std::optional<std::string>(join_fields(current)),
               join_fields(desired), with_loc(reason, rule.loc)},
        fields_satisfied(desired, current));
  return Ok{};
}

Status plan_mtu(PlanBuilder& b, const Nic& nic, const NicRule& rule, const std::string& group) {
  if (!rule.mtu) return Ok{};
  if (nic.mtu_range && !nic.mtu_range->takes(*rule.mtu))
    return error_at(rule.loc, nic.name + ": mtu = " + std::to_string(*rule.mtu) +
                                  " is outside the MTUs the device takes (" +
                                  nic.mtu_range->text() + ")");
  std::string desired = std::to_string(*rule.mtu);
  std::optional<std::string> current;
  if (nic.mtu) current = std::to_string(*nic.mtu);
  std::string reason = with_loc(nic.name + ": profile asks mtu " + desired, rule.loc);
  b.add(Change{nic_knob(KnobKind::nic_mtu, nic), group, current, desired, reason},
        current == desired);
  return Ok{};
}

/// One channel or ring field: the value asked (resolving "max"), checked against max.
Status resolve_field(PlanBuilder& b, const Nic& nic, const NicRule& rule, const char* what,
                     const char* field, std::optional<uint32_t> asked, bool want_max,
                     std::optional<uint32_t> max, Fields& desired) {
  if (want_max) {
    if (!max) {
      b.note(nic.name,
             std::string(what) + " " + field + " = \"max\" skipped: the maximum is not known");
      return Ok{};
    }
    asked = max;
  }
  if (!asked) return Ok{};
  if (max && *asked > *max)
    return error_at(rule.loc, nic.name + ": " + what + " " + field + " = " +
                                  std::to_string(*asked) + " exceeds the maximum " +
                                  std::to_string(*max) + " the driver reports");
  desired.emplace_back(field, std::to_string(*asked));
  return Ok{};
}

void add_counts(PlanBuilder& b, const Nic& nic, const NicRule& rule, const std::string& group,
                const char* kind, const Fields& desired,
                const std::vector<std::pair<std::string, std::optional<uint32_t>>>& now) {
  if (desired.empty()) return;
  Fields current;
  bool known = true;
  for (const auto& [k, v] : desired) {
    for (const auto& [name, value] : now)
      if (name == k) {
        if (value) current.emplace_back(k, std::to_string(*value));
        else known = false;
      }
  }
  std::string reason =
      with_loc(nic.name + ": profile asks " + kind + " " + join_fields(desired), rule.loc);
  KnobKind knob = std::string_view(kind) == "rings" ? KnobKind::nic_rings : KnobKind::nic_channels;
  b.add(Change{nic_knob(knob, nic), group,
               known ? std::optional<std::string>(join_fields(current)) : std::nullopt,
               join_fields(desired), reason},
        known && current == desired);
}

/// combined = "local-cores": one queue per physical core of the NIC's socket that may
/// take IRQs (isolcpus/nohz_full left out, as IRQ placement leaves them out), and never
/// more queues than the NIC has now: it lowers only. The socket, not the NUMA node:
/// on AMD NPS2/NPS4 and Intel SNC a socket is split into nodes a hop apart on the same
/// die (SLIT 11-12 against 32 across sockets), and sizing by the node would leave a fast
/// NIC a half or a quarter of its socket. Without NUMA locality (or with every local CPU
/// isolated) the machine's cores count. Capped at the driver's maximum. Nullopt (with a
/// note) when it cannot be sized or would not lower.
std::optional<uint32_t> local_cores(PlanBuilder& b, const Nic& nic, const Channels& ch) {
  const Inventory& inv = b.inventory;
  const NumaNode* node = nic.numa_node ? inv.find_node(static_cast<unsigned>(*nic.numa_node))
                                       : nullptr;
  CpuSet allowed;
  std::string where;
  if (node) {
    CpuSet socket = socket_cpus(inv.topology, *node);
    allowed = irq_allowed_cpus(socket, inv.host);
    where = "NUMA node " + std::to_string(node->os_index);
    if (socket != node->cpus)
      for (const Core& c : inv.topology.core_list)
        if (c.numa_node == node->os_index)
          where = "socket " + std::to_string(c.package) + " (NUMA node " +
                  std::to_string(node->os_index) + "'s)";
  }
  if (allowed.empty()) {
    allowed = irq_allowed_cpus(inv.topology.all_pus, inv.host);
    where = node ? "the machine (every CPU of node " + std::to_string(node->os_index) +
                       "'s socket is isolated)"
                 : "the machine (no NUMA locality)";
  }
  auto cores = static_cast<uint32_t>(count_cores(inv.topology, allowed));
  if (cores == 0) {
    b.note(nic.name, "channels combined = \"local-cores\" skipped: no core may take its IRQs");
    return std::nullopt;
  }
  if (ch.combined_max && *ch.combined_max == 0) {
    b.note(nic.name, "channels combined = \"local-cores\" skipped: the driver has no combined "
                     "channels (separate rx/tx ones)");
    return std::nullopt;
  }
  std::string text = "channels combined = \"local-cores\": " + std::to_string(cores) +
                     " physical cores on " + where;
  if (ch.combined_max && cores > *ch.combined_max) {
    text += ", capped at the driver's maximum " + std::to_string(*ch.combined_max);
    cores = *ch.combined_max;
  }
  if (!ch.combined) {
    b.note(nic.name, text + "; skipped: its combined channel count now is unknown, and "
                            "local-cores only lowers it");
    return std::nullopt;
  }
  if (*ch.combined <= cores) {
    b.note(nic.name, text + "; it has " + std::to_string(*ch.combined) +
                         " already, and local-cores only lowers (give a count to raise)");
    return std::nullopt;
  }
  b.note(nic.name, text);
  return cores;
}

/// IRQ placement is planned for the queue IRQs there are now. Some drivers renumber or
/// free them when channels change (ice and i40e rebuild their queue vectors), so a plan
/// that changes both says to plan again after apply.
void note_irqs_before_channels(PlanBuilder& b, const Nic& nic) {
  std::set<std::string> irqs;
  for (unsigned number : nic.irqs) {
    const Irq* irq = b.inventory.find_irq(number);
    if (!irq) continue;
    if (auto id = irq_affinity_id(*irq); id.ok()) irqs.insert(id->str());
  }
  std::string channels = nic_knob(KnobKind::nic_channels, nic);
  bool changes_channels = false, places_irqs = false;
  for (const Change& c : b.plan.changes) {
    changes_channels |= c.knob == channels;
    places_irqs |= irqs.contains(c.knob);
  }
  if (changes_channels && places_irqs)
    b.note(nic.name, "its queue IRQs are placed as they are numbered now; a driver that "
                     "renumbers them when channels change (ice, i40e) needs a second plan "
                     "and apply after this one");
}

/// What a channel change does beyond the queues, per driver (its ethtool_ops
/// set_channels): i40e, ice and bnxt_en rebuild the port's queues and reset its link, so
/// traffic stops for seconds; bnxt_en also drops the port's user ntuple filters and RSS
/// contexts, which no rollback recreates (the expert review of issue 42). A driver not
/// listed (mlx5_core swaps its channels in place) has neither effect said.
struct ChannelEffects {
  std::string_view driver;
  bool resets_link;
  bool drops_filters;
};
constexpr ChannelEffects kChannelEffects[] = {
    {"i40e", true, false},
    {"ice", true, false},
    {"bnxt_en", true, true},
};

const ChannelEffects* channel_effects(const Nic& nic) {
  if (!nic.driver) return nullptr;
  for (const ChannelEffects& e : kChannelEffects)
    if (e.driver == *nic.driver) return &e;
  return nullptr;
}

/// After the channel change is added (the last change, when there is one): a driver
/// that drops filters keeps its channels unless the rule accepts that; one that resets
/// the link says so.
void check_channel_effects(PlanBuilder& b, const Nic& nic, const NicRule& rule) {
  const ChannelEffects* e = channel_effects(nic);
  std::string knob = nic_knob(KnobKind::nic_channels, nic);
  if (!e || b.plan.changes.empty() || b.plan.changes.back().knob != knob) return;
  if (e->drops_filters && !rule.accept_filter_loss) {
    b.plan.changes.pop_back();
    b.note(nic.name, fmt::format("channels left as they are: {} deletes the port's ntuple "
                                 "filters and RSS contexts when they change, and rollback "
                                 "cannot recreate them; accept_filter_loss = true in nic rule "
                                 "'{}' changes them anyway",
                                 e->driver, rule.glob));
    return;
  }
  if (e->resets_link)
    b.note(nic.name,
           fmt::format("changing channels resets the link on {} (seconds without traffic, on "
                       "this port's sessions too): apply from a console or another port",
                       e->driver));
}

Status plan_channels(PlanBuilder& b, const Nic& nic, const NicRule& rule,
                     const std::string& group) {
  if (!rule.combined && !rule.combined_local_cores && !rule.rx_channels && !rule.tx_channels)
    return Ok{};
  if (nic.is_virtual && !rule.combined && !rule.rx_channels && !rule.tx_channels) {
    b.note(nic.name, "virtual, channels combined = \"local-cores\" skipped");
    return Ok{};
  }
  if (!nic.channels && b.current.live()) {
    b.note(nic.name,
           "does not report channels (no ethtool channels support): channels of nic rule '" +
               rule.glob + "' skipped");
    return Ok{};
  }
  Channels ch = nic.channels.value_or(Channels{});
  std::optional<uint32_t> combined = rule.combined;
  if (rule.combined_local_cores) {
    combined = local_cores(b, nic, ch);
    if (!combined && !rule.rx_channels && !rule.tx_channels) return Ok{};
  }
  Fields desired;
  for (Status s :
       {resolve_field(b, nic, rule, "channels", "rx", rule.rx_channels, false, ch.rx_max, desired),
        resolve_field(b, nic, rule, "channels", "tx", rule.tx_channels, false, ch.tx_max, desired),
        resolve_field(b, nic, rule, "channels", "combined", combined, false, ch.combined_max,
                      desired)})
    if (!s.ok()) return s;
  add_counts(b, nic, rule, group, "channels", desired,
             {{"rx", ch.rx}, {"tx", ch.tx}, {"other", ch.other}, {"combined", ch.combined}});
  check_channel_effects(b, nic, rule);
  note_irqs_before_channels(b, nic);
  return Ok{};
}

Status plan_rings(PlanBuilder& b, const Nic& nic, const NicRule& rule, const std::string& group) {
  bool rx_max = rule.rx_ring_max || (rule.rx_ring && *rule.rx_ring == 0);
  bool tx_max = rule.tx_ring_max || (rule.tx_ring && *rule.tx_ring == 0);
  if (!rule.rx_ring && !rule.tx_ring && !rx_max && !tx_max) return Ok{};
  if (!nic.rings && b.current.live()) {
    b.note(nic.name, "does not report rings (no ethtool ring support): rings of nic rule '" +
                         rule.glob + "' skipped");
    return Ok{};
  }
  Rings r = nic.rings.value_or(Rings{});
  Fields desired;
  for (Status s : {resolve_field(b, nic, rule, "rings", "rx", rx_max ? std::nullopt : rule.rx_ring,
                                 rx_max, r.rx_max, desired),
                   resolve_field(b, nic, rule, "rings", "tx", tx_max ? std::nullopt : rule.tx_ring,
                                 tx_max, r.tx_max, desired)})
    if (!s.ok()) return s;
  add_counts(b, nic, rule, group, "rings", desired, {{"rx", r.rx}, {"tx", r.tx}});
  return Ok{};
}

Status plan_coalesce(PlanBuilder& b, const Nic& nic, const NicRule& rule,
                     const std::string& group) {
  if (!rule.coalesce) return Ok{};
  if (!nic.coalesce && b.current.live()) {
    b.note(nic.name, "does not report interrupt coalescing (no ethtool coalesce support): "
                     "coalesce of nic rule '" +
                         rule.glob + "' skipped");
    return Ok{};
  }
  Coalesce want, now;
  std::string unsupported;
  for (const CoalesceField& f : coalesce_fields()) {
    if (!coalesce_has(*rule.coalesce, f)) continue;
    if (nic.coalesce && !coalesce_has(*nic.coalesce, f)) {
      unsupported += (unsupported.empty() ? "" : ", ") + std::string(f.name);
      continue;
    }
    coalesce_copy(want, *rule.coalesce, f);
    if (nic.coalesce) coalesce_copy(now, *nic.coalesce, f);
  }
  if (!unsupported.empty())
    b.note(nic.name, "its driver does not support coalesce " + unsupported +
                         " (not in its ethtool coalesce settings): left out of nic rule '" +
                         rule.glob + "'");
  std::string desired = format_coalesce(want);
  if (desired == "none") return Ok{};
  std::optional<std::string> current;
  if (nic.coalesce) current = format_coalesce(now);
  std::string reason = with_loc(nic.name + ": profile asks coalesce " + desired, rule.loc);
  b.add(Change{nic_knob(KnobKind::nic_coalesce, nic), group, current, desired, reason},
        current == desired);
  return Ok{};
}

}  // namespace

Status plan_nics(PlanBuilder& b) {
  if (b.profile.nics.empty()) return Ok{};
  std::vector<const Nic*> nics;
  for (const Nic& nic : b.inventory.nics) nics.push_back(&nic);
  std::sort(nics.begin(), nics.end(),
            [](const Nic* x, const Nic* y) { return natural_less(x->name, y->name); });
  for (const Nic* nic : nics) {
    const NicRule* rule = nullptr;
    std::string globs;
    for (const NicRule& r : b.profile.nics) {
      if (!glob_match(r.glob, nic->name)) continue;
      globs += (rule ? ", '" : "'") + r.glob + "'";
      rule = &r;
    }
    if (!rule) continue;
    if (globs.find(", ") != std::string::npos)
      b.note(nic->name,
             "matches nic rules " + globs + "; the last one ('" + rule->glob + "') is used");
    if (Status name = validate_ifname(nic->name); !name.ok()) {
      b.note(nic->name,
             name.error().what + ": no knob can name it, nic rule '" + rule->glob + "' skipped");
      continue;
    }
    if (auto why = out_of_scope(*nic, *rule, b.inventory.nics)) {
      b.note(nic->name, *why);
      continue;
    }
    if (auto caveat = unknown_route(*nic, *rule)) b.note(nic->name, *caveat);
    std::string group = rule->group.empty() ? "nic" : rule->group;
    for (auto step :
         {plan_link, plan_mtu, plan_channels, plan_rings, plan_coalesce, plan_nic_queues}) {
      Status s = step(b, *nic, *rule, group);
      if (!s.ok()) return s;
    }
  }
  return plan_rfs_table(b);
}

}  // namespace tuner::planner_detail
