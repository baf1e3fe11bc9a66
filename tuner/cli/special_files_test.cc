// Special files where tuner expects a file, end to end through the binary: a FIFO, a
// character device, a link out of a capture, a file that is not a topology. Each must
// end quickly in exit 2 with a message naming the file, never a hang or a memory blow-up
// (each run has a timeout and, outside ASan, a 2 GiB address-space limit). Output files
// (--report, --prometheus) the same way: a special file there is refused and left as it
// is, never replaced; stdout by any name is written through.
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

#include "base/fd_io.h"
#include "tests/support/cli.h"
#include "tests/support/files.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using tuner::testing::CliLimits;
using tuner::testing::CliRun;
using tuner::testing::run_tuner;
using tuner::testing::ScopedFixture;
using tuner::testing::shell_quote;
using tuner::testing::TempDir;

namespace {

const CliLimits kBounded{std::chrono::seconds(20), 2048};
const std::string kCapture = "32intel64-2p8co2t+8ve.tar.bz2";

/// Exit 2 within the limits, with `message` on stderr.
void check_refused(const CliRun& r, const std::string& message) {
  INFO("stderr: " << r.err);
  CHECK_FALSE(r.timed_out);
  CHECK(r.code == 2);
  CHECK(r.err.find(message) != std::string::npos);
}

/// Replaces root/rel with a FIFO.
void plant_fifo(const std::string& root, const std::string& rel) {
  fs::remove(root + "/" + rel);
  REQUIRE(::mkfifo((root + "/" + rel).c_str(), 0600) == 0);
}

}  // namespace

TEST_CASE("special files: --topology a FIFO or /dev/zero is refused by type, at once") {
  TempDir tmp;
  std::string fifo = tmp / "topo.xml";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  for (std::string cmd : {"probe", "plan --profile balanced"}) {
    INFO(cmd);
    check_refused(run_tuner(cmd + " --topology " + fifo, kBounded),
                  fifo + ": cannot read topology XML: not a regular file (a FIFO)");
    check_refused(run_tuner(cmd + " --topology /dev/zero", kBounded),
                  "/dev/zero: cannot read topology XML: not a regular file (a character device)");
  }
}

TEST_CASE("special files: a file that is not a topology is exit 2, not a 0-CPU plan") {
  TempDir tmp;
  std::string empty = tmp.write("empty.xml", "");
  std::string blank = tmp.write("blank.xml", "\n  \n");
  for (std::string cmd : {"probe --json", "plan --profile balanced"}) {
    INFO(cmd);
    CliRun passwd = run_tuner(cmd + " --topology /etc/passwd", kBounded);
    check_refused(passwd, "--topology: /etc/passwd: hwloc: ");
    // No document of a machine: under --json only why it failed (tuner.error/1).
    if (cmd.find("--json") != std::string::npos)
      CHECK(passwd.out.find("\"schema\": \"tuner.error/1\"") != std::string::npos);
    else CHECK(passwd.out.empty());
    check_refused(run_tuner(cmd + " --topology " + empty, kBounded),
                  empty + ": empty file: not a hwloc XML export");
    check_refused(run_tuner(cmd + " --topology " + blank, kBounded),
                  blank + ": empty file: not a hwloc XML export");
  }
}

TEST_CASE("special files: an XML export nested 100,000 deep is exit 2 at its line, no crash") {
  TempDir tmp;
  std::string xml =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
      "<topology version=\"2.0\">\n<object type=\"Machine\" os_index=\"0\" cpuset=\"0x1\">\n";
  for (int i = 0; i < 100000; ++i) xml += "<object type=\"Group\" cpuset=\"0x1\">";
  for (int i = 0; i < 100000; ++i) xml += "</object>";
  xml += "</object>\n</topology>\n";
  std::string path = tmp.write("deep.xml", xml);
  // Depth 256 is crossed by the 255th Group (after topology and Machine), on line 5.
  check_refused(run_tuner("probe --topology " + path, kBounded),
                path + ":5:" + std::to_string(254 * 34 + 1) + ": elements nest deeper than 256");
}

