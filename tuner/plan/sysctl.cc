// Sysctl settings: exact values, ">=N" (raise only) and "<=N" (lower only). The
// current value is the sysctl knob's read(), whitespace-normalised. With [mm]
// dirty_max_bytes, a writeback ratio that stands for more dirty page cache than that on
// this node's memory is planned as the byte limit instead, never below the kernel's own
// ratios; a writeback limit a site set stricter is kept (sysctl_writeback.cc).
#include <algorithm>
#include <cerrno>

#include <fmt/core.h>

#include "base/strings.h"
#include "tuner/knobs/sysctl_netns.h"
#include "tuner/knobs/sysctl_value.h"
#include "tuner/plan/builder.h"

namespace tuner::planner_detail {
namespace {

/// Exact values match when their normalised text does, or field by field as numbers
/// ("4096 87380 6291456" against "4096  087380 6291456").
bool same_value(const std::string& current, const std::string& desired) {
  if (normalize_ws(current) == normalize_ws(desired)) return true;
  auto a = split_ws(current), b = split_ws(desired);
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto c = compare_integers(a[i], b[i]);
    if (a[i] != b[i] && (!c || *c != 0)) return false;
  }
  return true;
}

bool numbers_only(const std::string& text) {
  auto fields = split_ws(text);
  return !fields.empty() && std::all_of(fields.begin(), fields.end(), [](std::string_view f) {
    return parse_i64(f).has_value() || parse_u64(f).has_value();
  });
}

/// A sysctl that holds numbers takes numbers: text there (">5000" meant as ">=5000",
/// "nan", "1,2") would pass the plan and fail only when apply writes it, after other
/// changes were made. The kernel's integer handlers parse every field as a number.
Status check_numbers(const SysctlSetting& s, const std::string& current) {
  if (s.op != SysctlSetting::Op::set || !numbers_only(current) || numbers_only(s.value))
    return Ok{};
  std::string hint;
  std::string v = normalize_ws(s.value);
  if (!v.empty() && (v[0] == '>' || v[0] == '<' || v[0] == '='))
    hint = " (raise only is \">=N\", lower only \"<=N\")";
  return error_at(s.loc, fmt::format("sysctl '{}' holds numbers ('{}'): '{}' is not numbers, so "
                                     "the kernel would refuse it{}",
                                     s.key, current, v, hint));
}

/// A raise-only (">=") or lower-only ("<=") bound against the current value, field by
/// field: each field below (above) its bound takes the bound, the others stay. A
/// site's larger tcp_rmem maximum is kept while the profile raises the default.
Result<std::string> apply_bound(const SysctlSetting& s, const std::string& current) {
  auto now = split_ws(current), bound = split_ws(s.value);
  const char* op = s.op == SysctlSetting::Op::at_least ? ">=" : "<=";
  if (now.size() != bound.size())
    return error_at(
        s.loc, fmt::format("sysctl '{}' is '{}': {} field{}, and '{}{}' bounds {}", s.key, current,
                           now.size(), now.size() == 1 ? "" : "s", op, s.value, bound.size()));
  std::string out;
  for (std::size_t i = 0; i < now.size(); ++i) {
    auto cmp = compare_integers(now[i], bound[i]);
    if (!cmp)
      return error_at(s.loc, fmt::format("sysctl '{}' is '{}', not whole numbers, so '{}' cannot "
                                         "compare it",
                                         s.key, current, op));
    bool keep = s.op == SysctlSetting::Op::at_least ? *cmp >= 0 : *cmp <= 0;
    out += (i ? " " : "") + std::string(keep ? now[i] : bound[i]);
  }
  return out;
}

/// A net.* key planned from a network namespace other than the initial one.
bool outside_initial_netns(const PlanBuilder& b, const std::string& key) {
  return key.rfind("net.", 0) == 0 && b.inventory.host.initial_net_namespace == false;
}

std::string describe(const SysctlSetting& s) {
  std::string where = short_loc(s.loc);
  std::string suffix = where.empty() ? "" : " (" + where + ")";
  switch (s.op) {
    case SysctlSetting::Op::at_least: return "raise only: profile asks >= " + s.value + suffix;
    case SysctlSetting::Op::at_most: return "lower only: profile asks <= " + s.value + suffix;
    case SysctlSetting::Op::set: break;
  }
  return "profile sets " + normalize_ws(s.value) + suffix;
}

std::string listed(const std::vector<std::string>& keys) {
  std::string out;
  for (std::size_t i = 0; i < keys.size(); ++i)
    out += (i == 0 ? "" : i + 1 == keys.size() ? " and " : ", ") + keys[i];
  return out;
}

/// net.* sysctls are per network namespace. The plan names its changes that network
/// namespaces created later (pods, containers) do not get, starting them at the
/// kernel's default, and says that the namespaces that exist keep their own values of
/// every per-namespace change. Keys a new namespace copies from the initial one, keys
/// the machine shares, and an interface's are not named (tuner/knobs/sysctl_netns.h).
void note_net_namespaces(PlanBuilder& b) {
  std::vector<std::string> fresh;
  bool per_namespace = false;
  // Outside the initial namespace, a new namespace copies nothing from this one.
  bool initial = b.inventory.host.initial_net_namespace != false;
  for (const Change& c : b.plan.changes) {
    if (c.knob.rfind("sysctl:", 0) != 0) continue;
    std::string key = c.knob.substr(7);
    auto gets = new_netns_gets(key);
    if (gets == NewNetns::kernel_default || (gets == NewNetns::copied && !initial))
      fresh.push_back(key);
    per_namespace |= gets == NewNetns::kernel_default || gets == NewNetns::copied;
  }
  std::sort(fresh.begin(), fresh.end());
  unsigned others = b.inventory.host.other_net_namespaces.value_or(0);
  std::string text = "net.* sysctls are per network namespace: ";
  if (!fresh.empty())
    text += fmt::format("network namespaces created later (pods, containers) start {} at the "
                        "kernel's default, not at this plan's value{} (a pod sets its own: "
                        "securityContext.sysctls)",
                        listed(fresh), fresh.size() == 1 ? "" : "s");
  if (per_namespace && others)
    text += fmt::format("{}the {} other namespace{} with processes here (containers) keep{} "
                        "their own values",
                        fresh.empty() ? "" : "; ", others, others == 1 ? "" : "s",
                        others == 1 ? "s" : "");
  if (!fresh.empty() || (per_namespace && others)) b.note("", text);
}

}  // namespace

