// Writeback limits weighed as the kernel enforces them: a ratio of memory or bytes, the
// pair's key in force. A profile moves a limit the kernel's default left as it is, and
// lowers a limit a site set looser than its own; it never loosens a limit a site set
// stricter (issue 42: latency's 10% on a database host with dirty_bytes = 1 GiB).
// [mm] dirty_max_bytes trims a ratio above the kernel's default on a large node, but
// never below what the kernel's own ratios stand for there (profiles/REVIEW.md T1).
#include <algorithm>

#include <fmt/core.h>

#include "base/strings.h"
#include "tuner/knobs/sysctl_value.h"
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
constexpr uint64_t kKernelDirtyRatio = 20, kKernelBackgroundRatio = 10;

bool kernel_default(const Limit& l) {
  return (l.key == "vm.dirty_ratio" && l.number == kKernelDirtyRatio) ||
         (l.key == "vm.dirty_background_ratio" && l.number == kKernelBackgroundRatio);
}

/// percent% of bytes; 128-bit, as 2^62 bytes of memory times 100 does not fit 64 bits.
uint64_t share(uint64_t bytes, uint64_t percent) {
  return static_cast<uint64_t>(static_cast<unsigned __int128>(bytes) * percent / 100);
}

std::string gib(uint64_t bytes) {
  return fmt::format("{:.0f} GiB", static_cast<double>(bytes) / (1ull << 30));
}

/// Bytes of dirty page cache the limit allows at most: a ratio is of all memory here
/// (the kernel takes it of dirtyable memory, less). nullopt: memory unknown.
std::optional<uint64_t> bytes_of(const Limit& l, std::optional<uint64_t> memory) {
  if (!l.ratio()) return l.number;
  if (!memory) return std::nullopt;
  return share(*memory, l.number);
}

std::string show(const Limit& l, std::optional<uint64_t> bytes) {
  std::string v = l.ratio() ? fmt::format("{} = {}%", l.key, l.number)
                            : fmt::format("{} = {}", l.key, l.number);
  if (bytes && (l.ratio() || *bytes >= (1ull << 20)))
    v += fmt::format(" ({:.1f} GiB)", static_cast<double>(*bytes) / (1ull << 30));
  return v;
}

}  // namespace

std::optional<uint64_t> memory_bytes(const Inventory& inv) {
  uint64_t total = 0;
  for (const NumaNode& n : inv.topology.numa_nodes) {
    if (!n.memory_bytes) return std::nullopt;
    total += *n.memory_bytes;
  }
  return total ? std::optional<uint64_t>(total) : std::nullopt;
}

WritebackCap cap_writeback(PlanBuilder& b, const SysctlSetting& s, Change& change) {
  const auto& cap = b.profile.mm.dirty_max_bytes;
  bool background = s.key == "vm.dirty_background_ratio";
  if (!cap || s.op != SysctlSetting::Op::set || (s.key != "vm.dirty_ratio" && !background))
    return {};
  const SysctlSetting* dirty = &s;
  if (background) {
    dirty = nullptr;
    for (const SysctlSetting& o : b.profile.sysctls)
      if (o.key == "vm.dirty_ratio" && o.op == SysctlSetting::Op::set) dirty = &o;
    if (!dirty) return {};  // the cap is of vm.dirty_ratio's limit
  }
  auto memory = memory_bytes(b.inventory);
  auto ratio = parse_u64(dirty->value), own = parse_u64(s.value);
  if (!memory || !ratio || !own || *ratio == 0 || *ratio > 100) {
    if (!memory && !background)
      b.note(change.knob, "memory size unknown: [mm] dirty_max_bytes cannot be weighed, the "
                          "ratio is planned as given");
    return {};
  }
  uint64_t limit = share(*memory, *ratio);
  if (limit <= *cap) return {};
  std::string why = fmt::format(
      "{}% of this node's {} would allow {} of dirty page cache, above [mm] dirty_max_bytes {} "
      "({})",
      *ratio, gib(*memory), gib(limit), gib(*cap), short_loc(b.profile.mm.dirty_max_loc));
  // The cap trims a ratio above the kernel's default, never below it: a byte limit is
  // also every memcg's (domain_dirty_limits() turns vm.dirty_bytes into a share of the
  // node's memory for each cgroup), so a cap under the kernel's 20% shrinks every
  // container's dirty limit with the node's.
  if (*ratio <= kKernelDirtyRatio) {
    if (!background)
      b.note(change.knob, fmt::format("{}; the cap never takes a limit below the kernel's {}%: "
                                      "the profile's {}% stands",
                                      why, kKernelDirtyRatio, *ratio));
    return {};
  }
  // The dirty limit: the cap, or the kernel's 20% where that is more. The background
  // limit keeps its share of it, but not below the kernel's 10% (or the profile's own
  // ratio, where that is less).
  uint64_t kernel_dirty = share(*memory, kKernelDirtyRatio);
  uint64_t dirty_bytes = std::max(*cap, kernel_dirty);
  uint64_t percent = background ? std::min(*own, kKernelBackgroundRatio) : kKernelDirtyRatio;
  uint64_t floor = share(*memory, percent);
  uint64_t bytes = background ? static_cast<uint64_t>(static_cast<unsigned __int128>(dirty_bytes) *
                                                      *own / *ratio)
                              : dirty_bytes;
  bytes &= ~((uint64_t{1} << 20) - 1);  // whole MiB
  std::string partner(*writeback_partner(s.key));
  if (bytes > floor) {
    change.desired = partner + "=" + std::to_string(bytes);
    change.reason +=
        fmt::format("; {}, and the kernel's own {}% is {}: {} = {} instead", why, kKernelDirtyRatio,
                    gib(kernel_dirty), partner,
                    background ? gib(bytes) + " (the same share of the dirty limit)" : gib(bytes));
    return {true, ""};
  }
  // The kernel's ratio: what it stands for is at least the byte limit would be.
  std::string kernel =
      background
          ? fmt::format("[mm] dirty_max_bytes ({}): the background limit's share of the "
                        "dirty limit ({}) would be below the kernel's {}% ({})",
                        short_loc(b.profile.mm.dirty_max_loc), gib(bytes), percent, gib(floor))
          : fmt::format("{}; the kernel's own {}% ({}) is already above the cap", why, percent,
                        gib(floor));
  change.desired = std::to_string(percent);
  change.reason += fmt::format("; {}: {}% instead", kernel, percent);
  return {true, fmt::format("{}: left as it is (the cap never goes below the kernel's own "
                            "limits: a byte limit shrinks every container's too)",
                            kernel)};
}

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
