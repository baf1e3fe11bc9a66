#include "tuner/knobs/knob_id.h"

#include <algorithm>
#include <cctype>
#include <tuple>

#include <fmt/core.h>

#include "base/strings.h"
#include "probes/irq_vector.h"
#include "probes/nic.h"
#include "probes/sysctl.h"

namespace tuner {

namespace {

bool digits_only(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

}  // namespace

Status validate_sysctl_key(std::string_view key) { return check_sysctl_key_syntax(key); }

Status validate_pci_address(std::string_view pci) {
  // A path component of sys/bus/pci/devices: the probe's rule, with a domain of at most
  // 8 hex digits (the kernel prints a 32-bit domain as "%04x").
  if (pci.size() > 16 || !is_pci_address(pci))
    return Error::invalid("not a PCI address: '" + std::string(pci) +
                          "' (expected DOMAIN:BUS:SLOT.FUNCTION, e.g. 0000:3b:00.0)");
  return Ok{};
}

Result<unsigned> parse_irq_number(std::string_view text) {
  auto n = digits_only(text) ? parse_u64(text) : std::nullopt;
  if (!n || *n > 1u << 20 || (text.size() > 1 && text[0] == '0'))
    return Error::invalid("not an IRQ number: '" + std::string(text) + "'");
  return static_cast<unsigned>(*n);
}

Status validate_unit_name(std::string_view unit) {
  if (unit.empty() || unit.size() > 255)
    return Error::invalid("a unit name must be 1 to 255 characters");
  for (char c : unit)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == ':' || c == '_' || c == '.' ||
          c == '@' || c == '-'))
      return Error::invalid(
          fmt::format("unit name '{}' has '{}': only [A-Za-z0-9:_.@-] are allowed", unit, c));
  std::string_view stem;
  for (std::string_view suffix : {".service", ".scope", ".slice"})
    if (unit.ends_with(suffix)) stem = unit.substr(0, unit.size() - suffix.size());
  if (stem.empty())
    return Error::invalid(
        fmt::format("unit name '{}' must end in .service, .scope or .slice", unit));
  return Ok{};
}

Status validate_cgroup_path(std::string_view path) {
  if (path.empty()) return Error::invalid("empty cgroup path");
  if (path.front() == '/')
    return Error::invalid(
        fmt::format("cgroup path '{}' must be relative to /sys/fs/cgroup (no leading '/')", path));
  if (path.size() > 1024) return Error::invalid("cgroup path longer than 1024 bytes");
  for (std::string_view seg : split(path, '/')) {
    if (seg.empty())
      return Error::invalid(fmt::format("cgroup path '{}' has an empty segment", path));
    if (seg == "." || seg == "..")
      return Error::invalid(fmt::format("cgroup path '{}' may not contain '{}'", path, seg));
    for (char c : seg)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == ':' ||
            c == '@' || c == '-'))
        return Error::invalid(
            fmt::format("cgroup path '{}' has '{}': segments are [A-Za-z0-9_.:@-]", path, c));
  }
  return Ok{};
}

Result<std::string> parse_cgroup_path(std::string_view path) {
  std::string prefix = std::string(kCgroupMount) + "/";
  if (starts_with(path, prefix)) path.remove_prefix(prefix.size());
  if (auto st = validate_cgroup_path(path); !st.ok()) return st.error();
  return std::string(path);
}

Result<PidStart> parse_pid_start(std::string_view text) {
  auto at = text.find('@');
  if (at == std::string_view::npos)
    return Error::invalid(
        "expected numa:pid:PID@STARTTIME (STARTTIME: field 22 of /proc/PID/stat)");
  std::string_view pid = text.substr(0, at), start = text.substr(at + 1);
  auto p = digits_only(pid) ? parse_u64(pid) : std::nullopt;
  if (!p || *p == 0 || *p > 4194304)
    return Error::invalid("'" + std::string(pid) + "' is not a process id");
  auto s = digits_only(start) ? parse_u64(start) : std::nullopt;
  if (!s) return Error::invalid("'" + std::string(start) + "' is not a start time");
  return PidStart{static_cast<unsigned>(*p), *s};
}

