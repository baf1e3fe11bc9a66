// The bounded reader against what must not hang it or fill memory: a FIFO (with and
// without a writer), /dev/zero, a directory, a file over the limit; each is an Error,
// quickly. testing::HangGuard turns a regression into a failed run instead of a hang.
#include "base/fd_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "tests/support/temp_dir.h"

using namespace tuner;

namespace {

using Clock = std::chrono::steady_clock;

// Must fail fast: a hang here is what the reader exists to prevent.
void check_quick(Clock::time_point start) { CHECK(Clock::now() - start < std::chrono::seconds(2)); }

}  // namespace

TEST_CASE("fd_io: a regular file, whole, and its size bound") {
  testing::TempDir tmp;
  std::string path = tmp.write("f", std::string(1000, 'x'));
  auto all = read_file(path);
  REQUIRE(all.ok());
  CHECK(all->size() == 1000);
  CHECK(read_file(path, {.max_bytes = 1000, .regular_only = true}).ok());  // exactly at the bound
  auto over = read_file(path, {.max_bytes = 999});
  REQUIRE_FALSE(over.ok());
  CHECK(over.error().is(ErrorKind::invalid));
  CHECK(over.error().message() == path + ": larger than 999 bytes");
  CHECK(read_file(tmp.write("empty", "")).value_or("x") == "");
}

TEST_CASE("fd_io: a file over the default bound is refused without reading it") {
  testing::TempDir tmp;
  std::string path = tmp.write("big", "");
  std::filesystem::resize_file(path, kMaxFileBytes + 1);
  auto start = Clock::now();
  auto r = read_file(path);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().is(ErrorKind::invalid));
  CHECK(r.error().message().find("larger than 16777216 bytes") != std::string::npos);
  check_quick(start);
}

TEST_CASE("fd_io: a FIFO is an error at once, never a wait") {
  testing::HangGuard guard;
  testing::TempDir tmp;
  std::string fifo = tmp / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto start = Clock::now();
  SUBCASE("regular files only: refused by type") {
    auto r = read_file(fifo, {.regular_only = true});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().is(ErrorKind::invalid));
    CHECK(r.error().message() == fifo + ": not a regular file (a FIFO)");
  }
  SUBCASE("any file, a writer that sends nothing: would block, so an error") {
    UniqueFd writer(::open(fifo.c_str(), O_RDWR | O_CLOEXEC));  // O_RDWR: no wait for a reader
    REQUIRE(writer);
    auto r = read_file(fifo, {.regular_only = false});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().err == EAGAIN);
    CHECK(r.error().message().find(fifo) == 0);
  }
  SUBCASE("any file, no writer at all: end of file at once") {
    CHECK(read_file(fifo, {.regular_only = false}).value_or("x") == "");
  }
  check_quick(start);
}

TEST_CASE("fd_io: /dev/zero ends at the size bound") {
  testing::HangGuard guard;
  auto start = Clock::now();
  auto r = read_file("/dev/zero", {.max_bytes = 1 << 20, .regular_only = false});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().is(ErrorKind::invalid));
  CHECK(r.error().message() == "/dev/zero: larger than 1048576 bytes");
  auto strict = read_file("/dev/zero");  // the default: regular files only
  REQUIRE_FALSE(strict.ok());
  CHECK(strict.error().message() == "/dev/zero: not a regular file (a character device)");
  check_quick(start);
}

TEST_CASE("fd_io: by default /proc and /sys files read, FIFOs and devices do not") {
  testing::HangGuard guard;
  auto start = Clock::now();
  // procfs files are regular with size 0, sysfs attributes regular with size 4096.
  auto status = read_file("/proc/self/status");
  REQUIRE_MESSAGE(status.ok(), status.error().message());
  CHECK(status->find("\nPid:") != std::string::npos);
  if (::access("/sys/devices/system/cpu/online", R_OK) == 0) {
    auto online = read_file("/sys/devices/system/cpu/online");
    REQUIRE_MESSAGE(online.ok(), online.error().message());
    CHECK_FALSE(online->empty());
  }
  testing::TempDir tmp;
  std::string fifo = tmp / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  UniqueFd writer(::open(fifo.c_str(), O_RDWR | O_CLOEXEC));  // a writer that never writes
  REQUIRE(writer);
  CHECK(read_file(fifo).error().message() == fifo + ": not a regular file (a FIFO)");
  CHECK(read_file("/dev/zero").error().message() ==
        "/dev/zero: not a regular file (a character device)");
  CHECK(read_file("/dev/null").error().message() ==
        "/dev/null: not a regular file (a character device)");
  check_quick(start);
}

TEST_CASE("fd_io: a directory is not a file") {
  auto r = read_file("/");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().is(ErrorKind::invalid));
  CHECK(r.error().err == EISDIR);
  CHECK(r.error().message().find("/: is a directory") == 0);
}

TEST_CASE("fd_io: /proc files report size 0 and still read whole") {
  auto status = read_file("/proc/self/status", {.regular_only = true});
  REQUIRE_MESSAGE(status.ok(), status.error().message());
  CHECK(status->find("\nPid:") != std::string::npos);
  // Larger than one read (4 KiB pages of /proc/self/maps).
  auto maps = read_file("/proc/self/maps");
  REQUIRE(maps.ok());
  CHECK(maps->find("\n") != std::string::npos);
}

TEST_CASE("fd_io: missing files and relative opens name the path and errno") {
  testing::TempDir tmp;
  auto missing = read_file(tmp / "nope");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().is(ErrorKind::missing));
  CHECK(missing.error().err == ENOENT);
  CHECK(missing.error().where == tmp / "nope");
  tmp.write("sub/state.json", "{}");
  UniqueFd dir(::open((tmp / "sub").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  CHECK(read_file_at(dir.get(), "state.json", "shown", {.regular_only = true}).value_or("") ==
        "{}");
  std::filesystem::create_symlink("state.json", tmp / "sub/link");
  auto link = read_file_at(dir.get(), "link", "shown", {}, O_NOFOLLOW);
  REQUIRE_FALSE(link.ok());
  CHECK(link.error().err == ELOOP);
  CHECK(link.error().where == "shown");
}

TEST_CASE("fd_io: read_all_and_close reads and closes") {
  int fd = ::open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  CHECK(read_all_and_close(fd, "stat").ok());
  CHECK(::fcntl(fd, F_GETFD) == -1);
}
