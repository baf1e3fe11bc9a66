#include "tuner/plan/planner.h"

#include <algorithm>
#include <cctype>

#include "base/strings.h"
#include "probes/sysctl.h"
#include "tuner/knobs/knob.h"
#include "tuner/plan/builder.h"

namespace tuner {
namespace planner_detail {

void PlanBuilder::add(Change change, bool already_desired) {
  if (already_desired) ++plan.unchanged;
  else plan.changes.push_back(std::move(change));
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
  static const char* kinds[] = {"sysctl:", "irq:", "nic:", "numa:", "irqbalance:"};
  for (int i = 0; i < 5; ++i)
    if (starts_with(id, kinds[i])) return i;
  return 5;
}

}  // namespace planner_detail

using namespace planner_detail;

CurrentValue RootCurrentValues::get(const std::string& id) const {
  const Root& root = target_.root;
  if (starts_with(id, "sysctl:")) {
    std::string key = id.substr(7);
    // A capture of /sys and /proc without proc/sys (hwloc's test trees) cannot say
    // whether a key exists: its value is unknown, not missing.
    if (!root.is_live() && !root.exists("proc/sys"))
      return {CurrentValue::State::unknown, "", root.dir() + " has no proc/sys"};
    auto path = sysctl_path(root, key);
    if (!path.ok()) {
      if (path.error().err == ENOENT)
        return {CurrentValue::State::missing, "",
                "sysctl key '" + key + "' does not exist on this machine"};
      return {CurrentValue::State::missing, "", path.error().message()};
    }
    auto value = read_sysctl(root, key);
    if (!value.ok()) return {CurrentValue::State::unknown, "", value.error().message()};
    return {CurrentValue::State::known, normalize_ws(*value), ""};
  }
  if (starts_with(id, "numa:unit:")) {
    std::string path = "etc/systemd/system/" + id.substr(10) + ".d/tuner-numa.conf";
    auto text = root.read(path);
    if (!text.ok()) {
      if (text.error().err == ENOENT) return {CurrentValue::State::known, "none", ""};
      return {CurrentValue::State::unknown, "", text.error().message()};
    }
    return {CurrentValue::State::known, parse_numa_dropin(*text), ""};
  }
  if (starts_with(id, "numa:cgroup:/sys/fs/cgroup/")) {
    // The id names the cgroup v2 path; a v1 machine keeps cpusets under cpuset/.
    std::string rel = id.substr(12 + std::string_view("/sys/fs/cgroup/").size());
    for (std::string dir : {"sys/fs/cgroup/" + rel, "sys/fs/cgroup/cpuset/" + rel}) {
      if (!root.exists(dir)) continue;
      auto cpus = root.read(dir + "/cpuset.cpus");
      auto mems = root.read(dir + "/cpuset.mems");
      if (!cpus.ok()) return {CurrentValue::State::unknown, "", cpus.error().message()};
      if (!mems.ok()) return {CurrentValue::State::unknown, "", mems.error().message()};
      auto value = canonical_binding(*cpus, *mems);
      if (!value.ok()) return {CurrentValue::State::unknown, "", dir + ": " + value.error().what};
      return {CurrentValue::State::known, *value, ""};
    }
    if (!root.is_live() && !root.exists("sys/fs/cgroup"))
      return {CurrentValue::State::unknown, "", root.dir() + " has no sys/fs/cgroup"};
    return {CurrentValue::State::missing, "",
            "cgroup '" + rel + "' does not exist on this machine (no /sys/fs/cgroup/" + rel +
                " or /sys/fs/cgroup/cpuset/" + rel + ")"};
  }
  if (id == "irqbalance:banned") {
    // The ban list lives in the drop-in the irqbalance knob writes; its read() is the
    // one definition of the value ("none" or "57,58").
    if (!root.exists("etc/systemd/system")) return {CurrentValue::State::known, "none", ""};
    KnobContext ctx{root};
    if (!root.is_live()) ctx.systemd_dir = root.dir() + "/etc/systemd/system";
    auto knob = make_knob(id, ctx);
    if (!knob.ok()) return {CurrentValue::State::unknown, "", knob.error().message()};
    auto value = (*knob)->read();
    if (!value.ok()) return {CurrentValue::State::unknown, "", value.error().message()};
    return {CurrentValue::State::known, *value, ""};
  }
  return {CurrentValue::State::unknown, "", "no reader for " + id};
}

Result<Plan> make_plan_with(const Profile& profile, const Inventory& inventory,
                            const CurrentValues& current) {
  PlanBuilder b{profile, inventory, current, {}, {}};
  b.plan.profiles = profile.chain;
  for (auto step : {plan_sysctls, plan_irqs, plan_nics, plan_numa}) {
    Status s = step(b);
    if (!s.ok()) return s.error();
  }
  b.flush_notes();
  std::stable_sort(b.plan.changes.begin(), b.plan.changes.end(),
                   [](const Change& x, const Change& y) {
                     if (x.group != y.group) return x.group < y.group;
                     int kx = kind_rank(x.knob), ky = kind_rank(y.knob);
                     if (kx != ky) return kx < ky;
                     return natural_less(x.knob, y.knob);
                   });
  return std::move(b.plan);
}

Result<Plan> make_plan(const Profile& profile, const Inventory& inventory, const Target& target) {
  RootCurrentValues current(target);
  return make_plan_with(profile, inventory, current);
}

}  // namespace tuner
