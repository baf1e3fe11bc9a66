// openat2(2), the one call tuner resolves paths with where a symlink must not lead out
// of a directory (the live /proc and /sys beneath their root, a capture inside it).
// Linux 5.6 added it; on older kernels the syscall is ENOSYS, and container runtimes
// and older systemd sandboxes refuse a syscall their seccomp filter does not know with
// EPERM. Both mean "no openat2 here", which callers answer with their plain openat
// fallback; a genuine EPERM from a path is passed on.
#pragma once

#include <cstdint>

namespace tuner {

/// RESOLVE_* of <linux/openat2.h>, defined here for C libraries and kernel headers
/// older than Linux 5.6 (glibc 2.28 with RHEL 8's 4.18 headers).
inline constexpr std::uint64_t kResolveNoXdev = 0x01;
inline constexpr std::uint64_t kResolveNoMagiclinks = 0x02;
inline constexpr std::uint64_t kResolveNoSymlinks = 0x04;
inline constexpr std::uint64_t kResolveBeneath = 0x08;
inline constexpr std::uint64_t kResolveInRoot = 0x10;

/// openat2(dirfd, path, {flags, 0, resolve}): the new fd, or -1 with errno. errno is
/// ENOSYS when the syscall itself is unavailable (the kernel's ENOSYS, or a seccomp
/// filter's EPERM: an EPERM is checked by opening "/" the same way, which only a refused
/// syscall fails).
int openat2_fd(int dirfd, const char* path, int flags, std::uint64_t resolve);

}  // namespace tuner
