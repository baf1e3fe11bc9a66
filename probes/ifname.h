// The one rule for interface names, in the two strengths its users need: the probes
// read any NIC the kernel has (its dev_valid_name()), and what tuner writes into knob
// ids, journals and JSON must also be printable ASCII, so that an id survives the round
// trip through a journal and names the same NIC on rollback.
#pragma once

#include <string_view>

#include "base/result.h"

namespace tuner {

enum class IfnameRule {
  /// What the kernel accepts: 1 to IFNAMSIZ-1 (15) bytes, not "." or "..", no '/',
  /// ':' (an alias; it also separates knob id parts), NUL or whitespace. For requests
  /// about a NIC the kernel already has (ethtool netlink, ioctl, /proc/net/dev).
  kernel,
  /// That, and printable ASCII only: a name tuner can put in a knob id, a profile's
  /// ports, a journal. A NIC whose name fails it is left alone with a note.
  id,
};

/// Error::invalid with only `what` set (callers add where); a name with control bytes
/// is shown escaped.
Status validate_ifname(std::string_view ifname, IfnameRule rule = IfnameRule::id);

}  // namespace tuner
