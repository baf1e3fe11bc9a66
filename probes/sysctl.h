// Sysctl probe: key validation and reads under /proc/sys.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "base/unique_fd.h"
#include "probes/root.h"

namespace tuner {

/// Longest key accepted, and longest dotted segment (interface names are at most 15).
inline constexpr std::size_t kMaxSysctlKey = 255;
inline constexpr std::size_t kMaxSysctlSegment = 64;

/// Syntax-only check (no file system access). A key is at least two dotted segments of
/// [A-Za-z0-9_-] ("net.core.rmem_max"): no empty segment (so no "..", leading or
/// trailing dot), no NUL or other byte, at most kMaxSysctlKey / kMaxSysctlSegment
/// characters. Like sysctl(8), a '/' inside a segment other than the first stands for
/// a '.' in the file name, which is how a VLAN's settings are named:
/// "net.ipv4.conf.eth0/100.rp_filter" is proc/sys/net/ipv4/conf/eth0.100/rp_filter.
/// The '/'-separated parts must be non-empty [A-Za-z0-9_-] too, so no segment can
/// become "." or "..". The Error's `where` is the key (escaped) and `what` names the
/// offending character and its 1-based column.
Status check_sysctl_key_syntax(std::string_view key);

/// Checks a key's syntax and that it is a regular file under proc/sys of root, reached
/// without following any symlink (/proc/sys has none, so a link in a capture or a
/// crafted root is refused rather than resolved). Returns the relative path
/// ("proc/sys/net/core/rmem_max").
Result<std::string> sysctl_path(const Root& root, std::string_view key);

/// Opens a key's file with the same checks (flags: O_RDONLY or O_WRONLY, plus extras).
Result<UniqueFd> open_sysctl(const Root& root, std::string_view key, int flags);

/// Reads a key's value, whitespace-normalised ("4096\t131072\t6291456\n" ->
/// "4096 131072 6291456"). A write-only key (net.ipv4.route.flush) is an Error with
/// EACCES.
Result<std::string> read_sysctl(const Root& root, std::string_view key);

}  // namespace tuner
