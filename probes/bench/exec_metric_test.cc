#include "probes/bench/exec_metric.h"

#include <chrono>
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
  // nlohmann's exception ids are its own business, not the user's.
  CHECK(error_of(extract_json("{\"a\": 1", "/a")).find("[json.exception") == std::string::npos);
  CHECK(error_of(extract_json("{}", "end/x")).find("[json.exception") == std::string::npos);
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

TEST_CASE("exec metric: a 16 MiB line is matched in linear time, without deep recursion") {
  // std::regex recursed once per character: 50,000 digits overflowed an 8 MiB stack.
  std::string digits = "1." + std::string(50'000, '0');
  CHECK(must(extract_regex(digits + " ops/s\n", "([0-9.]+) ops/s")) == 1);
  std::string long_line = std::string(16u << 20, 'x') + " 42.5 ops/s\n";
  auto t0 = std::chrono::steady_clock::now();
  CHECK(must(extract_regex(long_line, "([0-9.]+) ops/s")) == 42.5);
  // A pattern that backtracking engines take exponential time on, over 1 MiB of 'a'.
  std::string as(1u << 20, 'a');
  CHECK(error_of(extract_regex(as, "((a+)+)b")).find("matched nothing") != std::string::npos);
  // Linear: well under the shortest timeout a profile may give a benchmark, even on a
  // loaded machine (measured: about 0.1 s here).
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
}

TEST_CASE("exec metric: a '\\r' progress meter is one line per redraw") {
  // Each redraw ends with '\r'; anchored on a whole line, only the redraws match.
  std::string meter = "start\n\r 10.0 ops/s\r 20.0 ops/s\r 30.5 ops/s\r\ndone\n";
  CHECK(must(extract_regex(meter, R"(^\s*([0-9.]+) ops/s$)")) == 30.5);
  CHECK(must(extract_regex("a 1 ops/s\r\nb 2 ops/s\r\n", R"(^b ([0-9]+) ops/s$)")) == 2);
  // The last line that matches wins, and within it the last match.
  CHECK(must(extract_regex("x=1 x=2\nnone\n", R"(x=(\d))")) == 2);
}

TEST_CASE("exec metric: the pattern is RE2; what RE2 refuses is an error naming it") {
  // Lookaround, backreferences and possessive quantifiers are not RE2 (std::regex took
  // the first two).
  for (const char* p : {R"(([0-9]+)(?= ops))", R"((\d)\1)", R"((\d++))", R"((?<!x)(\d))"}) {
    tuner::Status s = validate(MetricExpr{MetricExpr::Kind::regex, p});
    REQUIRE_MESSAGE(!s.ok(), p);
    CHECK(s.error().what.find("is not valid RE2 syntax") != std::string::npos);
  }
  CHECK(validate(MetricExpr{MetricExpr::Kind::regex, R"((?i)avg\s*:\s*(\d+(?:\.\d+)?))"}).ok());
}

TEST_CASE("exec metric: matching stops at the deadline with an error that says so") {
  std::string many;
  for (int i = 0; i < 100'000; ++i) many += "1 ops/s ";
  auto past = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  std::string e = error_of(extract_regex(many, "([0-9]+) ops/s", past));
  CHECK(e.find("ran out of time") != std::string::npos);
  CHECK(must(extract_regex(many, "([0-9]+) ops/s")) == 1);
}

TEST_CASE("exec metric: JSON nested 100,000 deep is an error, no crash") {
  std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
  // "/0" holds an array: its error message dump()s it, recursing once per level.
  std::string e = error_of(extract_json(deep, "/0"));
  CHECK(e == "output is not usable JSON: stdout:1:257: arrays and objects nest deeper than 256 "
             "levels");
  std::string ok = std::string(200, '[') + "7" + std::string(200, ']');
  std::string ptr;
  for (int i = 0; i < 200; ++i) ptr += "/0";
  CHECK(must(extract_json(ok, ptr)) == 7);
}
