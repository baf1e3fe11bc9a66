#include "probes/bench/exec_metric.h"

#include <string>

#include <doctest/doctest.h>

#include "tests/support/files.h"

using namespace tuner::bench;
using tuner::testing::read_text;

namespace {

std::string fixture(const std::string& name) {
  return read_text(std::string(TUNER_TEST_DATA) + "/bench/" + name);
}

double must(const tuner::Result<double>& r) {
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message()));
  return *r;
}

std::string error_of(const tuner::Result<double>& r) {
  REQUIRE_FALSE(r.ok());
  return r.error().message();
}

}  // namespace

TEST_CASE("exec metric: iperf3 -J, receiver throughput and sender retransmits") {
  std::string out = fixture("iperf3-client-loopback.json");
  CHECK(must(extract_json(out, "/end/sum_received/bits_per_second")) ==
        doctest::Approx(13703180459.247246));
  CHECK(must(extract_json(out, "/end/sum_sent/retransmits")) == 4);
  CHECK(must(extract_json(out, "/end/streams/0/sender/mean_rtt")) == 52);
  // A typo gets a hint listing what is there.
  std::string e = error_of(extract_json(out, "/end/sum_recieved/bits_per_second"));
  CHECK(e.find("no value at json pointer /end/sum_recieved/bits_per_second") != std::string::npos);
  CHECK(e.find("/end has: ") != std::string::npos);
  CHECK(e.find("sum_received") != std::string::npos);
  CHECK(error_of(extract_json(out, "/end/sum_received")).find("holds object") != std::string::npos);
}

TEST_CASE("exec metric: fio JSON, IOPS and a completion-latency percentile") {
  std::string out = fixture("fio-randread-psync.json");
  CHECK(must(extract_json(out, "/jobs/0/read/iops")) == doctest::Approx(14732.071713));
  CHECK(must(extract_json(out, "/jobs/0/read/bw")) == 58928);
  // Percentile keys have dots in them: a JSON pointer takes them as they are.
  CHECK(must(extract_json(out, "/jobs/0/read/clat_ns/percentile/99.000000")) > 0);
  // fio prints notes on stdout before the JSON with some engines.
  std::string noisy = "note: both iodepth >= 1 and synchronous I/O engine are selected\n" + out;
  CHECK(must(extract_json(noisy, "/jobs/0/read/iops")) == doctest::Approx(14732.071713));
}

TEST_CASE("exec metric: nccl-tests all_reduce_perf, average and largest-size bus bandwidth") {
  std::string out = fixture("all_reduce_perf-8xh100.txt");
  CHECK(must(extract_regex(out, R"(# Avg bus bandwidth\s*:\s*([0-9.eE+-]+))")) == 357.472);
  // Every data row matches; the last match is the largest message size (8 GiB).
  std::string busbw = R"(^\s*\d+\s+\d+\s+\w+\s+\w+\s+-?\d+\s+\S+\s+\S+\s+([0-9.]+))";
  CHECK(must(extract_regex(out, busbw)) == 477.59);
  std::string inplace_8g = R"(^\s*8589934592(?:\s+\S+){10}\s+([0-9.]+))";
  CHECK(must(extract_regex(out, inplace_8g)) == 469.21);
}

TEST_CASE("exec metric: numbers are whole-string decimals or scientific") {
  CHECK(must(parse_number("1.2e9")) == 1.2e9);
  CHECK(must(parse_number(" 12.3456\n")) == 12.3456);
  CHECK(must(parse_number("-3")) == -3);
  CHECK(must(parse_number("+7")) == 7);
  for (const char* bad : {"", "12 ops", "1,234", "inf", "nan", "0x10", "--1", "."})
    CHECK_MESSAGE(!parse_number(bad).ok(), bad);
}

TEST_CASE("exec metric: regex takes the first group of the last match") {
  std::string out = "interval 1: 100 ops/s\ninterval 2: 120 ops/s\nsummary: 110.5 ops/s\n";
  CHECK(must(extract_regex(out, R"(([0-9.]+) ops/s)")) == 110.5);
  CHECK(must(extract_regex(out, R"(interval \d+: ([0-9.]+))")) == 120);
  CHECK(must(extract_regex("x=1.5e3 y=2", R"(x=(\S+))")) == 1500);
}

TEST_CASE("exec metric: errors say what went wrong with which expression") {
  CHECK(error_of(extract_regex("rate: fast\n", R"(rate: (\S+))")) ==
        "regex 'rate: (\\S+)' captured 'fast', which is not a number");
  CHECK(error_of(extract_regex("nothing here\n", R"(([0-9]+) ops/s)")) ==
        "regex '([0-9]+) ops/s' matched nothing in 13 bytes of output");
  CHECK(error_of(extract_regex("1", "[0-9]+")).find("has no capture group") != std::string::npos);
  CHECK(error_of(extract_regex("1", "([0-9]+")).find("is not valid") != std::string::npos);
  CHECK(error_of(extract_json("iperf3: error - unable to connect to server\n", "/end"))
            .find("output is not JSON") != std::string::npos);
  CHECK(error_of(extract_json("{\"a\": 1", "/a")).find("output is not JSON") != std::string::npos);
  CHECK(error_of(extract_json("{}", "end/x")).find("json pointer 'end/x' is not valid") !=
        std::string::npos);
  CHECK(error_of(extract_json("{\"a\": true}", "/a")) ==
        "json pointer /a holds boolean true, not a number");
  CHECK(must(extract_json("{\"a\": \"12.5\"}", "/a")) == 12.5);
}

TEST_CASE("exec metric: validate checks the expression before any run") {
  CHECK(validate(MetricExpr{MetricExpr::Kind::regex, "([0-9.]+) ops/s"}).ok());
  CHECK_FALSE(validate(MetricExpr{MetricExpr::Kind::regex, "[0-9.]+ ops/s"}).ok());
  CHECK(validate(MetricExpr{MetricExpr::Kind::json, "/end/sum_received/bits_per_second"}).ok());
  CHECK_FALSE(validate(MetricExpr{MetricExpr::Kind::json, "end"}).ok());
  CHECK(describe(MetricExpr{MetricExpr::Kind::json, "/a"}) == "json pointer /a");
}
