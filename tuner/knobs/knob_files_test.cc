#include "tuner/knobs/knob_files.h"

#include <doctest/doctest.h>
#include <sys/syscall.h>

#include <string>

#include "probes/root.h"
#include "tests/support/seccomp_child.h"
#include "tests/support/temp_dir.h"

using namespace tuner;
using tuner::testing::TempDir;

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

namespace {

// Reads and writes a knob's file and reads the probe's, all in the captured tree.
int read_write_read(const std::string& dir) {
  auto root = Root::open(dir);
  if (!root.ok()) return 10;
  auto before = read_proc_file(*root, "proc/sys/vm/swappiness");
  if (!before.ok() || *before != "60\n") return 11;
  if (!write_proc_file(*root, "proc/sys/vm/swappiness", "10").ok()) return 12;
  auto after = root->read("proc/sys/vm/swappiness");
  if (!after.ok() || *after != "10") return 13;
  // The fallback still refuses what openat2's flags would have: a symlink.
  if (read_proc_file(*root, "proc/sys/vm/link").ok()) return 14;
  return 0;
}

}  // namespace

TEST_CASE("knob files: read and written where a seccomp filter refuses openat2 with EPERM") {
  TempDir tmp;
  tmp.write("proc/sys/vm/swappiness", "60\n");
  std::filesystem::create_symlink("swappiness", tmp / "proc/sys/vm/link");
  CHECK(read_write_read(tmp.path) == 0);  // with openat2
  tmp.write("proc/sys/vm/swappiness", "60\n");
  // Older systemd sandboxes and container runtimes: EPERM for a syscall they do not know.
  CHECK(tuner::testing::run_with_syscall_refused(SYS_openat2,
                                                 [&] { return read_write_read(tmp.path); }) == 0);
}
