#include "tuner/profile/group_member.h"

#include <fmt/format.h>

#include "tuner/knobs/knob_id.h"
#include "tuner/profile/values.h"

namespace tuner {

namespace {

/// A member's form: its prefix (the whole id for a [cpu]/[mm] key), what it names and
/// the check of the rest.
struct MemberForm {
  std::string_view prefix;
  std::string_view shown;  // for the message that lists every form
  MemberKind kind;
  Status (*check)(std::string_view rest);
  std::optional<TableSetting>& (*setting)(Profile& p);  // cpu_mm only
};

Status check_key(std::string_view key) {
  if (key.empty()) return Error::invalid("empty sysctl key");
  return validate_sysctl_key(key);
}

std::optional<TableSetting>& governor(Profile& p) { return p.cpu.governor; }
std::optional<TableSetting>& epp(Profile& p) { return p.cpu.epp; }
std::optional<TableSetting>& resume_latency(Profile& p) { return p.cpu.resume_latency; }
std::optional<TableSetting>& thp(Profile& p) { return p.mm.thp; }
std::optional<TableSetting>& thp_defrag(Profile& p) { return p.mm.thp_defrag; }

const MemberForm kForms[] = {
    {"sysctl:", "sysctl:KEY", MemberKind::sysctl, check_key, nullptr},
    {"irq:", "irq:GLOB", MemberKind::irq, check_name_glob, nullptr},
    {"nic:", "nic:GLOB", MemberKind::nic, check_name_glob, nullptr},
    {"numa:unit:", "numa:unit:UNIT", MemberKind::numa_unit, validate_unit_name, nullptr},
    {"numa:cgroup:", "numa:cgroup:PATH", MemberKind::numa_cgroup, validate_cgroup_path, nullptr},
    {"cpu:governor", "cpu:governor", MemberKind::cpu_mm, nullptr, governor},
    {"cpu:epp", "cpu:epp", MemberKind::cpu_mm, nullptr, epp},
    {"cpu:resume_latency", "cpu:resume_latency", MemberKind::cpu_mm, nullptr, resume_latency},
    {"mm:thp", "mm:thp", MemberKind::cpu_mm, nullptr, thp},
    {"mm:thp_defrag", "mm:thp_defrag", MemberKind::cpu_mm, nullptr, thp_defrag},
};

std::string every_form() {
  std::string out;
  std::size_t n = std::size(kForms);
  for (std::size_t i = 0; i < n; ++i)
    out += fmt::format("{}\"{}\"", i == 0 ? "" : i + 1 == n ? " or " : ", ", kForms[i].shown);
  return out;
}

}  // namespace

Result<MemberRef> parse_group_member(std::string_view id) {
  for (const MemberForm& f : kForms) {
    if (f.kind == MemberKind::cpu_mm) {
      if (id == f.prefix) return MemberRef{f.kind, std::string(id)};
      continue;
    }
    if (!id.starts_with(f.prefix)) continue;
    std::string_view rest = id.substr(f.prefix.size());
    if (Status ok = f.check(rest); !ok.ok()) return ok.error();
    return MemberRef{f.kind, std::string(rest)};
  }
  return Error::invalid("write " + every_form());
}

std::optional<TableSetting>* table_setting(Profile& p, std::string_view id) {
  for (const MemberForm& f : kForms)
    if (f.kind == MemberKind::cpu_mm && f.prefix == id) return &f.setting(p);
  return nullptr;
}

}  // namespace tuner
