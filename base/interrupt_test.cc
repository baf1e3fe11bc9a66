#include "base/interrupt.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include <doctest/doctest.h>

#include "base/clock.h"
#include "base/runner.h"
#include "tests/support/temp_dir.h"

using namespace tuner;
using namespace std::chrono_literals;

namespace {

// Handlers for the test's own process, put back at the end of each case.
struct Caught {
  Caught() { catch_interrupts("testing"); }
  ~Caught() { release_interrupts_for_test(); }
};

// Sends `sig` to this process after `delay`, from another thread.
std::thread signal_later(int sig, std::chrono::milliseconds delay) {
  return std::thread([sig, delay] {
    std::this_thread::sleep_for(delay);
    ::kill(::getpid(), sig);
  });
}

// Running, not gone and not a zombie waiting for a reaper that is not us.
bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  auto paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] != 'Z';
}

}  // namespace

TEST_CASE("interrupt: nothing recorded until a signal; the first one is kept") {
  Caught caught;
  CHECK(interrupt_signal() == 0);
  CHECK(check_interrupt().ok());
  REQUIRE(interrupt_fd() >= 0);
  ::kill(::getpid(), SIGTERM);  // delivered before kill returns (to this thread or another)
  for (int i = 0; i < 100 && interrupt_signal() == 0; ++i) std::this_thread::sleep_for(1ms);
  CHECK(interrupt_signal() == SIGTERM);
  ::kill(::getpid(), SIGINT);  // a second signal changes nothing
  std::this_thread::sleep_for(10ms);
  CHECK(interrupt_signal() == SIGTERM);
  auto s = check_interrupt();
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message().find("interrupted by SIGTERM") != std::string::npos);
  CHECK(signal_name(SIGHUP) == "SIGHUP");
}

TEST_CASE("interrupt: a wait ends at the signal, a knob's sleep does not") {
  Caught caught;
  auto t = signal_later(SIGHUP, 100ms);
  auto t0 = std::chrono::steady_clock::now();
  SteadyClock::instance().wait_for(20s);
  auto waited = std::chrono::steady_clock::now() - t0;
  t.join();
  CHECK(interrupt_signal() == SIGHUP);
  CHECK(waited < 5s);
  t0 = std::chrono::steady_clock::now();
  SteadyClock::instance().sleep_for(200ms);
  CHECK(std::chrono::steady_clock::now() - t0 >= 200ms);
}

TEST_CASE("interrupt: a benchmark's whole process group is stopped, a rollback's command is not") {
  Caught caught;
  testing::TempDir dir;
  std::string pidfile = dir.path + "/pid";
  RunSpec spec;
  // A benchmark that leaves a helper in its group: both must be gone.
  spec.argv = {"/bin/sh", "-c", "sleep 60 & echo $! > " + pidfile + "; wait"};
  spec.timeout = 60s;
  spec.stop_on_interrupt = true;
  auto t = signal_later(SIGINT, 300ms);
  ProcessRunner runner;
  auto r = runner.run(spec);
  t.join();
  REQUIRE(r.ok());
  CHECK(r->interrupted);
  CHECK_FALSE(r->timed_out);
  CHECK_FALSE(r->success());
  CHECK(r->elapsed < 10s);
  CHECK(r->describe(spec) == "was stopped: tuner was interrupted");
  pid_t helper = 0;
  std::ifstream(pidfile) >> helper;
  REQUIRE(helper > 0);
  for (int i = 0; i < 100 && alive(helper); ++i) std::this_thread::sleep_for(10ms);
  CHECK_FALSE(alive(helper));

  // After the signal, a command run for the rollback (systemctl) still runs to its end.
  RunSpec after;
  after.argv = {"/bin/sh", "-c", "sleep 0.2; echo done"};
  auto r2 = runner.run(after);
  REQUIRE(r2.ok());
  CHECK(r2->success());
  CHECK(r2->out == "done\n");
}
