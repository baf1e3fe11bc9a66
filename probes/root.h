// Root: every /proc and /sys read goes through a directory fd, "/" on a live machine
// or a captured tree (--root DIR), after hwloc's HWLOC_FSROOT. Paths are relative to
// the root ("proc/interrupts", "sys/class/net"); a leading '/' is ignored. Under a fake
// root, symlinks resolve inside it (openat2 RESOLVE_IN_ROOT), so absolute links in a
// capture cannot escape to the host.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/unique_fd.h"

namespace tuner {

class Root {
 public:
  /// Opens DIR as a root; "/" is the live machine.
  static Result<Root> open(const std::string& dir);
  /// The live machine's root. Throws FatalError if "/" cannot be opened.
  static Root live();

  /// Whole file as text, through the bounded reader (base/fd_io.h): at most
  /// kMaxFileBytes, a regular file only (/proc and /sys files are, with made-up sizes),
  /// so a FIFO or device planted in a capture is an error, never a wait. Errors carry
  /// the path and errno.
  Result<std::string> read(std::string_view path) const;
  /// Names in a directory (no "." or ".."), sorted.
  Result<std::vector<std::string>> list(std::string_view path) const;
  /// Target of a symlink, as stored.
  Result<std::string> readlink(std::string_view path) const;
  /// Last component of a symlink's target ("../../bus/pci/drivers/e1000e" -> "e1000e").
  Result<std::string> link_name(std::string_view path) const;
  bool exists(std::string_view path) const;
  /// Opens a path for reading (O_RDONLY|O_CLOEXEC plus extra flags); the descriptor is
  /// the caller's, closed with the UniqueFd.
  Result<UniqueFd> open_fd(std::string_view path, int flags = 0) const;

  /// True when this is "/", the machine we run on: only then may anything be written
  /// or asked of the kernel (netlink, libnuma).
  bool is_live() const { return live_; }
  /// The directory as given ("/" or the --root argument).
  const std::string& dir() const { return dir_; }
  int fd() const;

 private:
  std::shared_ptr<UniqueFd> fd_;  // shared: copies of a Root share its directory fd
  std::string dir_;
  bool live_ = true;
};

}  // namespace tuner
