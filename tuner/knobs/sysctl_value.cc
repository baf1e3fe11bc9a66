#include "tuner/knobs/sysctl_value.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>

#include <fmt/core.h>

#include "base/strings.h"

namespace tuner {

namespace {

constexpr int64_t kIntMin = std::numeric_limits<int32_t>::min();
constexpr int64_t kIntMax = std::numeric_limits<int32_t>::max();
constexpr int64_t kUintMax = std::numeric_limits<uint32_t>::max();
constexpr int64_t kLongMax = std::numeric_limits<int64_t>::max();

/// A key's handler as Linux 6.1 declares it (net/core/sysctl_net_core.c,
/// net/ipv4/sysctl_net_ipv4.c, kernel/sysctl.c, mm/): the number of fields and each
/// field's range. Limits that depend on the build (SOCK_MIN_RCVBUF) are left at the
/// type's: a value the table lets pass is at worst refused by apply, as before.
struct KnownKey {
  std::string_view key;
  unsigned fields;
  int64_t min, max;
  bool ordered = false;  // each field at least the one before (a range)
};

constexpr std::array kKnown = {
    KnownKey{"net.core.somaxconn", 1, 0, kIntMax},
    KnownKey{"net.core.rmem_max", 1, 0, kIntMax},
    KnownKey{"net.core.wmem_max", 1, 0, kIntMax},
    KnownKey{"net.core.rmem_default", 1, 0, kIntMax},
    KnownKey{"net.core.wmem_default", 1, 0, kIntMax},
    KnownKey{"net.core.netdev_max_backlog", 1, kIntMin, kIntMax},
    KnownKey{"net.core.netdev_budget", 1, kIntMin, kIntMax},
    KnownKey{"net.core.netdev_budget_usecs", 1, 0, kIntMax},
    KnownKey{"net.core.busy_read", 1, 0, kIntMax},
    KnownKey{"net.core.busy_poll", 1, 0, kIntMax},
    KnownKey{"net.ipv4.tcp_rmem", 3, 1, kIntMax},
    KnownKey{"net.ipv4.tcp_wmem", 3, 1, kIntMax},
    KnownKey{"net.ipv4.tcp_mem", 3, 0, kLongMax},
    KnownKey{"net.ipv4.udp_mem", 3, 0, kLongMax},
    KnownKey{"net.ipv4.ip_local_port_range", 2, 1, 65535, true},
    KnownKey{"net.ipv4.ip_default_ttl", 1, 1, 255},
    KnownKey{"net.ipv4.tcp_slow_start_after_idle", 1, 0, 255},
    KnownKey{"net.ipv4.tcp_mtu_probing", 1, 0, 255},
    KnownKey{"net.ipv4.tcp_notsent_lowat", 1, 0, kUintMax},
    KnownKey{"vm.dirty_ratio", 1, 0, 100},
    KnownKey{"vm.dirty_background_ratio", 1, 0, 100},
    KnownKey{"vm.dirty_bytes", 1, 0, kLongMax},
    KnownKey{"vm.dirty_background_bytes", 1, 0, kLongMax},
    KnownKey{"vm.swappiness", 1, 0, 200},
    KnownKey{"vm.stat_interval", 1, kIntMin, kIntMax},
    KnownKey{"vm.min_free_kbytes", 1, 0, kIntMax},
    KnownKey{"vm.max_map_count", 1, 0, kIntMax},
    KnownKey{"kernel.timer_migration", 1, 0, 1},
    KnownKey{"kernel.pid_max", 1, 301, 4194304},
};

const KnownKey* known(std::string_view key) {
  for (const KnownKey& k : kKnown)
    if (k.key == key) return &k;
  return nullptr;
}

bool whole_number(std::string_view f) { return parse_i64(f) || parse_u64(f); }

/// "05000" and "0x1f": the kernel's parser takes the base from the prefix. The
/// sentence says what the kernel would make of it.
std::optional<std::string> base_prefix(std::string_view f) {
  std::string_view digits = f.substr(f[0] == '-' ? 1 : 0);
  if (digits.size() < 2 || digits[0] != '0') return std::nullopt;
  if (digits[1] == 'x' || digits[1] == 'X')
    return fmt::format("'{}': the kernel reads a number that starts with 0x as hexadecimal; "
                       "write it in decimal",
                       f);
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, 8);
  std::string as = ec == std::errc() && end == digits.data() + digits.size()
                       ? fmt::format(" ({} would be {}{})", f, f[0] == '-' ? "-" : "", v)
                       : std::string(" (and it is not valid octal: refused)");
  return fmt::format("'{}': the kernel reads a number with a leading 0 as octal{}; write it "
                     "without the 0",
                     f, as);
}

}  // namespace

Status check_sysctl_value(std::string_view key, std::string_view current,
                          std::string_view desired) {
  auto now = split_ws(current);
  auto want = split_ws(desired);
  bool numeric = !now.empty() && std::all_of(now.begin(), now.end(), whole_number);
  if (!numeric) return Ok{};
  for (std::string_view f : want)
    if (auto why = base_prefix(f)) return Error::invalid(*why, std::string(key));
  if (want.size() != now.size())
    return Error::invalid(
        fmt::format("takes {} number{} (now '{}'), not {}", now.size(), now.size() == 1 ? "" : "s",
                    normalize_ws(current), want.size()),
        std::string(key));
  for (std::string_view f : want)
    if (!whole_number(f))
      return Error::invalid(
          fmt::format("'{}' is not a whole number (or is beyond 64 bits)", std::string(f)),
          std::string(key));
  const KnownKey* k = known(key);
  if (!k) return Ok{};
  std::optional<int64_t> previous;
  for (std::string_view f : want) {
    auto v = parse_i64(f);
    if (!v || *v < k->min || *v > k->max)
      return Error::invalid(fmt::format("'{}' is out of the kernel's range for it: {} to {}",
                                        std::string(f), k->min, k->max),
                            std::string(key));
    if (k->ordered && previous && *v < *previous)
      return Error::invalid(fmt::format("'{}' is a range: its first number must not exceed the "
                                        "second",
                                        normalize_ws(desired)),
                            std::string(key));
    previous = v;
  }
  return Ok{};
}

Status check_sysctl_choice(std::string_view key, std::string_view desired,
                           const std::set<std::string>& offered) {
  std::string want = normalize_ws(desired);
  if (offered.contains(want)) return Ok{};
  std::string names;
  for (const std::string& n : offered) names += (names.empty() ? "" : ", ") + n;
  return Error::invalid(fmt::format("'{}' is not one this kernel has or can load ({})", want,
                                    names.empty() ? "none found" : names),
                        std::string(key));
}

std::optional<std::string_view> writeback_partner(std::string_view key) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 2> kPairs = {{
      {"vm.dirty_ratio", "vm.dirty_bytes"},
      {"vm.dirty_background_ratio", "vm.dirty_background_bytes"},
  }};
  for (auto [a, b] : kPairs) {
    if (key == a) return b;
    if (key == b) return a;
  }
  return std::nullopt;
}

}  // namespace tuner
