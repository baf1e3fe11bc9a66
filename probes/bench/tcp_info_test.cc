#include "probes/bench/tcp_info.h"

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

#include <doctest/doctest.h>

#include "probes/bench/tcp.h"

using namespace tuner;
using namespace tuner::bench;
using namespace std::chrono_literals;

TEST_CASE("tcp bench: reports its own connections' segments and retransmits (TCP_INFO)") {
  TcpConfig c;
  c.duration = 300ms;
  c.rr_duration = 200ms;
  c.streams = 2;
  auto r = TcpBenchmark(c).measure();
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message()));
  // Every rr transaction is at least one segment out; the streams send the bytes in
  // segments of at most 64 KiB (loopback's MTU).
  CHECK(r->connections.segs_out >= r->transactions + r->bytes / 65536);
  CHECK(r->connections.retrans <= r->connections.segs_out);
  auto m = TcpBenchmark(c).run();
  REQUIRE(m.ok());
  REQUIRE(m->connections.has_value());
  CHECK(m->connections->segs_out > 0);
}

TEST_CASE("tcp_info: a socket that is not TCP is an error, not zero retransmits") {
  int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
  REQUIRE(fd >= 0);
  auto c = tcp::connection_counters(fd);
  ::close(fd);
  CHECK_FALSE(c.ok());
  CHECK_FALSE(tcp::connection_counters(-1).ok());
}
