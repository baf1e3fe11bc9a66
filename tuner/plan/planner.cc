#include "tuner/plan/planner.h"

#include <algorithm>
#include <cctype>

#include <fmt/core.h>

#include "base/strings.h"
#include "tuner/knobs/knob_kinds.h"
#include "tuner/plan/builder.h"
#include "tuner/profile/group_policy.h"
#include "tuner/profile/value_search.h"

namespace tuner {
namespace planner_detail {

void PlanBuilder::add(Change change, bool already_desired) {
  if (already_desired) {
    ++plan.unchanged;
    plan.unchanged_knobs.push_back(std::move(change.knob));
  } else {
    plan.changes.push_back(std::move(change));
  }
}

void PlanBuilder::note(const std::string& subject, std::string text) {
  for (auto& [t, subjects] : notes)
    if (t == text) {
      if (std::find(subjects.begin(), subjects.end(), subject) == subjects.end())
        subjects.push_back(subject);
      return;
    }
  notes.emplace_back(std::move(text), std::vector<std::string>{subject});
}

void PlanBuilder::flush_notes() {
  for (const auto& [text, subjects] : notes) {
    std::string who;
    for (const std::string& s : subjects)
      if (!s.empty()) who += (who.empty() ? "" : ", ") + s;
    plan.notes.push_back(who.empty() ? text : who + ": " + text);
  }
  notes.clear();
}

Error error_at(const SourceLoc& loc, std::string what) {
  return Error::invalid(std::move(what), loc.file.empty() ? std::string() : loc.str());
}

std::string short_loc(const SourceLoc& loc) {
  if (loc.file.empty()) return "";
  auto slash = loc.file.rfind('/');
  std::string name = slash == std::string::npos ? loc.file : loc.file.substr(slash + 1);
  return name + ":" + std::to_string(loc.line);
}

std::optional<int> compare_integers(std::string_view a, std::string_view b) {
  auto split_sign = [](std::string_view s, bool* neg) -> std::optional<std::string_view> {
    s = trim(s);
    *neg = !s.empty() && s[0] == '-';
    if (*neg || (!s.empty() && s[0] == '+')) s.remove_prefix(1);
    if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::nullopt;
    while (s.size() > 1 && s[0] == '0') s.remove_prefix(1);
    if (s == "0") *neg = false;
    return s;
  };
  bool na = false, nb = false;
  auto da = split_sign(a, &na), db = split_sign(b, &nb);
  if (!da || !db) return std::nullopt;
  if (na != nb) return na ? -1 : 1;
  int mag = da->size() != db->size() ? (da->size() < db->size() ? -1 : 1)
                                     : (*da < *db ? -1 : (*da == *db ? 0 : 1));
  return na ? -mag : mag;
}

bool natural_less(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t ie = i, je = j;
      while (ie < a.size() && digit(a[ie])) ++ie;
      while (je < b.size() && digit(b[je])) ++je;
      int c = *compare_integers(a.substr(i, ie - i), b.substr(j, je - j));
      if (c != 0) return c < 0;
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

int kind_rank(std::string_view id) {
  auto knob = parse_knob_id(id);
  return knob.ok() ? knob_kind_info(knob->kind).plan_rank : 10;
}

Result<bool> plan_table_knob(PlanBuilder& b, const KnobId& knob, const TableSetting& s,
                             const std::string& reason, std::string& why_missing) {
  std::string where = short_loc(s.loc);
  Change change{knob.str(), s.group, std::nullopt, s.value,
                where.empty() ? reason : reason + " (" + where + ")"};
  if (!b.current.readable()) {
    b.add(std::move(change), false);
    return true;
  }
  CurrentValue cur = b.current.get(knob);
  if (cur.state == CurrentValue::State::missing) {
    why_missing = cur.why;
    return false;
  }
  if (cur.state == CurrentValue::State::unknown) {
    change.reason += "; current value unreadable: " + cur.why;
    b.add(std::move(change), false);
    return true;
  }
  auto desired = b.current.canonical(knob, s.value);
  if (!desired.ok()) return error_at(s.loc, change.knob + ": " + desired.error().what);
  change.desired = *desired;
  change.current = cur.value;
  bool done = cur.value == change.desired;
  b.add(std::move(change), done);
  return true;
}

}  // namespace planner_detail

using namespace planner_detail;

namespace {

bool is_ipoib(const Nic& nic) { return nic.link_type == link_kind_arphrd(LinkKind::infiniband); }

/// Why a wildcard rule without link_type leaves an IPoIB port out; nullopt when every
/// port its glob matches here is IPoIB (the rule was written for them: `ib*`).
std::optional<std::string> ipoib_left_out(const std::string& glob, const std::vector<Nic>& nics) {
  std::string other;  // a port of another kind the glob matches
  for (const Nic& n : nics)
    if (!is_ipoib(n) && glob_match(glob, n.name) && (other.empty() || natural_less(n.name, other)))
      other = n.name;
  bool catch_all = glob.find_first_not_of('*') == std::string::npos;
  if (!catch_all && other.empty()) return std::nullopt;
  std::string why = catch_all ? "it matches every name"
                              : fmt::format("it also matches {}, not IPoIB", other);
  return fmt::format("an IPoIB port (InfiniBand): rule '{}' is for Ethernet ports ({}); "
                     "set link_type = \"infiniband\" or name the port to include it",
                     glob, why);
}

}  // namespace

std::optional<std::string> planner_detail::out_of_scope(const Nic& nic, const PortScope& scope,
                                                        const std::vector<Nic>& nics) {
  const std::string& glob = scope.glob;
  bool wildcard = glob.find_first_of("*?[") != std::string::npos;
  bool named = std::find(scope.ports.begin(), scope.ports.end(), nic.name) != scope.ports.end();
  if (!scope.ports.empty() && !named)
    return fmt::format("not among the ports rule '{}' names", glob);
  if (scope.link_type && nic.link_type != link_kind_arphrd(*scope.link_type))
    return fmt::format("{}: rule '{}' says link_type = \"{}\", skipped",
                       nic.link_type ? fmt::format("link type {}", *nic.link_type)
                                     : std::string("link type unknown"),
                       glob, link_kind_name(*scope.link_type));
  if (is_ipoib(nic) && wildcard && !named && !scope.link_type)
    if (auto why = ipoib_left_out(glob, nics)) return why;
  const auto& min_speed_mbps = scope.min_speed_mbps;
  if (scope.rdma == false && nic.rdma_device && !named)
    return fmt::format("an RDMA port ({}): rule '{}' says rdma = false, skipped", *nic.rdma_device,
                       glob);
  if (scope.default_route == false && nic.default_route == true && !named && nic.default_route_ovs)
    return fmt::format("holds the default route through Open vSwitch ({}; ports under ovs-system "
                       "cannot be told apart): rule '{}' says default_route = false, skipped; "
                       "name it in ports to include it",
                       *nic.default_route_ovs, glob);
  if (scope.default_route == false && nic.default_route == true && !named)
    return fmt::format("holds the default route (the management or front-end port): rule '{}' "
                       "says default_route = false, skipped; name it in ports to include it",
                       glob);
  if (scope.default_route == false && nic.ssh_session == true && !named)
    return fmt::format("an SSH session to this node arrives through it (from {}: the management "
                       "port): rule '{}' says default_route = false, skipped; name it in ports to "
                       "include it",
                       nic.ssh_session_peer.value_or("a peer"), glob);
  if (!min_speed_mbps) return std::nullopt;
  const auto& speed = nic.link.speed_mbps;
  // Up with no speed is a driver that reports none (virtio_net on a cloud GPU node,
  // veth): say so, not "down", which sends the operator to check a cable.
  if (!speed && nic.link.up == true)
    return fmt::format("link up, but its driver reports no speed (virtio, veth): rule '{}' "
                       "asks min_speed {} Mb/s, skipped",
                       glob, *min_speed_mbps);
  if (!speed)
    return fmt::format("link speed unknown (down, or not probed): rule '{}' asks min_speed {} "
                       "Mb/s, skipped",
                       glob, *min_speed_mbps);
  if (*speed < *min_speed_mbps)
    return fmt::format("{} Mb/s, below the min_speed {} Mb/s of rule '{}': skipped", *speed,
                       *min_speed_mbps, glob);
  return std::nullopt;
}

std::optional<std::string> planner_detail::unknown_route(const Nic& nic, const PortScope& scope) {
  if (scope.default_route != false || nic.default_route) return std::nullopt;
  if (std::find(scope.ports.begin(), scope.ports.end(), nic.name) != scope.ports.end())
    return std::nullopt;
  return "the routes are not known here (no proc/net/route): default_route = false cannot "
         "tell whether this is the management port, planned as a data port";
}

namespace {

/// The last rule of `rules` whose glob matches `name` (the one the planner uses).
template <typename Rule>
const Rule* rule_for(const std::vector<Rule>& rules, const std::string& name) {
  const Rule* found = nullptr;
  for (const Rule& r : rules)
    if (glob_match(r.glob, name)) found = &r;
  return found;
}

}  // namespace

void planner_detail::note_rules_without_ports(PlanBuilder& b) {
  const Profile& p = b.profile;
  if (p.irqs.empty() && p.nics.empty()) return;
  unsigned left_out = 0;
  for (const Nic& nic : b.inventory.nics) {
    if (nic.is_virtual) continue;
    const IrqRule* irq = rule_for(p.irqs, nic.name);
    const NicRule* rule = rule_for(p.nics, nic.name);
    if (!irq && !rule) continue;
    if ((irq && !out_of_scope(nic, *irq, b.inventory.nics)) ||
        (rule && !out_of_scope(nic, *rule, b.inventory.nics)))
      return;  // a port in scope
    ++left_out;
  }
  if (left_out == 0) return;
  b.note("", fmt::format("the profile's NIC rules apply to no port on this node: its {} "
                         "port{} {} left out (the notes above say why); a local profile "
                         "that includes it names the ports they are for in `ports`",
                         left_out, left_out == 1 ? "" : "s", left_out == 1 ? "is" : "are"));
}

CurrentValue CurrentValue::from(const Result<std::string>& read, const std::string& knob_id) {
  if (read.ok()) return {State::known, *read, ""};
  const Error& e = read.error();
  std::string why = e.where.empty() || e.where == knob_id ? e.what : e.message();
  if (starts_with(why, knob_id + ": ")) why = why.substr(knob_id.size() + 2);
  return {e.is(ErrorKind::missing) ? State::missing : State::unknown, "", why};
}

CurrentValue KnobCurrentValues::get(const KnobId& knob) const {
  std::string id = knob.str();
  auto k = make_knob(knob, ctx_);
  if (!k.ok()) return CurrentValue::from(k.error(), id);
  return CurrentValue::from((*k)->read(), id);
}

Result<std::string> KnobCurrentValues::canonical(const KnobId& knob,
                                                 const std::string& desired) const {
  auto k = make_knob(knob, ctx_);
  if (!k.ok()) return k.error();
  return (*k)->canonical(desired);
}

void order_changes(std::vector<Change>& changes) {
  std::stable_sort(changes.begin(), changes.end(), [](const Change& x, const Change& y) {
    if (x.group != y.group) return x.group < y.group;
    int kx = kind_rank(x.knob), ky = kind_rank(y.knob);
    if (kx != ky) return kx < ky;
    return natural_less(x.knob, y.knob);
  });
}

Result<Plan> planner_detail::plan_settings(const Profile& profile, const Inventory& inventory,
                                           const CurrentValues& current) {
  PlanBuilder b{profile, inventory, current, {}, {}, {}};
  b.plan.profiles = profile.chain;
  for (auto step : {plan_sysctls, plan_irqs, plan_nics, plan_numa, plan_cpu, plan_mm}) {
    Status s = step(b);
    if (!s.ok()) return s.error();
  }
  note_rules_without_ports(b);
  // IRQs named by number (no MSI index on this kernel: legacy INTx, or a kernel that
  // does not say): the number may belong to another device after a reboot (issue 41).
  std::vector<std::string> by_number;
  for (const Change& c : b.plan.changes)
    if (auto id = parse_knob_id(c.knob);
        id.ok() && id->kind == KnobKind::irq_affinity && !id->by_owner())
      by_number.push_back(c.knob);
  if (!by_number.empty())
    b.note("", fmt::format("{} IRQ{} ({}{}) ha{} no MSI index on this kernel, so {} named by "
                           "number, which can belong to another device after a reboot: "
                           "'tuner restore' does not re-apply {}",
                           by_number.size(), by_number.size() == 1 ? "" : "s", by_number.front(),
                           by_number.size() > 1 ? ", ..." : "", by_number.size() == 1 ? "s" : "ve",
                           by_number.size() == 1 ? "it is" : "they are",
                           by_number.size() == 1 ? "it" : "them"));
  b.flush_notes();
  order_changes(b.plan.changes);
  std::sort(b.plan.unchanged_knobs.begin(), b.plan.unchanged_knobs.end(), natural_less);
  for (const Change& c : b.plan.changes)
    if (b.plan.groups.empty() || b.plan.groups.back().name != c.group) {
      GroupPolicy g = group_policy(profile, c.group);
      b.plan.groups.push_back(
          {g.name, g.bench, g.keep_if_neutral, g.bisect, g.peer, group_decider(profile, c.group)});
    }
  return std::move(b.plan);
}

Result<Plan> make_plan_with(const Profile& written, const Inventory& inventory,
                            const CurrentValues& current) {
  // A C-state search asks only what this node's idle states can answer.
  std::vector<std::string> fitted;
  Profile profile = planner_detail::fit_idle_search(written, inventory, fitted);
  auto plan = planner_detail::plan_settings(profile, inventory, current);
  if (!plan.ok()) {
    // The plan's changes carry each search's first candidate: say so when it is the
    // searched setting that this machine cannot take.
    for (const SearchedSetting& s : searched_settings(profile))
      if (plan.error().where == s.loc.str())
        return Error::invalid(
            "candidate " + s.candidates.front() + " of " + s.setting + ": " + plan.error().what,
            plan.error().where);
    return plan;
  }
  plan->notes.insert(plan->notes.end(), fitted.begin(), fitted.end());
  if (Status s = planner_detail::plan_searches(profile, inventory, current, *plan); !s.ok())
    return s.error();
  // The changes carry each search's first candidate that differs from what the machine
  // has: the knobs a search writes must be in the plan for apply to journal them.
  Profile first = profile;
  bool moved = false;
  for (const PlanSearch& s : plan->searches) {
    if (!s.candidates.front().current) continue;
    for (std::size_t i = 1; i < s.candidates.size(); ++i)
      if (!s.candidates[i].current) {
        auto with = with_candidate(first, s.setting, i);
        if (!with.ok()) return with.error();
        first = std::move(with).value();
        moved = true;
        break;
      }
  }
  if (!moved) return plan;
  auto moved_plan = planner_detail::plan_settings(first, inventory, current);
  if (!moved_plan.ok()) return moved_plan;
  moved_plan->searches = std::move(plan->searches);
  moved_plan->notes = std::move(plan->notes);
  return moved_plan;
}

Result<Plan> make_plan(const Profile& profile, const Inventory& inventory, const Target& target) {
  RootCurrentValues current(target);
  return make_plan_with(profile, inventory, current);
}

}  // namespace tuner

namespace tuner {

std::chrono::seconds verify_worst_case(const Plan& plan) {
  std::chrono::seconds total{0};
  for (const PlanGroup& g : plan.groups) total += g.worst_case;
  return total;
}

}  // namespace tuner
