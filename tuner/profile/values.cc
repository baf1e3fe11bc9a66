#include "tuner/profile/values.h"

#include <algorithm>
#include <array>
#include <cctype>

#include <fmt/core.h>

#include "base/enum_names.h"
#include "base/strings.h"
#include "tuner/profile/profile.h"

namespace tuner {

namespace {

constexpr std::array<EnumName<IrqPolicy>, 3> kIrqPolicies = {{
    {IrqPolicy::numa_local, "numa-local"},
    {IrqPolicy::spread, "spread"},
    {IrqPolicy::pin, "pin"},
}};
static_assert(in_enum_order(kIrqPolicies));

constexpr std::array<EnumName<IrqbalanceAction>, 3> kIrqbalanceActions = {{
    {IrqbalanceAction::leave, "leave"},
    {IrqbalanceAction::ban, "ban"},
    {IrqbalanceAction::stop, "stop"},
}};
static_assert(in_enum_order(kIrqbalanceActions));

constexpr std::array<EnumName<LinkKind>, 2> kLinkKinds = {{
    {LinkKind::ethernet, "ethernet"},
    {LinkKind::infiniband, "infiniband"},
}};
static_assert(in_enum_order(kLinkKinds));

}  // namespace

const char* irq_policy_name(IrqPolicy p) { return enum_name(kIrqPolicies, p); }
std::optional<IrqPolicy> parse_irq_policy(std::string_view name) {
  return enum_from_name(kIrqPolicies, name);
}
const char* irqbalance_action_name(IrqbalanceAction a) { return enum_name(kIrqbalanceActions, a); }
std::optional<IrqbalanceAction> parse_irqbalance_action(std::string_view name) {
  return enum_from_name(kIrqbalanceActions, name);
}
const char* link_kind_name(LinkKind k) { return enum_name(kLinkKinds, k); }
std::optional<LinkKind> parse_link_kind(std::string_view name) {
  return enum_from_name(kLinkKinds, name);
}
unsigned link_kind_arphrd(LinkKind k) { return k == LinkKind::infiniband ? 32u : 1u; }

namespace {

Error bad(std::string what) { return Error::invalid(std::move(what), ""); }

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

bool printable(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return static_cast<unsigned char>(c) >= 0x20 && c != 0x7f; });
}

}  // namespace

std::string did_you_mean(std::string_view key, const std::vector<std::string_view>& allowed) {
  std::string_view best;
  std::size_t best_d = 3;  // more than two edits away is a different word, not a typo
  for (std::string_view a : allowed) {
    std::size_t d = edit_distance(key, a);
    if (d < best_d) best_d = d, best = a;
  }
  return best.empty() ? "" : fmt::format("; did you mean '{}'?", best);
}

Result<SysctlSetting> parse_sysctl_text(std::string_view text) {
  SysctlSetting s;
  std::string_view t = trim(text);
  if (starts_with(t, ">=") || starts_with(t, "<=")) {
    // One bound per field: ">=4096 131072 33554432" raises each field of a vector that
    // is below it and leaves the others (a site's larger maximum stays).
    auto fields = split_ws(t.substr(2));
    std::string bound;
    bool numbers = !fields.empty();
    for (std::string_view f : fields) {
      auto n = parse_i64(f);
      numbers = numbers && n;
      if (n) bound += (bound.empty() ? "" : " ") + std::to_string(*n);
    }
    if (!numbers)
      return bad(fmt::format("'{}' is not a bound: after '{}' whole numbers are needed (one per "
                             "field)",
                             text, t.substr(0, 2)));
    s.op = t[0] == '>' ? SysctlSetting::Op::at_least : SysctlSetting::Op::at_most;
    s.value = bound;
    return s;
  }
  std::string blanks_as_spaces(text);
  std::replace_if(
      blanks_as_spaces.begin(), blanks_as_spaces.end(),
      [](char c) { return c == '\t' || c == '\n'; }, ' ');
  if (!printable(blanks_as_spaces))
    return bad("control characters are not allowed in a sysctl value");
  s.value = normalize_ws(text);
  if (s.value.empty()) return bad("empty sysctl value");
  if (s.value.size() > 4096) return bad("sysctl value longer than 4096 bytes");
  return s;
}

Status check_name_glob(std::string_view glob) {
  if (glob.empty()) return bad("empty interface name glob");
  if (glob.size() > 64) return bad("interface name glob longer than 64 characters");
  for (char c : glob)
    if (c == '/' || c == ':' || static_cast<unsigned char>(c) <= 0x20 || c == 0x7f)
      return bad(fmt::format("interface name glob '{}' may not contain '/', ':', blanks or "
                             "control characters",
                             glob));
  // fnmatch(3) takes a '[' without its ']' as a literal '[' and a range written high to
  // low as matching nothing: either would make the rule match no interface, silently.
  for (std::size_t i = 0; i < glob.size(); ++i) {
    if (glob[i] == '\\') {
      if (++i == glob.size())
        return bad(fmt::format("interface name glob '{}' ends in '\\' (escaping nothing)", glob));
      continue;
    }
    if (glob[i] != '[') continue;
    std::size_t j = i + 1;
    if (j < glob.size() && (glob[j] == '!' || glob[j] == '^')) ++j;
    if (j < glob.size() && glob[j] == ']') ++j;  // a ']' first is a member
    std::size_t close = glob.find(']', j);
    if (close == std::string_view::npos)
      return bad(fmt::format("interface name glob '{}' has a '[' without its ']' (a literal '[' "
                             "is written '\\[')",
                             glob));
    for (std::size_t k = i + 1; k + 2 < close + 1; ++k)
      if (glob[k + 1] == '-' && k + 2 < close && glob[k] > glob[k + 2])
        return bad(fmt::format("interface name glob '{}' has the range '{}-{}', which matches "
                               "nothing (write it low to high)",
                               glob, glob[k], glob[k + 2]));
    i = close;
  }
  return Ok{};
}

Status check_plain_name(std::string_view name, std::string_view what) {
  if (name.empty() || name.size() > 64)
    return bad(fmt::format("{} must be 1 to 64 characters", what));
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'))
      return bad(fmt::format("{} '{}' has '{}': only [A-Za-z0-9_-] are allowed", what, name, c));
  return Ok{};
}

Status check_device_name(std::string_view near) {
  if (near.empty() || near.size() > 64)
    return bad("'near' must name a device (1 to 64 characters)");
  for (char c : near)
    if (c == '/' || static_cast<unsigned char>(c) <= 0x20 || c == 0x7f)
      return bad(
          fmt::format("'near' = '{}' may not contain '/', blanks or control characters", near));
  return Ok{};
}

bool Comparison::holds(int64_t x) const {
  switch (op) {
    case Op::ge: return x >= value;
    case Op::le: return x <= value;
    case Op::eq: break;
  }
  return x == value;
}

std::string Comparison::str() const {
  return (op == Op::ge ? ">=" : op == Op::le ? "<=" : "") + std::to_string(value);
}

Result<Comparison> parse_comparison(std::string_view text) {
  Comparison c;
  std::string_view t = trim(text);
  if (starts_with(t, ">=")) c.op = Comparison::Op::ge, t.remove_prefix(2);
  else if (starts_with(t, "<=")) c.op = Comparison::Op::le, t.remove_prefix(2);
  auto n = parse_u64(trim(t));
  if (!n || *n > 1'000'000)
    return bad(fmt::format("'{}' is not a condition: write \"N\", \">=N\" or \"<=N\"", text));
  c.value = static_cast<int64_t>(*n);
  return c;
}

}  // namespace tuner
