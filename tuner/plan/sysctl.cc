// Sysctl settings: exact values, ">=N" (raise only) and "<=N" (lower only). The
// current value is the sysctl knob's read(), whitespace-normalised.
#include "base/strings.h"
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

}  // namespace

Status plan_sysctls(PlanBuilder& b) {
  for (const SysctlSetting& s : b.profile.sysctls) {
    auto id = KnobId::sysctl(s.key);
    if (!id.ok()) return error_at(s.loc, id.error().message());
    Change change{id->str(), s.group.empty() ? "sysctl" : s.group, std::nullopt,
                  normalize_ws(s.value), describe(s)};
    if (!b.current.readable()) {
      b.add(std::move(change), false);
      continue;
    }
    CurrentValue cur = b.current.get(*id);
    if (cur.state == CurrentValue::State::missing) return error_at(s.loc, cur.why);
    if (cur.state == CurrentValue::State::unknown) {
      change.reason += "; current value unreadable: " + cur.why;
      b.add(std::move(change), false);
      continue;
    }
    change.current = cur.value;
    bool done = false;
    if (s.op == SysctlSetting::Op::set) {
      done = same_value(cur.value, s.value);
    } else {
      auto cmp = compare_integers(cur.value, s.value);
      if (!cmp)
        return error_at(
            s.loc, "sysctl '" + s.key + "' is '" + cur.value + "', not a single number, so '" +
                       (s.op == SysctlSetting::Op::at_least ? ">=" : "<=") + "' cannot compare it");
      done = s.op == SysctlSetting::Op::at_least ? *cmp >= 0 : *cmp <= 0;
    }
    b.add(std::move(change), done);
  }
  return Ok{};
}

}  // namespace tuner::planner_detail
