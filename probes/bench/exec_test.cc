#include "probes/bench/exec.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include <doctest/doctest.h>

#include "base/runner_fake.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"

using namespace tuner;
using namespace tuner::bench;
using namespace std::chrono_literals;
using tuner::testing::FakeRunner;

namespace {

ExecConfig iperf3_config(int port) {
  ExecConfig c;
  c.name = "iperf3-loopback";
  c.command = {"iperf3", "-c", "127.0.0.1", "-p", std::to_string(port), "-t", "1", "-J"};
  c.metric = {MetricExpr::Kind::json, "/end/sum_received/bits_per_second"};
  c.unit = "bit/s";
  c.timeout = 20s;
  return c;
}

std::string error_of(const Result<Measurement>& r) {
  REQUIRE_FALSE(r.ok());
  return r.error().message();
}

}  // namespace

TEST_CASE("exec bench: runs the argument vector with its timeout and reports the metric") {
  auto fake = std::make_shared<FakeRunner>();
  fake->push_exit(0, tuner::testing::read_text(std::string(TUNER_TEST_DATA) +
                                               "/bench/iperf3-client-loopback.json"));
  ExecBenchmark b(iperf3_config(5299), fake);
  auto m = b.run();
  REQUIRE_MESSAGE(m.ok(), (m.ok() ? "" : m.error().message()));
  REQUIRE(m->metrics.size() == 1);
  CHECK(m->metrics[0].name == "iperf3-loopback");
  CHECK(m->metrics[0].value == doctest::Approx(13703180459.247246));
  CHECK(m->metrics[0].unit == "bit/s");
  CHECK(m->metrics[0].direction == Direction::higher);
  REQUIRE(fake->runs.size() == 1);
  CHECK(fake->runs[0].argv == b.config().command);
  CHECK(fake->runs[0].timeout == 20s);
  // The metric is the last match: the end of a long output is what is kept.
  CHECK(fake->runs[0].keep == RunSpec::Keep::tail);
}

TEST_CASE("exec bench: a failed, killed or silent command is an error naming bench and program") {
  auto fake = std::make_shared<FakeRunner>();
  ExecBenchmark b(iperf3_config(5299), fake);

  fake->push_exit(1, "", "iperf3: error - unable to connect to server: Connection refused\n");
  CHECK(error_of(b.run()) ==
        "bench 'iperf3-loopback': iperf3 exited with status 1; stderr ends: iperf3: error - "
        "unable to connect to server: Connection refused");

  RunResult timed_out;
  timed_out.timed_out = true;
  timed_out.signal = 15;
  timed_out.err = "warming up\n";
  fake->push(timed_out);
  CHECK(error_of(b.run()) == "bench 'iperf3-loopback': iperf3 timed out after 20 s and was "
                             "killed; stderr ends: warming up");

  fake->push_exit(0, "{\"start\": {}}\n");
  CHECK(error_of(b.run()) ==
        "bench 'iperf3-loopback': no metric in the output of iperf3: no value at json pointer "
        "/end/sum_received/bits_per_second (the document has: start)");

  fake->push(Error::missing("cannot run", "/usr/bin/iperf3", ENOENT));
  CHECK(error_of(b.run()) ==
        "bench 'iperf3-loopback': /usr/bin/iperf3: cannot run: No such file or directory");
}

TEST_CASE("exec bench: check() finds the program and validates the config up front") {
  ExecConfig c = iperf3_config(5299);
  c.command = {"sh", "-c", "true"};
  CHECK(ExecBenchmark(c).check().ok());
  c.command = {"tuner-no-such-bench-xyz"};
  Status s = ExecBenchmark(c).check();
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message().find("bench 'iperf3-loopback': command tuner-no-such-bench-xyz: ") ==
        0);
  c.command = {};
  CHECK_FALSE(ExecBenchmark(c).check().ok());
  c.command = {"sh"};
  c.timeout = 0s;
  CHECK(ExecBenchmark(c).check().error().message().find("'timeout' must be above 0") !=
        std::string::npos);
  c.timeout = 1s;
  c.metric = {MetricExpr::Kind::regex, "no group"};
  CHECK(ExecBenchmark(c).check().error().message().find("'metric': regex 'no group' has no "
                                                        "capture group") != std::string::npos);
}

TEST_CASE("exec bench: as root, a program another user could have written is refused") {
  if (::geteuid() != 0) {
    MESSAGE("skipped: needs root (chown; the check only applies to root)");
    return;
  }
  testing::TempDir tmp;
  std::string prog = tmp.write("bench.sh", "#!/bin/sh\necho '1 ops/s'\n");
  REQUIRE(::chmod(prog.c_str(), 0755) == 0);
  ExecConfig c = iperf3_config(5299);
  c.command = {prog};
  CHECK(ExecBenchmark(c).check().ok());
  REQUIRE(::chown(prog.c_str(), 65534, 65534) == 0);
  Status s = ExecBenchmark(c).check();
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message() == "bench 'iperf3-loopback': command " + prog + ": " + prog +
                                   ": benchmark program is owned by uid 65534 (nobody); root "
                                   "uses no benchmark program another user could have written");
  REQUIRE(::chown(prog.c_str(), 0, 0) == 0);
  REQUIRE(::chmod(prog.c_str(), 0777) == 0);
  CHECK(ExecBenchmark(c).check().error().message().find("group- or world-writable") !=
        std::string::npos);
}

