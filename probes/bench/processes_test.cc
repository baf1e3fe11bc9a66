// Which processes used or waited for the CPU (processes.h), on /proc/PID/stat, status
// and task/TID/schedstat captured on a 2-vCPU VM (tests/fixtures/bench/root-vm/proc):
// pid 1 (40 threads), ksoftirqd/0 (pid 14), and pid
// 2010, a process of uid 65534 that named itself "x) 1 R\n\e[2J 9" (prctl PR_SET_NAME):
// a ')' and fields of its own, a newline and an escape code that clears a terminal.
#include "probes/bench/processes.h"

#include <doctest/doctest.h>

#include <string>

#include "tests/support/files.h"

using namespace tuner;
using namespace tuner::bench;

namespace {

std::string captured(const std::string& rel) {
  return tuner::testing::read_test_data("bench/root-vm/proc/" + rel);
}

PidStat stat_of(const std::string& rel) {
  auto s = parse_pid_stat(captured(rel));
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message()));
  return *s;
}

PidStat with_ticks(PidStat p, uint64_t utime, uint64_t stime = 0) {
  p.utime = utime;
  p.stime = stime;
  return p;
}

}  // namespace

TEST_CASE("processes: /proc/PID/stat as captured, parsed from the last ')'") {
  PidStat init = stat_of("1/stat");
  CHECK(init.pid == 1);
  CHECK(init.comm == "process_api");
  CHECK(init.state == 'S');
  CHECK(init.ppid == 0);
  CHECK(init.utime == 919);
  CHECK(init.stime == 5517);
  CHECK(init.cutime == 1457152);
  CHECK(init.cstime == 308293);
  CHECK(init.ticks() == 919 + 5517 + 1457152 + 308293);
  CHECK(init.starttime == 25);
  CHECK_FALSE(init.kernel_thread());

  PidStat ksoftirqd = stat_of("14/stat");
  CHECK(ksoftirqd.comm == "ksoftirqd/0");
  CHECK(ksoftirqd.ppid == 2);
  CHECK(ksoftirqd.kernel_thread());  // flags 69238848: PF_KTHREAD
  CHECK(ksoftirqd.stime == 1063);

  // The hostile name: its own ") 1 R" and a newline do not shift the fields.
  PidStat hostile = stat_of("2010/stat");
  CHECK(hostile.pid == 2010);
  CHECK(hostile.comm == "x) 1 R\n\033[2J 9");
  CHECK(hostile.state == 'S');
  CHECK(hostile.ppid == 1962);
  CHECK(hostile.utime == 12);
  CHECK(hostile.stime == 0);
  CHECK(hostile.starttime == 1197282);
  CHECK_FALSE(hostile.kernel_thread());
  // Shown, it is one line with the escape code spelled out.
  CHECK(escape_controls(hostile.comm) == "x) 1 R\\n\\x1b[2J 9");
}

TEST_CASE("processes: a stat line that is not one is an error") {
  CHECK_FALSE(parse_pid_stat("").ok());
  CHECK_FALSE(parse_pid_stat("12 no comm S 1 2").ok());
  CHECK_FALSE(parse_pid_stat("12 (short) S 1 2 3").ok());
  CHECK_FALSE(parse_pid_stat("x (name) S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5").ok());
  // A name that ends the line early: its last ')' leaves too few fields.
  CHECK_FALSE(parse_pid_stat("7 (a) S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 x)").ok());
}

TEST_CASE("processes: a thread's run queue wait in /proc/PID/task/TID/schedstat") {
  // "runtime run_delay timeslices", nanoseconds: ksoftirqd/0 waited 251 s in all.
  CHECK(parse_schedstat_wait(captured("14/task/14/schedstat")) == 251162722473ULL);
  CHECK(parse_schedstat_wait("5 6 7\n") == 6U);
  CHECK_FALSE(parse_schedstat_wait("5\n").has_value());
  CHECK_FALSE(parse_schedstat_wait("5 x 7").has_value());
}

TEST_CASE("processes: the real uid of /proc/PID/status, the hostile name's included") {
  CHECK(parse_status_uid(captured("2010/status")) == 65534U);
  CHECK(parse_status_uid(captured("1/status")) == 0U);
  CHECK_FALSE(parse_status_uid("Name:\tx\nGid:\t0\t0\t0\t0\n").has_value());
  CHECK_FALSE(parse_status_uid("Uid:\tnobody\n").has_value());
}

