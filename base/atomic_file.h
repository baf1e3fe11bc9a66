// Writing a whole file so that a reader sees the old text or the new, never a part:
// --report, --prometheus (node_exporter reads its textfile directory at any moment).
#pragma once

#include <string>

#include "base/result.h"

namespace tuner {

/// Writes text to path through a temporary file in the same directory (O_EXCL,
/// created with mode), fsync, rename over path, fsync the directory. path itself is
/// replaced, never followed: a symlink there is replaced by the file, not written
/// through. Every failure (no such directory, no space, a short write) is an Error
/// naming path, and path keeps its old content.
Status write_file_atomic(const std::string& path, const std::string& text, unsigned mode = 0644);

}  // namespace tuner