Result<unsigned> parse_msi_vector(std::string_view text) {
  std::string_view n = starts_with(text, "msi") ? text.substr(3) : "";
  auto v = digits_only(n) ? parse_u64(n) : std::nullopt;
  if (!v || *v > kMaxMsiIndex || (n.size() > 1 && n[0] == '0'))
    return Error::invalid(
        fmt::format("not an MSI vector: '{}' (expected msi0 to msi{})", text, kMaxMsiIndex));
  return static_cast<unsigned>(*v);
}

Result<unsigned> parse_cpu_number(std::string_view text) {
  auto n = digits_only(text) ? parse_u64(text) : std::nullopt;
  if (!n || *n > kMaxCpuNumber || (text.size() > 1 && text[0] == '0'))
    return Error::invalid("not a CPU number: '" + std::string(text) + "'");
  return static_cast<unsigned>(*n);
}

Result<unsigned> parse_queue_name(std::string_view text, std::string_view prefix) {
  std::string_view n = starts_with(text, prefix) ? text.substr(prefix.size()) : "";
  auto v = digits_only(n) ? parse_u64(n) : std::nullopt;
  if (!v || *v > kMaxQueueNumber || (n.size() > 1 && n[0] == '0'))
    return Error::invalid(fmt::format("not a queue: '{}' (expected {}N)", text, prefix));
  return static_cast<unsigned>(*v);
}

Result<KnobId> KnobId::sysctl(std::string_view key) {
  if (auto st = validate_sysctl_key(key); !st.ok()) return st.error();
  return KnobId{KnobKind::sysctl, std::string(key), 0, 0};
}

Result<KnobId> KnobId::irq_affinity(unsigned irq) {
  if (irq > 1u << 20) return Error::invalid("not an IRQ number: " + std::to_string(irq));
  return KnobId{KnobKind::irq_affinity, "", irq, 0};
}

Result<KnobId> KnobId::irq_vector(std::string_view pci, unsigned index) {
  if (auto st = validate_pci_address(pci); !st.ok()) return st.error();
  if (index > kMaxMsiIndex)
    return Error::invalid(fmt::format("not an MSI vector: {} (at most {})", index, kMaxMsiIndex));
  return KnobId{KnobKind::irq_affinity, std::string(pci), index, 0};
}

Result<KnobId> KnobId::nic(KnobKind kind, std::string_view ifname) {
  if (kind != KnobKind::nic_link && kind != KnobKind::nic_mtu && kind != KnobKind::nic_channels &&
      kind != KnobKind::nic_rings && kind != KnobKind::nic_coalesce)
    return Error::invalid("not a nic setting");
  if (auto st = validate_ifname(ifname); !st.ok()) return st.error();
  return KnobId{kind, std::string(ifname), 0, 0};
}

Result<KnobId> KnobId::nic_queue(KnobKind kind, std::string_view ifname, unsigned queue) {
  if (kind != KnobKind::nic_rps && kind != KnobKind::nic_xps && kind != KnobKind::nic_rfs)
    return Error::invalid("not a nic queue setting");
  if (auto st = validate_ifname(ifname); !st.ok()) return st.error();
  if (queue > kMaxQueueNumber)
    return Error::invalid("not a queue number: " + std::to_string(queue));
  return KnobId{kind, std::string(ifname), queue, 0};
}

Result<KnobId> KnobId::numa_unit(std::string_view unit) {
  if (auto st = validate_unit_name(unit); !st.ok()) return st.error();
  return KnobId{KnobKind::numa_unit, std::string(unit), 0, 0};
}

Result<KnobId> KnobId::numa_cgroup(std::string_view path) {
  auto rel = parse_cgroup_path(path);
  if (!rel.ok()) return rel.error();
  return KnobId{KnobKind::numa_cgroup, std::move(rel).value(), 0, 0};
}

Result<KnobId> KnobId::numa_pid(unsigned pid, unsigned long long start) {
  if (pid == 0 || pid > 4194304)
    return Error::invalid("'" + std::to_string(pid) + "' is not a process id");
  return KnobId{KnobKind::numa_pid, "", pid, start};
}

KnobId KnobId::irqbalance_service() { return KnobId{KnobKind::irqbalance_service, "", 0, 0}; }
KnobId KnobId::irqbalance_banned() { return KnobId{KnobKind::irqbalance_banned, "", 0, 0}; }

