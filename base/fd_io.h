// Whole-file reads from an open descriptor, shared by every reader of /proc, /sys and
// the state directory.
#pragma once

#include <string>

#include "base/result.h"

namespace tuner {

/// Reads fd to its end (retrying EINTR) and closes it, whatever happens. `where` names
/// the file in the error.
Result<std::string> read_all_and_close(int fd, const std::string& where);

}  // namespace tuner
