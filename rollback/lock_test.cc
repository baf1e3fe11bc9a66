#include "rollback/lock.h"

#include <sys/wait.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include "rollback/test_util.h"

using namespace tuner;

TEST_CASE("lock: a second tuner is refused and told the holder's pid") {
  testing::TempDir t;
  auto sd = StateDir::open(t.path + "/s", true);
  REQUIRE(sd.ok());
  auto held = Lock::acquire(*sd);
  REQUIRE(held.ok());
  // flock is per open file description: a child opening the file on its own competes.
  int pipefd[2];
  REQUIRE(::pipe(pipefd) == 0);
  pid_t child = ::fork();
  if (child == 0) {
    auto again = Lock::acquire(*sd);
    std::string msg = again.ok() ? "GOT" : again.error().message();
    (void)!::write(pipefd[1], msg.data(), msg.size());
    ::_exit(0);
  }
  ::close(pipefd[1]);
  char buf[512] = {};
  ssize_t n = ::read(pipefd[0], buf, sizeof buf - 1);
  ::close(pipefd[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  std::string msg(buf, n > 0 ? static_cast<size_t>(n) : 0);
  CHECK(msg.find("another tuner (pid " + std::to_string(::getpid()) + ")") != std::string::npos);

  *held = Lock();  // released
  auto after = Lock::acquire(*sd);
  CHECK(after.ok());
}