Status plan_sysctl(PlanBuilder& b, const SysctlSetting& s, const std::string& why) {
  auto id = KnobId::sysctl(s.key);
  if (!id.ok()) return error_at(s.loc, id.error().message());
  Change change{id->str(), s.group.empty() ? "sysctl" : s.group, std::nullopt,
                normalize_ws(s.value), why + describe(s)};
  WritebackCap cap = cap_writeback(b, s, change);
  if (!b.current.readable()) {
    b.add(std::move(change), false);
    return Ok{};
  }
  CurrentValue cur = b.current.get(*id);
  if (cur.state == CurrentValue::State::missing) {
    // Outside the initial network namespace the kernel hides the global net.*
    // sysctls: a container cannot change them, and that is not the profile's error.
    if (outside_initial_netns(b, s.key)) {
      b.note(id->str(), "not in this network namespace (a global setting of the initial "
                        "one): skipped");
      return Ok{};
    }
    return error_at(s.loc, cur.why);
  }
  if (cur.state == CurrentValue::State::unknown) {
    change.reason += "; current value unreadable: " + cur.why;
    b.add(std::move(change), false);
    return Ok{};
  }
  change.current = cur.value;
  if (Status numbers = check_numbers(s, cur.value); !numbers.ok()) return numbers;
  bool done = false;
  bool partner_in_force = writeback_partner(s.key) && cur.value.find('=') != std::string::npos;
  if (cap.capped) {
    done = cur.value == change.desired;
    if (done && !cap.unchanged_note.empty()) b.note(change.knob, cap.unchanged_note);
  } else if (partner_in_force) {
    // "vm.dirty_bytes=1073741824": the other key of the pair is in force; writing this
    // one replaces it, and rollback puts the other back.
    change.reason += "; " + cur.value.substr(0, cur.value.find('=')) +
                     " is in force: this replaces it (the kernel keeps one of the two)";
  } else if (s.op == SysctlSetting::Op::set) {
    done = same_value(cur.value, s.value);
  } else {
    auto bounded = apply_bound(s, cur.value);
    if (!bounded.ok()) return bounded.error();
    change.desired = *bounded;
    done = same_value(cur.value, change.desired);
  }
  if (!done && !swappiness_allowed(b, s, change)) return Ok{};
  if (!done && writeback_partner(s.key) &&
      !writeback_allowed(b, s, change, memory_bytes(b.inventory)))
    return Ok{};
  if (!done) {
    // What the kernel would refuse (a read-only key, a vector's field count, a leading
    // zero, a value out of the handler's range): here, not after apply's other writes.
    auto want = b.current.canonical(*id, change.desired);
    // Outside the initial network namespace the kernel shows some global net.* keys
    // read-only (net.core.rmem_max): as for a hidden one, not the profile's error.
    if (!want.ok() && want.error().err == EACCES && outside_initial_netns(b, s.key)) {
      b.note(id->str(), "read-only in this network namespace (a global setting of the "
                        "initial one): skipped");
      return Ok{};
    }
    if (!want.ok()) return error_at(s.loc, change.knob + ": " + want.error().what);
  }
  b.add(std::move(change), done);
  return Ok{};
}

Status plan_sysctls(PlanBuilder& b) {
  for (const SysctlSetting& s : b.profile.sysctls) {
    // A writeback pair is one setting in the kernel: a profile says one of the two.
    if (auto partner = writeback_partner(s.key))
      for (const SysctlSetting& o : b.profile.sysctls)
        if (o.key == *partner && &o > &s)
          return error_at(o.loc, fmt::format("'{}' and '{}' are one setting in the kernel "
                                             "(writing one zeroes the other): set one of them",
                                             s.key, o.key));
    if (Status st = plan_sysctl(b, s); !st.ok()) return st;
  }
  note_net_namespaces(b);
  return Ok{};
}

}  // namespace tuner::planner_detail
