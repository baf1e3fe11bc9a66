// What a captured root (--root DIR) may hold before hwloc is pointed at it.
#pragma once

#include "base/result.h"
#include "probes/root.h"

namespace tuner {

/// More entries than this and the tree is not a capture of /proc and /sys (the largest
/// fixture holds about 11,500).
inline constexpr std::size_t kMaxCaptureEntries = 1'000'000;

/// Walks a captured root and refuses what hwloc would hang or run out of memory on:
/// hwloc's Linux backend opens the files of HWLOC_FSROOT itself, blocking and unbounded,
/// so a FIFO where /proc/cpuinfo should be waits forever, and a link to /dev/zero reads
/// until memory runs out. Refused, naming the entry: a FIFO, device or socket; a link
/// whose target (resolved as hwloc would, from the root) leads out of the capture (an
/// absolute link reaches this machine's files) or to one of those; a file larger than
/// kMaxFileBytes; more than kMaxCaptureEntries entries. Links that lead nowhere are fine: hwloc skips them.
/// The live root is not walked: its /proc and /sys are the kernel's.
Status check_capture(const Root& root);

}  // namespace tuner
