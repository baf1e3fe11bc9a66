#include "probes/bench/tcp.h"

#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <doctest/doctest.h>

#include "probes/bench/tcp_client.h"
#include "probes/bench/tcp_server.h"

using namespace tuner;
using namespace tuner::bench;
using namespace std::chrono_literals;

namespace {

TcpConfig quick() {
  TcpConfig c;
  c.duration = 300ms;
  c.rr_duration = 200ms;
  return c;
}

const Metric* find(const Measurement& m, const std::string& name) {
  for (const Metric& x : m.metrics)
    if (x.name == name) return &x;
  return nullptr;
}

}  // namespace

TEST_CASE("tcp bench: loopback throughput and latency, with units and directions") {
  TcpBenchmark b(quick());
  REQUIRE(b.check().ok());
  auto t0 = std::chrono::steady_clock::now();
  auto m = b.run();
  REQUIRE_MESSAGE(m.ok(), (m.ok() ? "" : m.error().message()));
  CHECK(std::chrono::steady_clock::now() - t0 < 3s);  // 0.3 s + 0.2 s plus setup
  REQUIRE(m->metrics.size() == 3);
  CHECK(m->metrics[0].name == "throughput");  // the main metric comes first
  CHECK(m->metrics[0].unit == "bit/s");
  CHECK(m->metrics[0].direction == Direction::higher);
  CHECK(m->metrics[0].value > 1e8);  // any loopback moves more than 100 Mbit/s
  const Metric* p50 = find(*m, "rr_latency_p50");
  const Metric* p99 = find(*m, "rr_latency_p99");
  REQUIRE(p50);
  REQUIRE(p99);
  CHECK(p50->unit == "us");
  CHECK(p50->direction == Direction::lower);
  CHECK(p50->value > 0);
  CHECK(p50->value < 10'000);  // a loopback round trip is not 10 ms
  CHECK(p99->value >= p50->value);
}

TEST_CASE("tcp bench: parallel streams, every byte sent is counted by the server") {
  TcpConfig c = quick();
  c.streams = 4;
  c.rr_duration = 0ms;
  c.write_size = 64u << 10;
  auto r = TcpBenchmark(c).measure();
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message()));
  CHECK(r->bytes > 0);
  CHECK(r->throughput_bps > 1e8);
  CHECK(r->transactions == 0);
  auto m = TcpBenchmark(c).run();
  REQUIRE(m.ok());
  CHECK(m->metrics.size() == 1);  // no rr phase, no latency metrics
}

TEST_CASE("tcp bench: bad settings are refused before anything runs") {
  TcpConfig c;
  c.streams = 0;
  CHECK(validate(c).error().message() == "bench 'tcp': 'streams' = 0 must be 1..32");
  c = TcpConfig{};
  c.duration = 61s;
  CHECK_FALSE(validate(c).ok());
  c = TcpConfig{};
  c.write_size = 100;
  CHECK_FALSE(validate(c).ok());
  c = TcpConfig{};
  c.placement = TcpConfig::Placement::peer;
  CHECK(validate(c).error().message().find("'address' is needed") != std::string::npos);
  c.address = "peer.example";
  CHECK(validate(c).error().message() ==
        "bench 'tcp': 'peer.example' is not a numeric IPv4 or IPv6 address");
  c = TcpConfig{};
  c.placement = TcpConfig::Placement::netns;
  c.address = "10.0.0.2";
  c.netns = "tuner-no-such-ns-xyz";
  CHECK(validate(c).error().message().find("no such network namespace") != std::string::npos);
}

TEST_CASE("tcp bench: a peer running serve(), and a peer with nothing listening") {
  std::atomic<uint16_t> port{0};
  std::atomic<bool> done{false};
  tcp::ServeOptions o;
  o.server.at = *tcp::parse_endpoint("127.0.0.1", 0);
  o.server.key = tcp::PeerKey{"the rollout's shared key, 32 b."};
  o.lifetime = 30s;
  o.on_listening = [&](uint16_t p) { port = p; };
  o.should_stop = [&] { return done.load(); };
  Status served = Error::io("not run");
  std::thread server([&] { served = tcp::serve(o); });
  for (int i = 0; i < 200 && port == 0; ++i) std::this_thread::sleep_for(10ms);
  REQUIRE(port != 0);

  TcpConfig c = quick();
  c.placement = TcpConfig::Placement::peer;
  c.address = "127.0.0.1";
  c.port = port;
  c.key = o.server.key;
  TcpBenchmark b(c);
  CHECK(b.check().ok());
  auto m = b.run();
  CHECK_MESSAGE(m.ok(), (m.ok() ? "" : m.error().message()));
  done = true;
  auto t0 = std::chrono::steady_clock::now();
  server.join();
  CHECK(std::chrono::steady_clock::now() - t0 < 1s);  // should_stop is honoured promptly
  CHECK(served.ok());

  // Nothing listens there now: check() says so instead of the first trial failing.
  Status s = TcpBenchmark(c).check();
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message().find("cannot connect") != std::string::npos);
}

TEST_CASE("tcp server: a stranger is turned away, the next client is served") {
  tcp::ServerOptions o;
  o.at = *tcp::parse_endpoint("127.0.0.1", 0);
  o.key = tcp::random_key();
  auto server = tcp::TcpServer::start(o);
  REQUIRE(server.ok());
  auto at = *tcp::parse_endpoint("127.0.0.1", (*server)->port());
  {
    auto s = tcp::connect_to(at, 1s, 2s);
    REQUIRE(s.ok());
    const char http[] = "GET / HTTP/1.0\r\n\r\n";
    REQUIRE(tcp::send_all(s->get(), http, sizeof http - 1, "a request").ok());
    char c;
    CHECK(::recv(s->get(), &c, 1, 0) <= 0);  // closed (or reset) without an answer
  }
  CHECK(tcp::probe(at, o.key, 1s).ok());
  CHECK((*server)->accepted() == 2);
  auto t0 = std::chrono::steady_clock::now();
  (*server)->stop();
  CHECK(std::chrono::steady_clock::now() - t0 < 1s);
  CHECK_FALSE(tcp::probe(at, o.key, 500ms).ok());
}