TEST_CASE("special files: a FIFO or a link to /dev/zero in a --root capture is refused") {
  ScopedFixture fx(kCapture);
  const std::string& root = fx.root();
  SUBCASE("a FIFO for /proc/cpuinfo, which hwloc opens itself") {
    plant_fifo(root, "proc/cpuinfo");
    for (std::string cmd : {"probe", "probe --json", "plan --profile balanced"}) {
      INFO(cmd);
      check_refused(run_tuner(cmd + " --root " + root, kBounded),
                    "--root: " + root + "/proc/cpuinfo: a FIFO, not a file");
    }
  }
  SUBCASE("a FIFO for a sysfs attribute tuner reads itself") {
    plant_fifo(root, "sys/devices/system/cpu/online");
    check_refused(run_tuner("probe --root " + root, kBounded),
                  root + "/sys/devices/system/cpu/online: a FIFO, not a file");
  }
  SUBCASE("/proc/cpuinfo a link to /dev/zero: out of the capture, to this machine") {
    fs::remove(root + "/proc/cpuinfo");
    fs::create_symlink("/dev/zero", root + "/proc/cpuinfo");
    check_refused(run_tuner("probe --root " + root, kBounded),
                  root + "/proc/cpuinfo: a link that leads out of the capture");
    fs::remove(root + "/proc/cpuinfo");
    fs::create_symlink("../../../../../../../../../../../dev/zero", root + "/proc/cpuinfo");
    check_refused(run_tuner("probe --root " + root, kBounded),
                  root + "/proc/cpuinfo: a link that leads out of the capture");
  }
  SUBCASE("a character device for a sysfs attribute") {
    std::string path = root + "/sys/devices/system/cpu/online";
    fs::remove(path);
    if (::mknod(path.c_str(), S_IFCHR | 0600, makedev(1, 5)) != 0) {  // what /dev/zero is
      MESSAGE("mknod needs CAP_MKNOD here: " << std::strerror(errno) << "; skipped");
      return;
    }
    check_refused(run_tuner("probe --root " + root, kBounded),
                  path + ": a character device, not a file");
  }
}

TEST_CASE("special files: a FIFO in the state directory is an error, never a wait") {
  TempDir state;
  fs::create_directories(state / "runs");
  fs::permissions(state.path, fs::perms::owner_all, fs::perm_options::replace);
  fs::permissions(state / "runs", fs::perms::owner_all, fs::perm_options::replace);
  const std::string journal = "runs/20250101T000000Z-abcd.journal";
  std::string dir = " --state-dir " + shell_quote(state.path);
  TempDir profiles;
  // Nothing to change: even if apply got past the state directory it would write nothing.
  std::string empty_profile = profiles.write("empty.toml", "[profile]\nname = \"empty\"\n");

  SUBCASE("a FIFO for a journal") {
    REQUIRE(::mkfifo((state / journal).c_str(), 0600) == 0);
    std::string msg = state / journal + ": not a regular file (a FIFO)";
    // history lists every run, the unreadable one with why (it always works).
    for (std::string cmd : {"history", "history --json"}) {
      INFO(cmd);
      CliRun r = run_tuner(cmd + dir, kBounded);
      CHECK_FALSE(r.timed_out);
      CHECK(r.code == 0);
      CHECK(r.out.find(msg) != std::string::npos);
    }
    for (std::string cmd : {"status", "rollback", "rollback 20250101T000000Z-abcd"}) {
      INFO(cmd);
      CliRun r = run_tuner(cmd + dir, kBounded);
      CHECK_FALSE(r.timed_out);
      CHECK(r.code != 0);
      CHECK(r.err.find(msg) != std::string::npos);
    }
    CliRun apply = run_tuner("apply --no-verify --yes --profile " + empty_profile + dir, kBounded);
    CHECK_FALSE(apply.timed_out);
    CHECK(apply.code != 0);
    if (::geteuid() == 0) CHECK(apply.err.find(msg) != std::string::npos);
  }
  SUBCASE("a FIFO for state.json") {
    REQUIRE(::mkfifo((state / "state.json").c_str(), 0600) == 0);
    CliRun r = run_tuner("status" + dir, kBounded);
    CHECK_FALSE(r.timed_out);
    CHECK(r.code != 0);
    CHECK(r.err.find(state / "state.json: not a regular file (a FIFO)") != std::string::npos);
    for (std::string cmd : {"history", "rollback"}) {
      INFO(cmd);
      CHECK_FALSE(run_tuner(cmd + dir, kBounded).timed_out);
    }
  }
}

