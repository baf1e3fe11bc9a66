#include "tuner/check/gather.h"

#include <fmt/core.h>

#include "base/strings.h"
#include "probes/cuda.h"
#include "probes/irq_vector.h"
#include "probes/nm_keyfile.h"
#include "probes/services.h"
#include "probes/tuned.h"
#include "rollback/state.h"
#include "rollback/state_dir.h"
#include "tuner/knobs/knob.h"

namespace tuner {
namespace {

void gather_counters(const Target& target, const GatherOptions& opt, CheckInput& in) {
  if (opt.window.count() == 0) {
    in.counters_skipped = Unavailable{"not sampled (--window 0)"};
    return;
  }
  if (target.topology_xml) {
    in.counters_skipped = Unavailable{"a hwloc export has no counters"};
    return;
  }
  if (auto failed = probe_failed(in.inventory, "nic", in.inventory.nics.empty())) {
    in.counters_skipped = failed;
    return;
  }
  std::vector<std::string> names;
  for (const Nic& nic : in.inventory.nics)
    if (!nic.is_virtual) names.push_back(nic.name);
  if (names.empty()) {
    in.counters_skipped = Unavailable{"no physical NIC"};
    return;
  }
  // A NIC that goes away (or already went since the probe) is reported, and the others
  // are still compared: one vanished NIC must not hide their drops and errors.
  auto before = bench::sample_present_nic_counters(target.root, names);
  if (!before.ok()) {
    in.counters_skipped = Unavailable{"cannot read counters: " + before.error().message(), true};
    return;
  }
  opt.clock->sleep_for(opt.window);
  auto after = bench::sample_present_nic_counters(target.root, names);
  if (!after.ok()) {
    in.counters_skipped = Unavailable{"cannot read counters: " + after.error().message(), true};
    return;
  }
  CounterWindow w;
  w.window_s = std::chrono::duration<double>(opt.window).count();
  for (const std::string& name : names) {
    auto b = before->counters.find(name), a = after->counters.find(name);
    bool at_start = b != before->counters.end(), at_end = a != after->counters.end();
    if (at_start && at_end) {
      w.before[name] = b->second;
      w.after[name] = a->second;
    } else {
      w.vanished.push_back({name, at_start, at_end});
    }
  }
  in.counters = std::move(w);
}

void gather_kept(const Target& target, const GatherOptions& opt, CheckInput& in) {
  if (!opt.state_dir) {
    in.kept_skipped = Unavailable{"no state directory for this target"};
    return;
  }
  std::map<std::string, std::string> runs;
  auto dir = StateDir::open(*opt.state_dir, false);
  if (!dir.ok() && !dir.error().is(ErrorKind::missing)) {
    in.kept_skipped = Unavailable{"cannot read the kept state: " + dir.error().message(), true};
    return;
  }
  if (dir.ok()) {  // no state directory: nothing is kept
    auto state = load_state(*dir);
    if (!state.ok()) {
      in.kept_skipped = Unavailable{"cannot read the kept state: " + state.error().message(), true};
      return;
    }
    for (const auto& [id, kept] : state->knobs) {
      runs[id] = kept.run_id;
      in.tuner_settings[id] = {kept.value, "kept by run " + kept.run_id};
    }
  }
  KnobContext ctx{.root = target.root};
  std::string banned = "none";
  if (auto knob = make_knob(KnobId::irqbalance_banned(), ctx); knob.ok())
    if (auto v = (*knob)->read(); v.ok()) banned = *v;
  in.kept = kept_irqs(target.root, runs, banned);
}

void gather_governors(const Target& target, const GatherOptions& opt, CheckInput& in) {
  if (!opt.profile) {
    in.governor_skipped = Unavailable{opt.governor_skipped};
    return;
  }
  if (!opt.profile_governor) {
    in.governor_skipped = Unavailable{"profile '" + *opt.profile + "' sets no [cpu] governor"};
    return;
  }
  if (!in.inventory.cpufreq) {
    in.governor_skipped = Unavailable{"cpufreq policies are unknown for this target"};
    return;
  }
  if (in.inventory.cpufreq->empty()) {
    in.governor_skipped =
        probe_failed(in.inventory, "cpufreq", true)
            .value_or(
                Unavailable{"no cpufreq driver: the firmware or hypervisor sets the frequency"});
    return;
  }
  GovernorCheck g{*opt.profile, *opt.profile_governor, {}};
  KnobContext ctx{.root = target.root};
  for (const CpufreqPolicy& p : *in.inventory.cpufreq) {
    if (p.online.empty()) continue;  // an inactive policy governs nothing
    auto id = KnobId::cpu_policy(KnobKind::cpu_governor, p.id);
    if (!id.ok()) continue;
    auto knob = make_knob(*id, ctx);
    if (!knob.ok()) continue;
    if (auto v = (*knob)->read(); v.ok()) g.current[p.id] = *v;
  }
  in.governor = std::move(g);
}

void gather_cuda(const Target& target, CheckInput& in) {
  if (target.topology_xml) {
    in.cuda_skipped = Unavailable{"a hwloc export holds no driver or library files of its machine"};
    return;
  }
  if (!in.inventory.host.nvidia_driver) {
    in.cuda_skipped = Unavailable{"no NVIDIA driver loaded (no proc/driver/nvidia/version or "
                                  "sys/module/nvidia/version)"};
    return;
  }
  in.cuda = CudaCheck{*in.inventory.host.nvidia_driver,
                      probe_cuda_runtimes(target.root, in.inventory.errors)};
}

void gather_clock(const Target& target, const GatherOptions& opt, CheckInput& in) {
  if (!target.writable()) {
    in.clock_skipped =
        Unavailable{target.topology_xml
                        ? "a hwloc export: this machine's clock says nothing of the exported one"
                        : "the kernel's clock state is read by adjtimex(2) on the live "
                          "machine; a capture's files do not hold it"};
    return;
  }
  auto clock = opt.read_clock();
  if (!clock.ok()) {
    in.clock_skipped = Unavailable{"cannot read the clock state: " + clock.error().message(), true};
    return;
  }
  in.clock = *clock;
}

ServiceState service_state(const Root& root, std::string_view unit, std::string_view comm) {
  auto running = process_running(root, comm);
  return {unit_enablement(root, unit), running.ok() ? *running : std::nullopt};
}

void gather_tuned(const Target& target, CheckInput& in) {
  const Root& root = target.root;
  ServiceState service = service_state(root, "tuned.service", "tuned");
  if ((!service.unit.enabled || service.unit.masked) && service.running != true) {
    in.tuned_skipped = Unavailable{service.unit.masked ? "tuned.service is masked and not running"
                                                       : "tuned.service is neither enabled nor "
                                                         "running"};
    return;
  }
  auto active = read_tuned_active(root);
  if (!active.ok()) {
    in.tuned_skipped =
        Unavailable{"cannot read tuned's active profile: " + active.error().message(), true};
    return;
  }
  if (active->names.empty()) {
    in.tuned_skipped = Unavailable{
        "tuned runs or is enabled, but etc/tuned/active_profile names no profile: tuned "
        "applies the one 'tuned-adm recommend' names when it starts"};
    return;
  }
  auto profile = load_tuned_profile(root, active->names);
  if (!profile.ok()) {
    in.tuned_skipped =
        Unavailable{"cannot read tuned's profile: " + profile.error().message(), true};
    return;
  }
  in.tuned = TunedCheck{service, unit_enablement(root, "tuner-after-tuned.service"), active->mode,
                        std::move(profile).value()};
}

void gather_coexist(const Target& target, const GatherOptions& opt, CheckInput& in) {
  if (target.topology_xml) {
    Unavailable why{"a hwloc export holds no files of its machine"};
    in.tuned_skipped = in.nm_skipped = why;
    return;
  }
  for (const auto& [id, value] : opt.planned)
    in.tuner_settings[id] = {value, "planned by profile '" + opt.profile.value_or("") + "'"};
  if (in.tuner_settings.empty()) {
    Unavailable why{"tuner keeps nothing (state.json) and plans nothing to compare with"};
    in.tuned_skipped = in.nm_skipped = why;
    return;
  }
  gather_tuned(target, in);
  ServiceState nm = service_state(target.root, "NetworkManager.service", "NetworkManager");
  if (!nm.unit.enabled || nm.unit.masked) {
    in.nm_skipped = Unavailable{"NetworkManager.service is not enabled"};
    return;
  }
  in.nm = NmCheck{nm, read_nm_connections(target.root, in.inventory.errors)};
}

}  // namespace

KeptIrqs kept_irqs(const Root& root, const std::map<std::string, std::string>& kept_run_by_knob,
                   const std::string& banned) {
  auto number_now = [&](const KnobId& id) -> std::optional<unsigned> {
    if (!id.by_owner()) return id.number;
    auto irq = find_msi_irq(root, id.name, id.number);
    return irq.ok() ? std::optional<unsigned>(*irq) : std::nullopt;
  };
  KeptIrqs k;
  for (const auto& [id_text, run] : kept_run_by_knob) {
    auto id = parse_knob_id(id_text);
    if (!id.ok() || id->kind != KnobKind::irq_affinity) continue;
    if (auto n = number_now(*id)) k.pinned[*n] = {id_text, run};
  }
  if (trim(banned) == "none") return k;
  for (std::string_view part : split(banned, ','))
    if (auto id = parse_irq_ref(trim(part)); id.ok())
      if (auto n = number_now(*id)) k.banned.insert(*n);
  return k;
}

CheckInput gather_check_input(const Target& target, Inventory inventory, const GatherOptions& opt) {
  CheckInput in;
  in.inventory = std::move(inventory);
  in.netlink = target.root.is_live() && !target.topology_xml;
  in.hwloc_export = target.topology_xml.has_value();
  gather_counters(target, opt, in);
  gather_kept(target, opt, in);
  gather_governors(target, opt, in);
  gather_cuda(target, in);
  gather_clock(target, opt, in);
  gather_coexist(target, opt, in);
  return in;
}

}  // namespace tuner