TEST_CASE("processes: a captured root's every process, and their uids") {
  auto root = Root::open(tuner::testing::test_data_path("bench/root-vm"));
  REQUIRE(root.ok());
  auto s = sample_processes(*root);
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message()));
  REQUIRE(s->processes.size() == 3);
  CHECK(s->processes[0].pid == 1);
  CHECK(s->processes[1].pid == 14);
  CHECK(s->processes[2].pid == 2010);
  CHECK(s->self == 0);  // no tuner in a capture
  CHECK_FALSE(s->capped);
  // Each process's threads' waits, summed: pid 1's 40, ksoftirqd's one; pid 2010's
  // threads were not captured.
  CHECK(s->waits);
  CHECK(s->processes[0].wait_ns == 44271002748ULL);
  CHECK(s->processes[1].wait_ns == 251162722473ULL);
  CHECK(s->processes[2].wait_ns == 0);
  auto capped = sample_processes(*root, 2);
  REQUIRE(capped.ok());
  CHECK(capped->processes.size() == 2);
  CHECK(capped->capped);

  ProcessSample before = *s, after = *s;
  after.processes[2] = with_ticks(after.processes[2], 112);  // +100 ticks: 1 s
  auto uses = process_use(before, after, 16);
  REQUIRE(uses.size() == 1);
  read_uids(*root, uses);
  CHECK(uses[0].pid == 2010);
  CHECK(uses[0].uid == 65534U);
  CHECK(uses[0].cpu_s == doctest::Approx(1.0));
  // A pid another process took since: no uid read for the old one.
  uses[0].starttime += 1;
  uses[0].uid.reset();
  read_uids(*root, uses);
  CHECK_FALSE(uses[0].uid.has_value());
}

TEST_CASE("processes: CPU between two samples, tuner and its children left out, bounded") {
  PidStat init = stat_of("1/stat"), ksoftirqd = stat_of("14/stat"), hostile = stat_of("2010/stat");
  PidStat tuner_p = init, bench_child = init, reused = hostile;
  tuner_p.pid = 500;
  tuner_p.ppid = 1;
  tuner_p.comm = "tuner";
  bench_child.pid = 600;  // an exec benchmark's process
  bench_child.ppid = 500;
  bench_child.starttime = 9000;
  reused.starttime = hostile.starttime + 50;  // pid 2010 again, another process

  ProcessSample before, after;
  before.self = after.self = 500;
  before.processes = {init, ksoftirqd, tuner_p, hostile};
  after.processes = {with_ticks(init, init.utime + 1, init.stime),
                     with_ticks(ksoftirqd, ksoftirqd.utime, ksoftirqd.stime + 30),
                     with_ticks(tuner_p, 99999), with_ticks(bench_child, 500),
                     with_ticks(reused, 40)};
  // Run queue waits: init's threads 0.5 s more, tuner's and its child's not counted.
  after.processes[0].wait_ns = init.wait_ns + 500'000'000;
  after.processes[2].wait_ns = tuner_p.wait_ns + 9'000'000'000;
  after.processes[3].wait_ns = 7'000'000'000;
  auto uses = process_use(before, after, 16);
  REQUIRE(uses.size() == 3);
  // Largest demand first: init (below), the new pid 2010 counting from 0 (40 ticks),
  // ksoftirqd 30.
  CHECK(uses[1].pid == 2010);
  CHECK(uses[1].cpu_s == doctest::Approx(0.40));
  CHECK(uses[1].comm == "x) 1 R\n\033[2J 9");
  CHECK(uses[2].pid == 14);
  CHECK(uses[2].kernel_thread);
  CHECK(uses[2].cpu_s == doctest::Approx(0.30));
  // init used 1 tick and waited 0.5 s: its demand, 0.51 s, the largest.
  CHECK(uses[0].pid == 1);
  CHECK(uses[0].demand_s() == doctest::Approx(0.51));
  CHECK(uses[0].wait_s == doctest::Approx(0.5));
  CHECK(others_wait_s(before, after) == doctest::Approx(0.5));
  CHECK(process_use(before, after, 1).size() == 1);
  // Without a self (a capture), tuner's pid counts like any other.
  after.self = 0;
  CHECK(process_use(before, after, 16).size() == 5);
}
