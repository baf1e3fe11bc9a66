// Reads and writes of single /proc files for knobs, relative to the Root fd and never
// through a symlink, so a validated id cannot be steered to another file.
#pragma once

#include <string>

#include "base/result.h"
#include "probes/root.h"

namespace tuner {

/// Reads rel (e.g. "proc/sys/net/core/somaxconn") under root, refusing symlinks.
Result<std::string> read_proc_file(const Root& root, const std::string& rel);
/// Writes text to rel in one write(2); only on the live root. Errors carry the errno
/// of the open or the write (the kernel's verdict on the value).
Status write_proc_file(const Root& root, const std::string& rel, const std::string& text);

}  // namespace tuner
