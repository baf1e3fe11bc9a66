// Writing a whole file so that a reader sees the old text or the new, never a part:
// --report, --prometheus (node_exporter reads its textfile directory at any moment).
// The target is replaced only when it is a regular file or absent: tuner runs as root,
// and renaming a file over /dev/null, a FIFO or a symlink in /dev would change the
// host for every other user.
#pragma once

#include <string>

#include "base/result.h"

namespace tuner {

/// What an output target is now.
struct OutputTarget {
  /// -1: absent or a regular file, replaced atomically. 1 or 2: the path is this
  /// process's stdout or stderr (/dev/stdout, /dev/fd/1, the terminal or /dev/null that
  /// fd 1 is), written through that descriptor.
  int stream_fd = -1;
};

/// Checks an output path before anything is done, and again when it is written. Ok
/// for a path that does not exist, a regular file, or the process's own stdout or
/// stderr by any name (a symlink or device whose file is fd 1's or 2's). An
/// Error::invalid naming path for anything else that exists: a FIFO, a device (one
/// that is not fd 1 or 2: /dev/null while stdout is a file), a socket, a directory, or
/// a symlink (neither followed nor replaced: a link another user planted must not
/// choose where root writes, and replacing one in /dev would break the host; name the
/// file itself). Directories above the last component are followed as the kernel
/// does (fs.protected_symlinks guards sticky directories such as /tmp).
Result<OutputTarget> check_output_target(const std::string& path);

/// Writes text to path through a temporary file in the same directory (O_EXCL,
/// created with mode), fsync, rename over path, fsync the directory; a path that
/// check_output_target says is stdout or stderr is written through that descriptor
/// instead, and anything else it refuses is left as it is. Every failure (no such
/// directory, no space, a short write) is an Error naming path, and path keeps its old
/// content.
Status write_file_atomic(const std::string& path, const std::string& text, unsigned mode = 0644);

}  // namespace tuner
