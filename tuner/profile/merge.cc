// Merging profiles (includes, repeated --profile) and applying [group.*] members.
#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/hash.h"
#include "tuner/profile/group_member.h"
#include "tuner/profile/merge.h"
#include "tuner/profile/profile.h"

namespace tuner {

namespace {

template <typename T, typename Same>
void upsert(std::vector<T>& into, const T& item, Same same) {
  auto it = std::find_if(into.begin(), into.end(), [&](const T& x) { return same(x, item); });
  if (it != into.end()) *it = item;
  else into.push_back(item);
}

bool same_target(const NumaBind& a, const NumaBind& b) {
  return (a.unit && a.unit == b.unit) || (a.cgroup && a.cgroup == b.cgroup);
}

template <typename T>
void over_key(std::optional<T>& base, const std::optional<T>& over) {
  if (over) base = over;
}

}  // namespace

std::string SourceLoc::str() const {
  if (line <= 0) return file;
  return fmt::format("{}:{}:{}", file, line, col);
}

void merge_into(Profile& base, const Profile& over) {
  base.name = over.name;
  base.file = over.file;
  if (!over.description.empty()) base.description = over.description;
  for (const std::string& n : over.chain)
    if (std::find(base.chain.begin(), base.chain.end(), n) == base.chain.end())
      base.chain.push_back(n);
  for (const SysctlSetting& s : over.sysctls)
    upsert(base.sysctls, s, [](auto& a, auto& b) { return a.key == b.key; });
  for (const IrqRule& r : over.irqs)
    upsert(base.irqs, r, [](auto& a, auto& b) { return a.glob == b.glob; });
  for (const NicRule& r : over.nics)
    upsert(base.nics, r, [](auto& a, auto& b) { return a.glob == b.glob; });
  for (const NumaBind& b : over.binds) upsert(base.binds, b, same_target);
  over_key(base.cpu.governor, over.cpu.governor);
  over_key(base.cpu.epp, over.cpu.epp);
  over_key(base.cpu.resume_latency, over.cpu.resume_latency);
  if (over.cpu.cpus) {
    base.cpu.cpus = over.cpu.cpus;
    base.cpu.cpus_loc = over.cpu.cpus_loc;
  }
  over_key(base.mm.thp, over.mm.thp);
  over_key(base.mm.thp_defrag, over.mm.thp_defrag);
  if (over.mm.dirty_max_bytes) {
    base.mm.dirty_max_bytes = over.mm.dirty_max_bytes;
    base.mm.dirty_max_loc = over.mm.dirty_max_loc;
  }

  VerifySettings& v = base.verify;
  const VerifySettings& o = over.verify;
  for (const std::string& f : o.set_fields) {
    if (f == "bench") {
      v.bench = o.bench;
      v.bench_loc = o.bench_loc;
    } else if (f == "min_effect") v.min_effect = o.min_effect;
    else if (f == "false_keep_rate") v.false_keep_rate = o.false_keep_rate;
    else if (f == "max_trials") v.max_trials = o.max_trials;
    else if (f == "guards") v.guards = o.guards;
    else if (f == "bisect") v.bisect = o.bisect;
    else if (f == "soak") v.soak = o.soak;
    else if (f == "watch_margin") v.watch_margin = o.watch_margin;
    else if (f == "budget") v.budget = o.budget;
    if (std::find(v.set_fields.begin(), v.set_fields.end(), f) == v.set_fields.end())
      v.set_fields.push_back(f);
  }
  for (const auto& [name, b] : over.benches) base.benches[name] = b;
  for (const auto& [name, g] : over.groups) {
    auto [it, fresh] = base.groups.try_emplace(name, g);
    if (fresh) continue;
    // Field by field, as [verify]: restating keep_if_neutral must not drop the
    // parent's bench = [].
    GroupSettings& base_group = it->second;
    for (const std::string& f : g.set_fields) {
      if (f == "keep_if_neutral") base_group.keep_if_neutral = g.keep_if_neutral;
      else if (f == "bisect") base_group.bisect = g.bisect;
      else if (f == "bench") base_group.bench = g.bench;
      else if (f == "soak") base_group.soak = g.soak;
      else if (f == "peer") base_group.peer = g.peer;
      else if (f == "chosen") base_group.chosen = g.chosen;
      if (std::find(base_group.set_fields.begin(), base_group.set_fields.end(), f) ==
          base_group.set_fields.end())
        base_group.set_fields.push_back(f);
    }
    base_group.members.insert(base_group.members.end(), g.members.begin(), g.members.end());
    base_group.loc = g.loc;
  }
  base.match = over.match;
  base.match_loc = over.match_loc;
}

Status apply_group_members(Profile& p, const std::vector<GroupClaim>& claims) {
  std::map<std::string, const GroupClaim*> claimed;
  for (const GroupClaim& c : claims) {
    const std::string& id = c.member.id;
    auto prev = claimed.find(id);
    if (prev != claimed.end() && prev->second->group != c.group &&
        prev->second->member.loc.file == c.member.loc.file)
      return Error::invalid(
          fmt::format("'{}' is put in group '{}' and also in group '{}' (at {})", id, c.group,
                      prev->second->group, prev->second->member.loc.str()),
          c.member.loc.str());
    claimed[id] = &c;
    bool found = false;
    auto claim = [&](std::string& group) { group = c.group, found = true; };
    auto ref = parse_group_member(id);  // the parser checked it; a merged profile too
    if (!ref.ok()) return ref.error().context(c.member.loc.str());
    const std::string& name = ref->name;
    switch (ref->kind) {
      case MemberKind::sysctl:
        for (SysctlSetting& s : p.sysctls)
          if (s.key == name) claim(s.group);
        break;
      case MemberKind::irq:
        for (IrqRule& r : p.irqs)
          if (r.glob == name) claim(r.group);
        break;
      case MemberKind::nic:
        for (NicRule& r : p.nics)
          if (r.glob == name) claim(r.group);
        break;
      case MemberKind::numa_unit:
        for (NumaBind& b : p.binds)
          if (b.unit == name) claim(b.group);
        break;
      case MemberKind::numa_cgroup:
        for (NumaBind& b : p.binds)
          if (b.cgroup == name) claim(b.group);
        break;
      case MemberKind::cpu_mm:
        if (auto* s = table_setting(p, name); s && *s) claim((*s)->group);
        break;
    }
    if (!found)
      return Error::invalid(
          fmt::format("group '{}' lists '{}', but the profile has no such setting "
                      "(members name a sysctl key or an [irq]/[nic] glob exactly as "
                      "written, or a [cpu]/[mm] key)",
                      c.group, id),
          c.member.loc.str());
  }
  return Ok{};
}

std::vector<GroupClaim> group_claims(const Profile& file_profile) {
  std::vector<GroupClaim> out;
  for (const auto& [name, g] : file_profile.groups)
    for (const GroupMember& m : g.members) out.push_back(GroupClaim{name, m});
  std::stable_sort(out.begin(), out.end(), [](const GroupClaim& a, const GroupClaim& b) {
    return std::pair(a.member.loc.line, a.member.loc.col) <
           std::pair(b.member.loc.line, b.member.loc.col);
  });
  return out;
}

Profile merge_profiles(const std::vector<Profile>& profiles) {
  Profile out;
  std::vector<std::string> names;
  for (const Profile& p : profiles) {
    merge_into(out, p);
    names.push_back(p.name);
  }
  // Matching is for automatic selection of one profile; a merge was chosen by hand.
  out.match = Match{};
  out.match_loc = SourceLoc{};
  if (profiles.size() > 1) {
    out.name = fmt::format("{}", fmt::join(names, "+"));
    out.file.clear();
    std::uint64_t h = kFnv1a64Basis;
    for (const Profile& p : profiles) h = fnv1a64(p.digest + "\n", h);
    out.digest = "fnv1a64:" + hex64(h);
  }
  return out;
}

}  // namespace tuner
