// The test-support helpers themselves: what every other test relies on.
#include <signal.h>
#include <sys/stat.h>

#include <doctest/doctest.h>

#include <exception>
#include <filesystem>
#include <string>

#include "base/runner.h"
#include "tests/support/child.h"
#include "tests/support/files.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using namespace tuner;

namespace {

// What fn throws, as text ("" when it returns): doctest::Contains came with 2.4.7, and
// Debian 11 has 2.4.5.
template <typename Fn>
std::string thrown(Fn fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("support: a TempDir is private and goes away with everything in it") {
  std::string path;
  {
    testing::TempDir tmp;
    path = tmp.path;
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0700);
    tmp.write("a/b/c.txt", "deep\n");
    fs::create_symlink("/etc", tmp / "a/etc");  // removed as a link, /etc untouched
    CHECK(testing::read_text(tmp / "a/b/c.txt") == "deep\n");
  }
  CHECK_FALSE(fs::exists(path));
  CHECK(fs::exists("/etc/passwd"));
}

TEST_CASE("support: reading test files") {
  testing::TempDir tmp;
  CHECK(thrown([&] { testing::read_text(tmp / "none"); }).find("No such file or directory") !=
        std::string::npos);
  CHECK(testing::slurp(tmp / "none").empty());
  tmp.write("value", "  10000\n");
  CHECK(testing::sysfs_value(tmp / "value") == "10000");
  CHECK(testing::read_test_data("netlink/README.md").size() > 0);
}

TEST_CASE("support: a shared fixture is unpacked once, a scoped one afresh with its overlay") {
  const std::string name = "nvidia-dgx-gb10.tar.bz2";
  std::string shared = testing::shared_fixture(name);
  CHECK(shared == testing::shared_fixture(testing::fixture_path(name)));
  CHECK(fs::is_directory(shared + "/sys/devices/system/cpu"));
  testing::TempDir overlay;
  overlay.write("proc/interrupts", "overlaid\n");
  std::string fresh;
  {
    testing::ScopedFixture fx(name, overlay.path);
    fresh = fx.root();
    CHECK(fresh != shared);
    CHECK(testing::read_text(fresh + "/proc/interrupts") == "overlaid\n");
    CHECK(fs::is_directory(fresh + "/sys/devices/system/cpu"));
  }
  CHECK_FALSE(fs::exists(fresh));
  CHECK(fs::is_directory(shared));  // kept for the rest of the run
}

TEST_CASE("support: tarball paths are arguments, not shell text") {
  // Quotes, spaces, '$(...)' and a ':' (which GNU tar would take for a remote host).
  testing::TempDir tmp;
  const std::string odd = tmp / "it's a $(touch pwned) dir:x";
  tmp.write("src/machine/sys/devices/system/cpu/online", "0-3\n");
  fs::create_directories(odd);
  const std::string tarball = odd + "/m.tar.gz";
  RunSpec spec;
  spec.argv = {"tar", "--force-local", "-czf", tarball, "-C", tmp / "src", "machine"};
  ProcessRunner runner;
  auto made = runner.run(spec);
  REQUIRE(made.ok());
  REQUIRE_MESSAGE(made->success(), made->stderr_tail());
  testing::ScopedFixture fx(tarball);
  CHECK(fs::path(fx.root()).filename() == "machine");
  CHECK(testing::read_text(fx.root() + "/sys/devices/system/cpu/online") == "0-3\n");
  CHECK_FALSE(fs::exists("pwned"));
  CHECK_FALSE(fs::exists(odd + "/pwned"));
  CHECK(thrown([&] { testing::ScopedFixture f(odd + "/missing.tar.gz"); }).find("tar -xf") !=
        std::string::npos);
}

TEST_CASE("support: a SleepingChild runs until stopped, then is reaped") {
  pid_t pid = 0;
  {
    testing::SleepingChild child;
    pid = child.pid();
    REQUIRE(pid > 0);
    CHECK(::kill(pid, 0) == 0);
    CHECK(child.start_time() > 0);
    child.stop();
    CHECK(child.pid() == -1);
    child.stop();  // a second stop does nothing
  }
  CHECK(::kill(pid, 0) == -1);  // killed and reaped: no zombie left behind
  CHECK(!testing::own_cpus().empty());
}
