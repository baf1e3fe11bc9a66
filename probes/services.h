// Whether a systemd unit is enabled, read from the symlinks `systemctl enable` leaves
// (etc/systemd/system/*.wants/UNIT, and the runtime and vendor folders), and whether a
// daemon runs (proc/PID/comm). Files only, so a --root capture answers as the live
// machine does and `tuner check` asks systemd for nothing.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "probes/root.h"

namespace tuner {

struct UnitEnablement {
  bool enabled = false;  // some target or unit wants or requires it
  bool masked = false;   // linked to /dev/null in etc/ or run/: never starts
  std::string via;       // the symlink that enables or masks it
};

/// UNIT's enablement: a symlink named UNIT in a *.wants or *.requires folder of
/// etc/systemd/system, run/systemd/system, usr/lib/systemd/system or lib/systemd/system.
UnitEnablement unit_enablement(const Root& root, std::string_view unit);

/// Whether a process whose proc/PID/comm is `comm` runs; nullopt when the root has no
/// process folders (a capture without processes cannot say). An error when proc cannot
/// be listed.
Result<std::optional<bool>> process_running(const Root& root, std::string_view comm);

}  // namespace tuner
