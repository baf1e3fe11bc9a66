// The one bounded file reader (STYLE.md 14): every whole-file read of /proc, /sys, the
// state directory and test data goes through here. A read is bounded in size, retries
// EINTR, and never waits: files are opened O_NONBLOCK, so a FIFO cannot hang the open
// and a FIFO or device with nothing to give is an error instead of a wait.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>

#include "base/result.h"
#include "base/unique_fd.h"

namespace tuner {

/// 16 MiB: far above any /proc, /sys, state or journal file tuner reads; a file larger
/// than this is not one of ours.
inline constexpr std::size_t kMaxFileBytes = std::size_t{16} << 20;

/// What a whole-file read accepts.
struct ReadLimits {
  /// More bytes than this is Error::invalid "larger than N bytes".
  std::size_t max_bytes = kMaxFileBytes;
  /// Only a regular file (fstat S_ISREG): a FIFO, device or socket is Error::invalid
  /// "not a regular file (a FIFO)". /proc and /sys files pass: they are regular files
  /// whose sizes the kernel makes up (0 or 4096), so the size bound above is checked on
  /// what is read, not on st_size. On by default: a FIFO, /dev/zero or a socket where
  /// tuner expects a file (in a capture, the state directory, a topology) is refused
  /// by type; off only for a caller that means to read a pipe or device.
  bool regular_only = true;
};

/// Opens dirfd/path (AT_FDCWD: from the working directory) with O_RDONLY | O_CLOEXEC |
/// O_NONBLOCK | flags and checks it against limits (see check_readable). `where` names
/// the file in errors. For callers that only need to know a file is fit to read.
Result<UniqueFd> open_for_read(int dirfd, const std::string& path, const std::string& where,
                               const ReadLimits& limits = {}, int flags = 0);

/// What st_mode says a file is, for messages: "a directory", "a FIFO", "a character
/// device", "a block device", "a socket", "a symlink", else "not a file".
const char* file_type_name(mode_t mode);

/// fstat checks on an open fd: never a directory; with limits.regular_only nothing but
/// a regular file; a regular file no larger than limits.max_bytes. Clears O_NONBLOCK
/// on a regular file, where it only gets in the way.
Status check_readable(int fd, const std::string& where, const ReadLimits& limits = {});

/// Checks fd (check_readable) and reads it from its offset to its end, retrying EINTR.
/// Errors name `where` and carry the errno; a read that would block is one of them.
/// The caller keeps ownership of fd.
Result<std::string> read_fd(int fd, const std::string& where, const ReadLimits& limits = {});

/// open_for_read, then the whole file.
Result<std::string> read_file_at(int dirfd, const std::string& path, const std::string& where,
                                 const ReadLimits& limits = {}, int flags = 0);
/// The whole file at path; errors name path.
Result<std::string> read_file(const std::string& path, const ReadLimits& limits = {});

/// For holders of a raw descriptor: read_fd with the default limits, then close fd,
/// whatever happened.
Result<std::string> read_all_and_close(int fd, const std::string& where);

}  // namespace tuner