TEST_CASE("exec bench: a real command, its real output, lower-is-better") {
  ExecConfig c;
  c.name = "latency-script";
  c.command = {"sh", "-c", "echo 'p99 latency: 41.5 us'; echo 'p99 latency: 38.25 us'"};
  c.metric = {MetricExpr::Kind::regex, R"(p99 latency: ([0-9.]+) us)"};
  c.direction = Direction::lower;
  c.unit = "us";
  auto m = ExecBenchmark(c).run();
  REQUIRE_MESSAGE(m.ok(), (m.ok() ? "" : m.error().message()));
  CHECK(m->metrics[0].value == 38.25);
  CHECK(m->metrics[0].direction == Direction::lower);

  c.command = {"sh", "-c", "sleep 5"};
  c.timeout = 200ms;
  auto t0 = std::chrono::steady_clock::now();
  CHECK(error_of(ExecBenchmark(c).run()).find("timed out after 200 ms") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - t0 < 3s);
}

TEST_CASE("exec bench: the summary after 20 MiB of progress is found (the tail is kept)") {
  ExecConfig c;
  c.name = "chatty";
  c.command = {"sh", "-c", "yes 'progress: 1 ops/s' | head -c 20000000; echo 'total: 99 ops/s'"};
  c.metric = {MetricExpr::Kind::regex, R"(total: ([0-9.]+) ops/s)"};
  c.unit = "ops/s";
  c.timeout = 20s;
  auto m = ExecBenchmark(c).run();
  REQUIRE_MESSAGE(m.ok(), (m.ok() ? "" : m.error().message()));
  CHECK(m->metrics[0].value == 99);
}

TEST_CASE("exec bench: finding the metric is bounded by the timeout (plus 1 s to read)") {
  // One 16 MiB line of 2 million matches, the last one the metric: RE2 is linear per
  // search, and the timeout bounds the searches together.
  ExecConfig c;
  c.name = "many-matches";
  c.command = {"sh", "-c", "yes '1 ops/s' | tr '\\n' ' ' | head -c 16777200; echo ' 7 ops/s'"};
  c.metric = {MetricExpr::Kind::regex, R"(([0-9]+) ops/s)"};
  c.unit = "ops/s";
  c.timeout = 1s;
  auto t0 = std::chrono::steady_clock::now();
  auto m = ExecBenchmark(c).run();
  auto took = std::chrono::steady_clock::now() - t0;
  // Either it was found in time, or the error says the time ran out; never later.
  if (m.ok()) CHECK(m->metrics[0].value == 7);
  else
    CHECK_MESSAGE((m.error().message().find("ran out of time") != std::string::npos ||
                   m.error().message().find("timed out") != std::string::npos),
                  m.error().message());
  CHECK(took < 2500ms);
}

TEST_CASE("exec bench: iperf3 -J over loopback (live)") {
  if (!find_executable("iperf3").ok()) {
    MESSAGE("skipped: iperf3 is not installed");
    return;
  }
  int port = 20000 + static_cast<int>(::getpid() % 20000);
  ProcessRunner runner;
  RunSpec server;
  server.argv = {"iperf3", "-s", "-1", "-B", "127.0.0.1", "-p", std::to_string(port)};
  server.timeout = 30s;
  std::thread srv([&] { (void)runner.run(server); });
  ExecBenchmark b(iperf3_config(port));
  REQUIRE(b.check().ok());
  Result<Measurement> m = Error::io("not run");
  for (int attempt = 0; attempt < 20; ++attempt) {  // until the server listens
    m = b.run();
    if (m.ok()) break;
    std::this_thread::sleep_for(100ms);
  }
  srv.join();
  REQUIRE_MESSAGE(m.ok(), (m.ok() ? "" : m.error().message()));
  CHECK(m->metrics[0].value > 1e8);  // loopback moves far more than 100 Mbit/s
  CHECK(m->elapsed >= 1s);
}

TEST_CASE("exec bench: fio --output-format=json on a file in /tmp (live)") {
  if (!find_executable("fio").ok()) {
    MESSAGE("skipped: fio is not installed");
    return;
  }
  char dir[] = "/tmp/tuner-fio-XXXXXX";
  REQUIRE(::mkdtemp(dir));
  std::string file = std::string(dir) + "/data";
  ExecConfig c;
  c.name = "fio-read";
  c.command = {
      "fio",      "--name=read", "--filename=" + file, "--size=8M",        "--rw=read",
      "--bs=64k", "--runtime=1", "--time_based",       "--ioengine=psync", "--output-format=json"};
  c.metric = {MetricExpr::Kind::json, "/jobs/0/read/iops"};
  c.unit = "IOPS";
  auto m = ExecBenchmark(c).run();
  std::remove(file.c_str());
  ::rmdir(dir);
  REQUIRE_MESSAGE(m.ok(), (m.ok() ? "" : m.error().message()));
  CHECK(m->metrics[0].value > 0);
  CHECK(m->metrics[0].unit == "IOPS");
}
