// The one rule for an interface name, shared by the probes (netlink and ioctl requests,
// /proc/net/dev lookups), knob ids, the profile parser and the planner: what the
// kernel's dev_valid_name() accepts, less control characters.
#pragma once

#include <string_view>

#include "base/result.h"

namespace tuner {

/// 1 to IFNAMSIZ-1 (15) bytes; not "." or ".."; no '/', ':', whitespace (the kernel
/// refuses them: ':' marks an alias, and it also separates knob id parts) and no
/// control character (the kernel allows them; a name that could rewrite a terminal or
/// a log line is no name tuner prints or stores). Error::invalid with only `what` set:
/// callers add where.
Status validate_ifname(std::string_view ifname);

}  // namespace tuner
