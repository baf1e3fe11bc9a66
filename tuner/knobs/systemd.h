// Systemctl: the seam between the knobs that change systemd units (numa:unit,
// irqbalance:*) and systemd itself. The real one runs `systemctl` as a child process
// through the Runner seam (our dependencies have no D-Bus library); tests pass a fake
// that records the calls. A knob finds it in its KnobContext, never in a global.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"

namespace tuner {

class Systemctl {
 public:
  virtual ~Systemctl() = default;
  /// True when systemd is the running init (/run/systemd/system exists).
  virtual bool running() = 0;
  /// Runs `systemctl ARGS...`; an Error carries its exit status and stderr.
  virtual Status run(const std::vector<std::string>& args) = 0;
  /// `systemctl is-active UNIT`: "active", "inactive", "failed", ...
  virtual Result<std::string> is_active(const std::string& unit) = 0;
};

/// The machine's systemctl. Stateless, so one instance serves every context.
Systemctl& real_systemctl();

/// Whether an is-active state means the unit runs or is about to: "active",
/// "activating", "reloading".
bool unit_state_active(const std::string& state);

}  // namespace tuner
