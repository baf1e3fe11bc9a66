#include "tuner/knobs/knob_kinds.h"

#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/strings.h"

namespace tuner {

namespace {

Result<KnobId> with_id(Result<KnobId> r, std::string_view id) {
  if (r.ok()) return r;
  return r.error().context(std::string(id));
}

// Whether `id` splits on ':' into `parts` parts, the first `family` and part `at`
// `word`. Interface names never hold ':' (validate_ifname), so nic ids split cleanly.
bool shaped(std::string_view id, std::string_view family, std::size_t parts, std::size_t at,
            std::string_view word) {
  auto p = split(id, ':');
  return p.size() == parts && p[0] == family && p[at] == word;
}

Result<KnobId> parse_sysctl(KnobKind /*kind*/, std::string_view id) {
  std::string_view key = id.substr(7);
  auto k = KnobId::sysctl(key);
  if (k.ok()) return k;
  const Error& e = k.error();
  // The check names the key escaped ("sysctl net\\x0a.x"): that form, not the raw one.
  std::string shown = starts_with(e.where, "sysctl ") ? e.where.substr(7) : std::string(key);
  return Error::invalid("bad sysctl key '" + shown + "': " + e.what, std::string(id));
}

Result<KnobId> parse_irq(KnobKind /*kind*/, std::string_view id) {
  std::string where(id);
  const char* expected = "expected irq:<number>:affinity or irq:<PCI address>/msi<N>:affinity";
  if (!id.ends_with(":affinity")) return Error::invalid(expected, where);
  std::string_view what = id.substr(4, id.size() - 4 - 9);
  if (auto slash = what.find('/'); slash != std::string_view::npos) {
    auto index = parse_msi_vector(what.substr(slash + 1));
    if (!index.ok()) return Error::invalid(expected, where);
    return with_id(KnobId::irq_vector(what.substr(0, slash), *index), id);
  }
  if (what.find(':') != std::string_view::npos) return Error::invalid(expected, where);
  auto n = parse_irq_number(what);
  if (!n.ok()) return n.error().context(where);
  return with_id(KnobId::irq_affinity(*n), id);
}

// nic:IF:link, mtu, channels, rings, coalesce.
Result<KnobId> parse_nic(KnobKind kind, std::string_view id) {
  return with_id(KnobId::nic(kind, split(id, ':')[1]), id);
}

// nic:IF:rps:rx-N, nic:IF:xps:tx-N, nic:IF:rfs:rx-N.
Result<KnobId> parse_nic_queue(KnobKind kind, std::string_view id) {
  auto parts = split(id, ':');
  auto q = parse_queue_name(parts[3], kind == KnobKind::nic_xps ? "tx-" : "rx-");
  if (!q.ok()) return q.error().context(std::string(id));
  return with_id(KnobId::nic_queue(kind, parts[1], *q), id);
}

Result<KnobId> parse_numa_unit(KnobKind /*kind*/, std::string_view id) {
  return with_id(KnobId::numa_unit(id.substr(10)), id);
}

Result<KnobId> parse_numa_cgroup(KnobKind /*kind*/, std::string_view id) {
  return with_id(KnobId::numa_cgroup(id.substr(12)), id);
}

Result<KnobId> parse_numa_pid(KnobKind /*kind*/, std::string_view id) {
  auto ps = parse_pid_start(id.substr(9));
  if (!ps.ok()) return ps.error().context(std::string(id));
  return with_id(KnobId::numa_pid(ps->pid, ps->start), id);
}

// Ids with no variable part: the example is the only id of its kind.
Result<KnobId> parse_fixed(KnobKind kind, std::string_view /*id*/) {
  return KnobId{kind, "", 0, 0};
}

// cpu:policyN:governor, cpu:policyN:epp.
Result<KnobId> parse_cpu_policy(KnobKind kind, std::string_view id) {
  std::string_view policy = split(id, ':')[1];
  if (!starts_with(policy, "policy"))
    return Error::invalid(
        fmt::format("expected {} (a cpufreq policy, not a CPU)", knob_kind_info(kind).form),
        std::string(id));
  auto n = parse_cpu_number(policy.substr(6));
  if (!n.ok()) return n.error().context(std::string(id));
  return with_id(KnobId::cpu_policy(kind, *n), id);
}

Result<KnobId> parse_cpu_latency(KnobKind /*kind*/, std::string_view id) {
  auto n = parse_cpu_number(split(id, ':')[1]);
  if (!n.ok()) return n.error().context(std::string(id));
  return with_id(KnobId::cpu_resume_latency(*n), id);
}

using K = KnobKind;

}  // namespace

constexpr std::array<KnobKindInfo, kKnobKindCount> kAllKnobKinds = {{
    {K::sysctl, "sysctl", "sysctl", "sysctl:KEY", "sysctl:net.core.rmem_max", true, 0,
     [](std::string_view id) { return starts_with(id, "sysctl:"); }, parse_sysctl},
    {K::irq_affinity, "irq_affinity", "irq", "irq:N:affinity or irq:PCI/msiN:affinity",
     "irq:57:affinity", true, 2, [](std::string_view id) { return starts_with(id, "irq:"); },
     parse_irq},
    {K::nic_link, "nic_link", "nic", "nic:IFNAME:link", "nic:eth0:link", true, 1,
     [](std::string_view id) { return shaped(id, "nic", 3, 2, "link"); }, parse_nic},
    {K::nic_mtu, "nic_mtu", "nic", "nic:IFNAME:mtu", "nic:eth0:mtu", true, 1,
     [](std::string_view id) { return shaped(id, "nic", 3, 2, "mtu"); }, parse_nic},
    {K::nic_channels, "nic_channels", "nic", "nic:IFNAME:channels", "nic:eth0:channels", true, 1,
     [](std::string_view id) { return shaped(id, "nic", 3, 2, "channels"); }, parse_nic},
    {K::nic_rings, "nic_rings", "nic", "nic:IFNAME:rings", "nic:eth0:rings", true, 1,
     [](std::string_view id) { return shaped(id, "nic", 3, 2, "rings"); }, parse_nic},
    {K::nic_coalesce, "nic_coalesce", "nic", "nic:IFNAME:coalesce", "nic:eth0:coalesce", true, 2,
     [](std::string_view id) { return shaped(id, "nic", 3, 2, "coalesce"); }, parse_nic},
    {K::nic_rps, "nic_rps", "nic", "nic:IFNAME:rps:rx-N", "nic:eth0:rps:rx-0", true, 2,
     [](std::string_view id) { return shaped(id, "nic", 4, 2, "rps"); }, parse_nic_queue},
    {K::nic_xps, "nic_xps", "nic", "nic:IFNAME:xps:tx-N", "nic:eth0:xps:tx-0", true, 2,
     [](std::string_view id) { return shaped(id, "nic", 4, 2, "xps"); }, parse_nic_queue},
    {K::nic_rfs, "nic_rfs", "nic", "nic:IFNAME:rfs:rx-N", "nic:eth0:rfs:rx-0", true, 2,
     [](std::string_view id) { return shaped(id, "nic", 4, 2, "rfs"); }, parse_nic_queue},
    {K::numa_unit, "numa_unit", "numa", "numa:unit:NAME", "numa:unit:trainer.service", true, 3,
     [](std::string_view id) { return starts_with(id, "numa:unit:"); }, parse_numa_unit},
    {K::numa_cgroup, "numa_cgroup", "numa", "numa:cgroup:PATH", "numa:cgroup:/sys/fs/cgroup/jobs",
     true, 3, [](std::string_view id) { return starts_with(id, "numa:cgroup:"); },
     parse_numa_cgroup},
    {K::numa_pid, "numa_pid", "numa", "numa:pid:PID@STARTTIME", "numa:pid:1234@98765", false, 3,
     [](std::string_view id) { return starts_with(id, "numa:pid:"); }, parse_numa_pid},
    {K::irqbalance_service, "irqbalance_service", "irqbalance", "irqbalance:service",
     "irqbalance:service", false, 4, [](std::string_view id) { return id == "irqbalance:service"; },
     parse_fixed},
    {K::irqbalance_banned, "irqbalance_banned", "irqbalance", "irqbalance:banned",
     "irqbalance:banned", true, 4, [](std::string_view id) { return id == "irqbalance:banned"; },
     parse_fixed},
    {K::cpu_governor, "cpu_governor", "cpu", "cpu:policyN:governor", "cpu:policy0:governor", true,
     5, [](std::string_view id) { return shaped(id, "cpu", 3, 2, "governor"); }, parse_cpu_policy},
    {K::cpu_epp, "cpu_epp", "cpu", "cpu:policyN:epp", "cpu:policy0:epp", true, 6,
     [](std::string_view id) { return shaped(id, "cpu", 3, 2, "epp"); }, parse_cpu_policy},
    {K::cpu_resume_latency, "cpu_resume_latency", "cpu", "cpu:N:resume_latency",
     "cpu:0:resume_latency", true, 7,
     [](std::string_view id) { return shaped(id, "cpu", 3, 2, "resume_latency"); },
     parse_cpu_latency},
    {K::mm_thp, "mm_thp", "mm", "mm:thp", "mm:thp", true, 8,
     [](std::string_view id) { return id == "mm:thp"; }, parse_fixed},
    {K::mm_thp_defrag, "mm_thp_defrag", "mm", "mm:thp_defrag", "mm:thp_defrag", true, 9,
     [](std::string_view id) { return id == "mm:thp_defrag"; }, parse_fixed},
}};

// One row per kind, in enum order: a kind added to the enum without its row, or a row
// out of place, stops the build here.
static_assert([] {
  for (std::size_t i = 0; i < kAllKnobKinds.size(); ++i)
    if (kAllKnobKinds[i].kind != static_cast<KnobKind>(i) || kAllKnobKinds[i].name.empty() ||
        kAllKnobKinds[i].example.empty() || !kAllKnobKinds[i].claims || !kAllKnobKinds[i].parse)
      return false;
  return true;
}());

const KnobKindInfo& knob_kind_info(KnobKind kind) {
  return kAllKnobKinds.at(static_cast<std::size_t>(kind));
}

Result<KnobId> parse_knob_id(std::string_view id) {
  for (const KnobKindInfo& k : kAllKnobKinds)
    if (k.claims(id)) return k.parse(k.kind, id);
  // Not of any kind's shape: name what the family has, or the families.
  std::string_view family = id.substr(0, id.find(':'));
  std::vector<std::string_view> forms, families;
  for (const KnobKindInfo& k : kAllKnobKinds) {
    if (k.family == family && id.size() > family.size()) forms.push_back(k.form);
    if (families.empty() || families.back() != k.family) families.push_back(k.family);
  }
  std::string where(id);
  if (!forms.empty())
    return Error::invalid(fmt::format("unknown {} knob '{}' (expected {})", family,
                                      id.substr(family.size() + 1), fmt::join(forms, ", ")),
                          where);
  return Error::invalid(
      fmt::format("unknown knob kind (expected {}:...)", fmt::join(families, ":..., ")), where);
}

}  // namespace tuner
