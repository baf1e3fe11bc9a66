#include "tuner/check/finding.h"

#include <algorithm>
#include <tuple>

#include "base/enum_names.h"

namespace tuner {

namespace {

constexpr std::array<EnumName<Severity>, 3> kSeverities = {{
    {Severity::info, "info"},
    {Severity::warning, "warning"},
    {Severity::error, "error"},
}};
static_assert(in_enum_order(kSeverities));

}  // namespace

const char* severity_name(Severity s) { return enum_name(kSeverities, s); }

std::optional<Severity> parse_severity(std::string_view name) {
  return enum_from_name(kSeverities, name);
}

// One row per rule, in enum order: a rule added without its row stops the build.
static_assert([] {
  for (std::size_t i = 0; i < kAllRules.size(); ++i)
    if (kAllRules[i].rule != static_cast<Rule>(i) || kAllRules[i].name.empty()) return false;
  return true;
}());

// The names are literals, so their data() ends in a NUL.
const char* rule_name(Rule r) { return kAllRules.at(static_cast<std::size_t>(r)).name.data(); }

const std::vector<Rule>& all_rules() {
  static const std::vector<Rule> rules = [] {
    std::vector<Rule> out;
    out.reserve(kAllRules.size());
    for (const RuleInfo& r : kAllRules) out.push_back(r.rule);
    return out;
  }();
  return rules;
}

std::optional<Severity> CheckReport::worst() const {
  std::optional<Severity> w;
  for (const Finding& f : findings)
    if (!w || f.severity > *w) w = f.severity;
  return w;
}

unsigned CheckReport::count(Severity s) const {
  return static_cast<unsigned>(
      std::ranges::count_if(findings, [s](const Finding& f) { return f.severity == s; }));
}

unsigned CheckReport::unreadable() const {
  return static_cast<unsigned>(
      std::ranges::count_if(skipped, [](const Skipped& s) { return s.unreadable; }));
}

void sort_findings(std::vector<Finding>& findings) {
  std::ranges::stable_sort(findings, [](const Finding& a, const Finding& b) {
    return std::make_tuple(-static_cast<int>(a.severity), static_cast<int>(a.rule), a.subject) <
           std::make_tuple(-static_cast<int>(b.severity), static_cast<int>(b.rule), b.subject);
  });
}

}  // namespace tuner
