// [cpu]: a governor and an energy preference (EPP) for every cpufreq policy, and a PM
// QoS resume latency for every CPU; `cpus` limits both to some CPUs and the policies
// covering them. One change per policy or CPU whose value differs; a resume latency only
// ever tightens a CPU's limit (a site's stricter one is kept, with a note) and, unless
// `cpus` names them, leaves isolated CPUs (isolcpus, nohz_full) alone. Which policies there
// are comes from the Inventory (probes/cpufreq.h); current values, and whether this
// machine offers a value, come from the knobs. What a machine lacks (no cpufreq driver
// in a VM, no EPP under acpi-cpufreq) is a note, not an error: a profile is written
// for many machines.
#include <map>

#include "tuner/knobs/cpu_latency.h"
#include "tuner/plan/builder.h"

namespace tuner::planner_detail {
namespace {

std::string cpus_label(const CpuSet& cpus) {
  return (cpus.size() == 1 ? "CPU " : "CPUs ") + cpus.to_string();
}

/// The policies or CPUs a knob does not exist for, and why: one note for all of them.
struct Missing {
  CpuSet ids;
  std::string why;
  void add(unsigned id, std::string reason) {
    ids.add(id);
    why = std::move(reason);
  }
  /// "policies 0-3: epp = \"performance\" not available on this machine: WHY".
  void note(PlanBuilder& b, const std::string& things, const std::string& setting) const {
    if (!ids.empty())
      b.note(things + " " + ids.to_string(), setting + " not available on this machine: " + why);
  }
};

Status plan_policies(PlanBuilder& b, const CpuTable& t) {
  if (!b.inventory.cpufreq) {
    b.note("", "cpufreq policies are unknown for this target: [cpu] governor and epp not planned");
    return Ok{};
  }
  if (b.inventory.cpufreq->empty()) {
    b.note("", "[cpu] governor and epp not available on this machine: it has no cpufreq "
               "policies (no cpufreq driver, as in most virtual machines)");
    return Ok{};
  }
  Missing governors, epps;
  bool has_epp = false;  // some policy planned here has an energy preference
  for (const CpufreqPolicy& p : *b.inventory.cpufreq) {
    if (t.cpus && p.cpus.intersect(*t.cpus).empty()) continue;
    std::string name = "policy" + std::to_string(p.id);
    if (p.online.empty()) {
      b.note(name, "all its CPUs (" + p.cpus.to_string() + ") are offline: skipped");
      continue;
    }
    if (t.cpus && !p.cpus.is_subset_of(*t.cpus))
      b.note(name, "covers " + cpus_label(p.cpus) + ", more than cpus = \"" + t.cpus->to_string() +
                       "\": its governor and epp apply to all of them");
    std::string who = name + " (" + cpus_label(p.cpus) + "): profile sets ";
    struct Wish {
      const std::optional<TableSetting>& setting;
      KnobKind kind;
      const char* what;
      Missing& missing;
    };
    for (const Wish& w : {Wish{t.governor, KnobKind::cpu_governor, "governor ", governors},
                          Wish{t.epp, KnobKind::cpu_epp, "energy preference ", epps}}) {
      if (!w.setting) continue;
      auto id = KnobId::cpu_policy(w.kind, p.id);
      if (!id.ok()) return error_at(w.setting->loc, id.error().what);
      std::string why;
      auto planned = plan_table_knob(b, *id, *w.setting, who + w.what + w.setting->value, why);
      if (!planned.ok()) return planned.error();
      if (!*planned) w.missing.add(p.id, why);
      else if (w.kind == KnobKind::cpu_epp) has_epp = true;
    }
  }
  // intel_pstate and amd-pstate pin the preference to performance under the
  // performance governor and refuse any other: apply will skip those changes.
  if (has_epp && t.governor && t.governor->value == "performance" && t.epp->value != "performance")
    b.note("", "epp = \"" + t.epp->value +
                   "\" with governor = \"performance\": intel_pstate and amd-pstate refuse any "
                   "preference but performance under that governor, so apply will skip it");
  if (t.governor) governors.note(b, "policies", "governor = \"" + t.governor->value + "\"");
  if (t.epp) epps.note(b, "policies", "epp = \"" + t.epp->value + "\"");
  return Ok{};
}

Status plan_resume_latency(PlanBuilder& b, const CpuSet& cpus, const TableSetting& s) {
  std::string reason = "profile sets resume latency " + s.value + " (" +
                       describe_resume_latency(s.value) + ")";
  Missing missing;
  std::map<std::string, CpuSet> stricter;  // a site's stricter value -> the CPUs keeping it
  for (unsigned cpu : cpus.cpus()) {
    auto id = KnobId::cpu_resume_latency(cpu);
    if (!id.ok()) return error_at(s.loc, id.error().what);
    // Stricter only: a site that keeps a CPU in shallower states (or polling) did so
    // for a workload there; a profile's looser limit would undo it.
    if (b.current.readable())
      if (CurrentValue cur = b.current.get(*id);
          cur.state == CurrentValue::State::known && resume_latency_stricter(cur.value, s.value)) {
        stricter[cur.value].add(cpu);
        b.add(Change{id->str(), s.group, cur.value, cur.value, reason}, true);
        continue;
      }
    std::string why;
    auto planned = plan_table_knob(b, *id, s, reason, why);
    if (!planned.ok()) return planned.error();
    if (!*planned) missing.add(cpu, why);
  }
  for (const auto& [value, kept] : stricter)
    b.note(cpus_label(kept), "resume latency " + value + " (" + describe_resume_latency(value) +
                                 ") kept: stricter than the profile's " + s.value + " (" +
                                 short_loc(s.loc) +
                                 "), and a profile never loosens a CPU's idle-state limit");
  missing.note(b, "CPUs", "resume_latency_us");
  return Ok{};
}

/// The CPUs [cpu] resume_latency_us applies to: `cpus` as named, else every CPU but the
/// isolated ones (isolcpus, nohz_full), which run what a site placed there with an idle
/// policy of its own; a note names those left alone.
CpuSet resume_latency_cpus(PlanBuilder& b, const CpuTable& t) {
  if (t.cpus) return *t.cpus;
  const CpuSet& all = b.inventory.topology.all_pus;
  CpuSet isolated = all.intersect(b.inventory.host.isolcpus.unite(b.inventory.host.nohz_full));
  if (!isolated.empty())
    b.note(cpus_label(isolated),
           "isolated (isolcpus/nohz_full): resume_latency_us left alone (name them in [cpu] "
           "cpus to set it there too)");
  return all.minus(isolated);
}

}  // namespace

Status plan_cpu(PlanBuilder& b) {
  const CpuTable& t = b.profile.cpu;
  if (!t.governor && !t.epp && !t.resume_latency) return Ok{};
  const CpuSet& all = b.inventory.topology.all_pus;
  if (t.cpus && !all.empty() && !t.cpus->is_subset_of(all))
    return error_at(t.cpus_loc, "cpus '" + t.cpus->to_string() +
                                    "' names CPUs this machine does not have (it has " +
                                    all.to_string() + ")");
  if (t.governor || t.epp)
    if (Status s = plan_policies(b, t); !s.ok()) return s;
  if (t.resume_latency) {
    if (!t.cpus && all.empty()) {
      b.note("", "no CPUs known on this target: resume_latency_us not planned");
      return Ok{};
    }
    CpuSet cpus = resume_latency_cpus(b, t);
    if (cpus.empty()) return Ok{};  // every CPU isolated: noted
    return plan_resume_latency(b, cpus, *t.resume_latency);
  }
  return Ok{};
}

}  // namespace tuner::planner_detail
