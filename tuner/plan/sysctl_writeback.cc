// Writeback limits weighed as the kernel enforces them: a ratio of memory or bytes, the
// pair's key in force. A profile moves a limit the kernel's default left as it is, and
// lowers a limit a site set looser than its own; it never loosens a limit a site set
// stricter (issue 42: latency's 10% on a database host with dirty_bytes = 1 GiB).
#include <fmt/core.h>

#include "base/strings.h"
#include "tuner/plan/builder.h"

namespace tuner::planner_detail {
namespace {

struct Limit {
  std::string key;      // the pair's key in force
  uint64_t number = 0;  // its value: a percentage or bytes
  bool ratio() const { return key.ends_with("_ratio"); }
};

/// "20" on vm.dirty_ratio, or "vm.dirty_bytes=1073741824" (the partner in force), as the
/// sysctl knob reads and plan desires them.
std::optional<Limit> parse_limit(std::string_view key, std::string_view value) {
  Limit l;
  auto eq = value.find('=');
  l.key = std::string(eq == std::string_view::npos ? key : value.substr(0, eq));
  auto n = parse_u64(eq == std::string_view::npos ? value : value.substr(eq + 1));
  if (!n) return std::nullopt;
  l.number = *n;
  return l;
}

/// What the kernel sets at boot (mm/page-writeback.c): ratios 20 and 10, no bytes.
bool kernel_default(const Limit& l) {
  return (l.key == "vm.dirty_ratio" && l.number == 20) ||
         (l.key == "vm.dirty_background_ratio" && l.number == 10);
}

/// Bytes of dirty page cache the limit allows at most: a ratio is of all memory here
/// (the kernel takes it of dirtyable memory, less). nullopt: memory unknown.
std::optional<uint64_t> bytes_of(const Limit& l, std::optional<uint64_t> memory) {
  if (!l.ratio()) return l.number;
  if (!memory) return std::nullopt;
  return static_cast<uint64_t>(static_cast<unsigned __int128>(*memory) * l.number / 100);
}

std::string show(const Limit& l, std::optional<uint64_t> bytes) {
  std::string v = l.ratio() ? fmt::format("{} = {}%", l.key, l.number)
                            : fmt::format("{} = {}", l.key, l.number);
  if (bytes && (l.ratio() || *bytes >= (1ull << 20)))
    v += fmt::format(" ({:.1f} GiB)", static_cast<double>(*bytes) / (1ull << 30));
  return v;
}

}  // namespace

bool writeback_allowed(PlanBuilder& b, const SysctlSetting& s, Change& change,
                       std::optional<uint64_t> memory) {
  if (s.op != SysctlSetting::Op::set || !change.current) return true;
  auto now = parse_limit(s.key, *change.current), want = parse_limit(s.key, change.desired);
  if (!now || !want) return true;  // not numbers: check_numbers and the knob say so
  auto now_bytes = bytes_of(*now, memory), want_bytes = bytes_of(*want, memory);
  std::optional<int> order;  // want against now: -1 stricter, 0 alike, 1 looser
  if (now_bytes && want_bytes)
    order = *want_bytes < *now_bytes ? -1 : *want_bytes > *now_bytes ? 1 : 0;
  else if (now->ratio() == want->ratio())
    order = want->number < now->number ? -1 : want->number > now->number ? 1 : 0;
  std::string effective = fmt::format("{} -> {}", show(*now, now_bytes), show(*want, want_bytes));
  if (kernel_default(*now) || (order && *order < 0)) {
    change.reason += "; effective limit " + effective;
    return true;
  }
  b.note(change.knob,
         order ? fmt::format("the site's limit is as strict or stricter than the profile's ({}): "
                             "kept (a profile never loosens a writeback limit a site set)",
                             effective)
               : fmt::format("memory size unknown: the site's {} cannot be weighed against the "
                             "profile's {}: kept (a profile never loosens a writeback limit a "
                             "site set)",
                             show(*now, now_bytes), show(*want, want_bytes)));
  return false;
}

}  // namespace tuner::planner_detail