TEST_CASE("special files: an output target that is not a regular file is refused, never replaced") {
  TempDir tmp, state;
  std::string empty_profile = tmp.write("empty.toml", "[profile]\nname = \"empty\"\n");
  tmp.write("target", "keep me\n");
  std::vector<std::pair<std::string, std::string>> targets;  // path, what it is
  REQUIRE(::mkfifo((tmp / "fifo.prom").c_str(), 0600) == 0);
  targets.emplace_back(tmp / "fifo.prom", "a FIFO");
  fs::create_directory(tmp / "dir.prom");
  targets.emplace_back(tmp / "dir.prom", "a directory");
  fs::create_symlink(tmp / "target", tmp / "link.prom");
  // What /dev/null is, made here (the host's own is tried only in a private mount
  // namespace: tests/integration/hostile_corpus_test.sh).
  if (::mknod((tmp / "null").c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0)
    targets.emplace_back(tmp / "null", "a character device");
  else MESSAGE("mknod needs CAP_MKNOD here: " << std::strerror(errno) << "; no device case");
  std::string in_state = " --state-dir " + shell_quote(state / "s");
  const std::vector<std::pair<std::string, std::string>> commands = {
      {"probe", "--prometheus"},
      {"status" + in_state, "--prometheus"},
      {"apply --no-verify --yes --profile " + empty_profile + in_state, "--report"},
      {"apply --no-verify --yes --profile " + empty_profile + in_state, "--prometheus"},
  };
  auto check_kept = [&](const std::string& path, const std::string& what) {
    struct stat st {};
    REQUIRE(::lstat(path.c_str(), &st) == 0);
    CHECK(std::string(tuner::file_type_name(st.st_mode)) == what);
  };
  // Plain references, not structured bindings: INFO captures them in a lambda, which
  // C++20 allows for bindings but clang 14 (clang-tidy's parser) does not.
  for (const auto& command : commands) {
    const std::string& cmd = command.first;
    const std::string& option = command.second;
    for (const auto& target : targets) {
      const std::string& path = target.first;
      const std::string& what = target.second;
      INFO(cmd << " " << option << " " << path);
      check_refused(run_tuner(cmd + " " + option + " " + path, kBounded),
                    "tuner: " + option + ": " + path + ": is " + what +
                        ", not a regular file; refusing to replace it; nothing was done");
      check_kept(path, what);
    }
    INFO(cmd << " " << option << " a symlink");
    check_refused(run_tuner(cmd + " " + option + " " + tmp / "link.prom", kBounded),
                  option + ": " + tmp / "link.prom" + ": is a symlink; tuner neither follows " +
                      "nor replaces one here (name the file itself)");
    check_kept(tmp / "link.prom", "a symlink");
    CHECK(tuner::testing::read_text(tmp / "target") == "keep me\n");
    // An empty name is not "no file" (item 26 of issue 21).
    check_refused(run_tuner(cmd + " " + option + " ''", kBounded), option + " needs a file name");
  }
  CHECK_FALSE(fs::exists(state / "s"));  // refused before apply or status made anything
}

TEST_CASE("special files: stdout by any name is written through, not replaced") {
  for (std::string name : {"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"}) {
    INFO(name);
    CliRun r = run_tuner("probe --prometheus " + name, kBounded);
    CHECK(r.code == 0);
    CHECK(r.out.find("tuner_node_info{") != std::string::npos);
  }
  // A character device that is this process's stdout (what `>/dev/null` makes): written
  // through it; the same device is refused above while stdout is something else.
  TempDir tmp;
  std::string null = tmp / "null";
  if (::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
    MESSAGE("mknod needs CAP_MKNOD here: " << std::strerror(errno) << "; skipped");
    return;
  }
  CliRun r = run_tuner("probe --prometheus " + null + " >" + null, kBounded);
  CHECK(r.code == 0);
  struct stat st {};
  REQUIRE(::lstat(null.c_str(), &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
}
