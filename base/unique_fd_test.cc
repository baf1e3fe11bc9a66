#include "base/unique_fd.h"

#include <fcntl.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <utility>

using tuner::UniqueFd;

namespace {

// True while fd names an open descriptor of this process.
bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

}  // namespace

TEST_CASE("unique_fd: closes on destruction, once") {
  int raw = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  REQUIRE(raw >= 0);
  {
    UniqueFd fd(raw);
    CHECK(fd.valid());
    CHECK(fd.get() == raw);
  }
  CHECK_FALSE(is_open(raw));
}

TEST_CASE("unique_fd: a failed open owns nothing") {
  UniqueFd fd(::open("/nonexistent/tuner", O_RDONLY | O_CLOEXEC));
  CHECK_FALSE(fd);
  CHECK(fd.get() == -1);
}

TEST_CASE("unique_fd: moves hand ownership over and leave the source empty") {
  UniqueFd a(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  int raw = a.get();
  UniqueFd b(std::move(a));
  // The moved-from state is what this tests: it owns nothing.
  CHECK_FALSE(a.valid());  // NOLINT(bugprone-use-after-move,clang-analyzer-cplusplus.Move)
  CHECK(b.get() == raw);
  UniqueFd c(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  int replaced = c.get();
  c = std::move(b);  // c's own descriptor is closed, b's is kept
  CHECK(c.get() == raw);
  CHECK_FALSE(is_open(replaced));
  CHECK(is_open(raw));
}

TEST_CASE("unique_fd: release gives up ownership, reset closes and takes another") {
  UniqueFd fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  int raw = fd.release();
  CHECK_FALSE(fd.valid());
  CHECK(is_open(raw));  // not closed: the caller owns it now
  fd.reset(raw);
  CHECK(fd.get() == raw);
  fd.reset();
  CHECK_FALSE(is_open(raw));
  CHECK_FALSE(fd.valid());
}
