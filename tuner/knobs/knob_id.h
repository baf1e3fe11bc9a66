// KnobId: the one place knob ids are built, parsed and validated. A knob id names one
// setting of the machine ("sysctl:net.core.rmem_max", "irq:57:affinity",
// "irq:0000:3b:00.0/msi5:affinity", "nic:eth0:link", "nic:eth0:rps:rx-0",
// "numa:unit:trainer.service", "numa:cgroup:/sys/fs/cgroup/x", "numa:pid:1234@98765",
// "irqbalance:banned", "cpu:policy0:governor", "cpu:3:resume_latency", "mm:thp"; every
// kind's form is in knob_kinds.h's table) and is all rollback has to rebuild the knob in
// a fresh process (DESIGN.md "Knobs and their ids"). Ids travel as that string form: a
// plan's Change::knob, the journal, state.json and every JSON document carry it. Where
// an id is acted on (make_knob, the planner's order, irqbalance's ban list) it is parsed
// into a KnobId first, so every id in use has passed the validators below.
//
// Each part of an id has exactly one validator: here, or for an interface name
// probes/ifname.h (the probes use it too). The profile parser checks the values it reads
// with them, the planner builds ids with them, and make_knob parses with them: there is
// no second opinion on what a unit name or a cgroup path is.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "probes/ifname.h"

namespace tuner {

/// Each kind has its row in knob_kinds.h's kAllKnobKinds (prefix, parser, plan rank,
/// name); a kind added here stops the build until it has one.
enum class KnobKind {
  sysctl,              // sysctl:KEY
  irq_affinity,        // irq:N:affinity, or irq:PCI/msiN:affinity (by owner)
  nic_link,            // nic:IF:link
  nic_mtu,             // nic:IF:mtu
  nic_channels,        // nic:IF:channels
  nic_rings,           // nic:IF:rings
  nic_coalesce,        // nic:IF:coalesce
  nic_rps,             // nic:IF:rps:rx-N
  nic_xps,             // nic:IF:xps:tx-N
  nic_rfs,             // nic:IF:rfs:rx-N
  numa_unit,           // numa:unit:NAME
  numa_cgroup,         // numa:cgroup:/sys/fs/cgroup/PATH
  numa_pid,            // numa:pid:PID@START
  irqbalance_service,  // irqbalance:service
  irqbalance_banned,   // irqbalance:banned
  cpu_governor,        // cpu:policyN:governor
  cpu_epp,             // cpu:policyN:epp
  cpu_resume_latency,  // cpu:N:resume_latency
  mm_thp,              // mm:thp
  mm_thp_defrag,       // mm:thp_defrag
  count_,              // not a kind: how many there are (keep last; knob_kinds.h)
};

/// The highest CPU (and cpufreq policy) number an id may name. The kernel's NR_CPUS is
/// at most 8192 today; the margin costs nothing.
inline constexpr unsigned kMaxCpuNumber = 65535;

/// The highest queue number a nic:IF:rps:rx-N, nic:IF:xps:tx-N or nic:IF:rfs:rx-N id may name: the
/// kernel's queue counts are unsigned ints, but no driver goes past a few thousand.
inline constexpr unsigned kMaxQueueNumber = 65535;

/// Where cgroup paths of numa:cgroup ids are rooted on every machine.
inline constexpr std::string_view kCgroupMount = "/sys/fs/cgroup";

/// A parsed, validated knob id. Build one with the named constructors (they validate)
/// or parse_knob_id; which fields mean something depends on the kind.
struct KnobId {
  KnobKind kind = KnobKind::sysctl;
  /// sysctl key, interface name, unit name, cgroup path relative to kCgroupMount, or the
  /// PCI address of an IRQ named by its owner.
  std::string name;
  /// IRQ number (or, with a PCI address in name, the MSI vector index), pid, cpufreq
  /// policy, CPU or queue number.
  unsigned number = 0;
  unsigned long long start = 0;  // pid start time (field 22 of /proc/PID/stat)

