#include "probes/bench/tcp_wire.h"

#include <doctest/doctest.h>

#include <chrono>

#include "probes/bench/exec_metric.h"

using namespace tuner::bench::tcp;

TEST_CASE("tcp wire: the hello round-trips and has a fixed layout") {
  Hello h{Mode::stream, 128u << 10, 2000};
  auto b = encode(h);
  CHECK(std::string(b.begin(), b.begin() + 4) == "TUNR");
  CHECK(b[4] == 2);
  CHECK(b[5] == 2);
  CHECK(b[8] == 0x00);
  CHECK(b[9] == 0x02);  // 131072 = 0x00020000, big-endian
  auto d = decode(b.data());
  REQUIRE(d.ok());
  CHECK(d->mode == Mode::stream);
  CHECK(d->msg_size == 128u << 10);
  CHECK(d->duration_ms == 2000);
}

TEST_CASE("tcp wire: a hello out of bounds or from something else is refused") {
  auto b = encode(Hello{Mode::rr, 1, 1000});
  auto bad = b;
  bad[0] = 'G';  // "GUNR": an HTTP client, a port scanner
  CHECK(decode(bad.data()).error().what == "not a tuner tcp client (bad magic)");
  bad = b;
  bad[4] = 1;  // an older tuner, without the peer key's challenge-response
  CHECK(decode(bad.data()).error().what == "tcp protocol version 1, this tuner speaks 2");
  bad = b;
  bad[5] = 9;
  CHECK_FALSE(decode(bad.data()).ok());
  CHECK_FALSE(decode(encode(Hello{Mode::stream, 0, 1000}).data()).ok());
  CHECK_FALSE(decode(encode(Hello{Mode::stream, kMaxMsgSize + 1, 1000}).data()).ok());
  CHECK_FALSE(decode(encode(Hello{Mode::stream, 1, kMaxDurationMs + 1}).data()).ok());
}

TEST_CASE("tcp wire: numeric IPv4 and IPv6 addresses only, no DNS") {
  auto v4 = parse_endpoint("10.231.0.2", 5301);
  REQUIRE(v4.ok());
  CHECK(v4->text() == "10.231.0.2:5301");
  CHECK(v4->port() == 5301);
  auto v6 = parse_endpoint("::1", 80);
  REQUIRE(v6.ok());
  CHECK(v6->text() == "[::1]:80");
  CHECK(parse_endpoint("[fd00::2]", 1).value_or(Endpoint{}).text() == "[fd00::2]:1");
  CHECK(parse_endpoint("localhost", 1).error().what ==
        "'localhost' is not a numeric IPv4 or IPv6 address");
  CHECK_FALSE(parse_endpoint("", 1).ok());
  CHECK_FALSE(parse_endpoint("10.0.0.256", 1).ok());
}

TEST_CASE("tcp wire: netns names are plain names under /run/netns") {
  CHECK(check_netns("../../proc/1/ns/net").error().what.find("must be a name") !=
        std::string::npos);
  CHECK_FALSE(check_netns("").ok());
  CHECK(check_netns("tuner-no-such-ns-xyz").error().message() ==
        "/run/netns/tuner-no-such-ns-xyz: no such network namespace: No such file or directory");
}

TEST_CASE("tcp wire and exec metrics: errors carry the kind a caller decides on") {
  using tuner::ErrorKind;
  auto b = encode(Hello{Mode::stream, 1, 1000});
  auto bad_magic = b;
  bad_magic[0] = 'X';
  CHECK(decode(bad_magic.data()).error().is(ErrorKind::invalid));
  auto newer = b;
  newer[4] = 3;  // a protocol version this tuner does not speak
  CHECK(decode(newer.data()).error().is(ErrorKind::unsupported));
  CHECK(parse_endpoint("example.com", 1).error().is(ErrorKind::invalid));
  // A metric the output does not hold is missing; one it holds wrongly is invalid.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  CHECK(tuner::bench::extract_regex("no digits here", "([0-9]+) ops", deadline)
            .error()
            .is(ErrorKind::missing));
  CHECK(tuner::bench::extract_json(R"({"a": 1})", "/b").error().is(ErrorKind::missing));
  CHECK(tuner::bench::extract_json(R"({"a": "x"})", "/a").error().is(ErrorKind::invalid));
  CHECK(tuner::bench::extract_regex("x", "(", deadline).error().is(ErrorKind::invalid));
}
