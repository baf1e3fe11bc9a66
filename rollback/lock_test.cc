#include "rollback/lock.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include "base/fd_io.h"
#include "tests/support/temp_dir.h"

using namespace tuner;

TEST_CASE("lock: a second tuner is refused and told the holder's pid") {
  testing::TempDir t;
  auto sd = StateDir::open(t.path + "/s", true);
  REQUIRE(sd.ok());
  auto held = Lock::acquire(*sd);
  REQUIRE(held.ok());
  // flock is per open file description: a child opening the file on its own competes.
  int pipefd[2];
  REQUIRE(::pipe2(pipefd, O_CLOEXEC) == 0);
  UniqueFd from_child(pipefd[0]), to_parent(pipefd[1]);
  pid_t child = ::fork();
  if (child == 0) {
    auto again = Lock::acquire(*sd);
    std::string msg = again.ok() ? "GOT" : again.error().message();
    (void)!::write(to_parent.get(), msg.data(), msg.size());
    ::_exit(0);
  }
  to_parent.reset();
  std::string msg =
      read_fd(from_child.get(), "the child's answer", {.regular_only = false}).value_or("");
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(msg.find("another tuner (pid " + std::to_string(::getpid()) + ")") != std::string::npos);

  *held = Lock();  // released
  auto after = Lock::acquire(*sd);
  CHECK(after.ok());
}