  static Result<KnobId> sysctl(std::string_view key);
  static Result<KnobId> irq_affinity(unsigned irq);
  /// The IRQ that serves MSI vector `index` of PCI function `pci`, whatever its number:
  /// "irq:0000:3b:00.0/msi5:affinity" (probes/irq_vector.h).
  static Result<KnobId> irq_vector(std::string_view pci, unsigned index);
  /// An irq_affinity id that names its IRQ by owner (PCI function and vector).
  bool by_owner() const { return kind == KnobKind::irq_affinity && !name.empty(); }
  /// kind is nic_link, nic_mtu, nic_channels, nic_rings or nic_coalesce.
  static Result<KnobId> nic(KnobKind kind, std::string_view ifname);
  /// kind is nic_rps (RX queue N's rps_cpus), nic_xps (TX queue N's xps_cpus) or nic_rfs
  /// (RX queue N's rps_flow_cnt).
  static Result<KnobId> nic_queue(KnobKind kind, std::string_view ifname, unsigned queue);
  static Result<KnobId> numa_unit(std::string_view unit);
  /// path: "a/b" or "/sys/fs/cgroup/a/b" (the same cgroup).
  static Result<KnobId> numa_cgroup(std::string_view path);
  static Result<KnobId> numa_pid(unsigned pid, unsigned long long start);
  static KnobId irqbalance_service();
  static KnobId irqbalance_banned();
  /// kind is cpu_governor or cpu_epp; policy is the N of cpufreq/policyN.
  static Result<KnobId> cpu_policy(KnobKind kind, unsigned policy);
  static Result<KnobId> cpu_resume_latency(unsigned cpu);
  static KnobId mm_thp();
  static KnobId mm_thp_defrag();

  /// The stable string form: what plans, journals and state.json carry.
  std::string str() const;
  bool operator==(const KnobId&) const = default;
};

/// The knob whose write makes, removes or resets this one's object: a NIC's channels
/// for the RPS and XPS masks and the RFS flow tables of its queues (a channel change
/// makes or removes queues, and drivers rewrite their XPS maps: virtio, ice, i40e).
/// nullopt for other kinds.
std::optional<KnobId> made_by(const KnobId& id);

/// An IRQ as irqbalance:banned lists it: the middle of its irq_affinity id ("57",
/// "0000:3b:00.0/msi5"), and back.
std::string irq_ref(const KnobId& irq);
Result<KnobId> parse_irq_ref(std::string_view text);
/// IRQ refs in their one canonical order (by number, then by owner), each once, joined
/// with ","; "none" when there are none.
std::string irq_ref_list(std::vector<KnobId> irqs);

/// Parses and validates the string form (knob_kinds.cc: the kind whose row claims the
/// id parses it). Errors are Error::invalid with `where` = id.
/// numa:cgroup accepts the path relative to the cgroup mount too ("numa:cgroup:a/b");
/// str() then gives the absolute form.
Result<KnobId> parse_knob_id(std::string_view id);

// One validator per id part. Errors carry only `what` (callers add where: the profile
// parser its file:line:col, parse_knob_id the id); the sysctl key's also names the key
// in `where`, as check_sysctl_key_syntax does.

/// A sysctl key: probes/sysctl.h's check_sysctl_key_syntax, the probe's own rule.
Status validate_sysctl_key(std::string_view key);
/// A PCI address as sysfs names functions ("0000:3b:00.0"): probes/nic.h's
/// is_pci_address, at most 16 characters.
Status validate_pci_address(std::string_view pci);
/// An IRQ number: decimal without sign or leading zeros, at most 2^20.
Result<unsigned> parse_irq_number(std::string_view text);
// An interface name: probes/ifname.h's validate_ifname, the one rule.
/// A systemd unit name: [A-Za-z0-9:_.@-], at most 255 characters, a non-empty name
/// before .service, .scope or .slice. So never a path: no '/', no "..".
Status validate_unit_name(std::string_view unit);
/// A cgroup path relative to the cgroup mount: segments of [A-Za-z0-9_.:@-], none
/// empty, "." or "..", at most 1024 characters, no leading '/'.
Status validate_cgroup_path(std::string_view relpath);
/// "a/b" or "/sys/fs/cgroup/a/b" -> the validated relative path "a/b".
Result<std::string> parse_cgroup_path(std::string_view path);
/// "PID@START": a pid (1 to 4194304) and its start time in clock ticks after boot.
struct PidStart {
  unsigned pid = 0;
  unsigned long long start = 0;
};
Result<PidStart> parse_pid_start(std::string_view text);
/// "msi5" -> 5: an MSI vector index, decimal without sign or leading zeros, at most
/// kMaxMsiIndex (probes/irq_vector.h).
Result<unsigned> parse_msi_vector(std::string_view text);
/// A CPU or cpufreq policy number: decimal without sign or leading zeros, at most
/// kMaxCpuNumber.
Result<unsigned> parse_cpu_number(std::string_view text);
/// "rx-3" (prefix "rx-") -> 3: decimal without sign or leading zeros, at most
/// kMaxQueueNumber.
Result<unsigned> parse_queue_name(std::string_view text, std::string_view prefix);

}  // namespace tuner
