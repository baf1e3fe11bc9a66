// Sysctl probe: key validation and reads under /proc/sys.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "probes/root.h"

namespace tuner {

/// Checks a dotted key ("net.core.rmem_max"): segments of [A-Za-z0-9_-] (the kernel
/// also uses '.'-free names with '-' and '_'), no empty segment, no "..", no '/', no
/// escape through a symlink, and the file exists under proc/sys of root. Returns the
/// relative path ("proc/sys/net/core/rmem_max").
Result<std::string> sysctl_path(const Root& root, std::string_view key);

/// Syntax-only check (no file system access).
Status check_sysctl_key_syntax(std::string_view key);

/// Reads a key's value, whitespace-normalised.
Result<std::string> read_sysctl(const Root& root, std::string_view key);

}  // namespace tuner