Result<KnobId> KnobId::cpu_policy(KnobKind kind, unsigned policy) {
  if (kind != KnobKind::cpu_governor && kind != KnobKind::cpu_epp)
    return Error::invalid("not a cpufreq policy setting");
  if (policy > kMaxCpuNumber)
    return Error::invalid("not a cpufreq policy number: " + std::to_string(policy));
  return KnobId{kind, "", policy, 0};
}

Result<KnobId> KnobId::cpu_resume_latency(unsigned cpu) {
  if (cpu > kMaxCpuNumber) return Error::invalid("not a CPU number: " + std::to_string(cpu));
  return KnobId{KnobKind::cpu_resume_latency, "", cpu, 0};
}

KnobId KnobId::mm_thp() { return KnobId{KnobKind::mm_thp, "", 0, 0}; }
KnobId KnobId::mm_thp_defrag() { return KnobId{KnobKind::mm_thp_defrag, "", 0, 0}; }

std::optional<KnobId> made_by(const KnobId& id) {
  if (id.kind != KnobKind::nic_rps && id.kind != KnobKind::nic_xps && id.kind != KnobKind::nic_rfs)
    return std::nullopt;
  return KnobId{KnobKind::nic_channels, id.name, 0, 0};
}

std::string KnobId::str() const {
  switch (kind) {
    case KnobKind::sysctl: return "sysctl:" + name;
    case KnobKind::irq_affinity:
      if (by_owner()) return "irq:" + name + "/msi" + std::to_string(number) + ":affinity";
      return "irq:" + std::to_string(number) + ":affinity";
    case KnobKind::nic_link: return "nic:" + name + ":link";
    case KnobKind::nic_mtu: return "nic:" + name + ":mtu";
    case KnobKind::nic_channels: return "nic:" + name + ":channels";
    case KnobKind::nic_rings: return "nic:" + name + ":rings";
    case KnobKind::nic_coalesce: return "nic:" + name + ":coalesce";
    case KnobKind::nic_rps: return "nic:" + name + ":rps:rx-" + std::to_string(number);
    case KnobKind::nic_xps: return "nic:" + name + ":xps:tx-" + std::to_string(number);
    case KnobKind::nic_rfs: return "nic:" + name + ":rfs:rx-" + std::to_string(number);
    case KnobKind::numa_unit: return "numa:unit:" + name;
    case KnobKind::numa_cgroup: return "numa:cgroup:" + std::string(kCgroupMount) + "/" + name;
    case KnobKind::numa_pid:
      return "numa:pid:" + std::to_string(number) + "@" + std::to_string(start);
    case KnobKind::irqbalance_service: return "irqbalance:service";
    case KnobKind::irqbalance_banned: return "irqbalance:banned";
    case KnobKind::cpu_governor: return "cpu:policy" + std::to_string(number) + ":governor";
    case KnobKind::cpu_epp: return "cpu:policy" + std::to_string(number) + ":epp";
    case KnobKind::cpu_resume_latency: return "cpu:" + std::to_string(number) + ":resume_latency";
    case KnobKind::mm_thp: return "mm:thp";
    case KnobKind::mm_thp_defrag: return "mm:thp_defrag";
    case KnobKind::count_: break;
  }
  return "";
}

std::string irq_ref(const KnobId& irq) {
  std::string id = irq.str();  // "irq:" ... ":affinity"
  return id.substr(4, id.size() - 4 - 9);
}

Result<KnobId> parse_irq_ref(std::string_view text) {
  auto id = parse_knob_id("irq:" + std::string(text) + ":affinity");
  if (!id.ok())
    return Error::invalid("'" + std::string(text) +
                          "' is not an IRQ (expected a number like 57 or an owner like "
                          "0000:3b:00.0/msi5)");
  return id;
}

std::string irq_ref_list(std::vector<KnobId> irqs) {
  auto key = [](const KnobId& k) { return std::tuple(k.by_owner(), k.name, k.number); };
  std::sort(irqs.begin(), irqs.end(),
            [&](const KnobId& a, const KnobId& b) { return key(a) < key(b); });
  irqs.erase(std::unique(irqs.begin(), irqs.end()), irqs.end());
  std::string out;
  for (const KnobId& k : irqs) out += (out.empty() ? "" : ",") + irq_ref(k);
  return out.empty() ? "none" : out;
}

}  // namespace tuner
