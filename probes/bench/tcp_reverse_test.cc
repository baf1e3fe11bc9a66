// The tcp benchmark's direction "in": the server sends, the client (the node under
// test) receives and counts. Over loopback, against the real server and against one
// that predates the mode.
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include <doctest/doctest.h>

#include "probes/bench/tcp.h"
#include "probes/bench/tcp_client.h"
#include "probes/bench/tcp_server.h"

using namespace tuner;
using namespace tuner::bench;
using namespace std::chrono_literals;

namespace {

using Clock = std::chrono::steady_clock;

const tcp::PeerKey kKey{"the rollout's shared key, 32 b."};

TcpConfig reverse(unsigned streams) {
  TcpConfig c;
  c.direction = StreamDirection::in;
  c.streams = streams;
  c.duration = 300ms;
  c.rr_duration = 0ms;
  c.write_size = 64u << 10;
  return c;
}

/// A server from before stream_in: it closes a connection whose hello asks for it (as
/// decode() did for a mode it did not know) and serves every other one, one at a time.
struct OldServer {
  tcp::Socket listener;
  tcp::Endpoint at;
  std::atomic<bool> done{false};
  std::thread thread;
  OldServer() {
    auto l = tcp::listen_on(*tcp::parse_endpoint("127.0.0.1", 0), "");
    REQUIRE(l.ok());
    listener = std::move(*l);
    REQUIRE(tcp::set_io_timeout(listener.get(), 100ms).ok());  // accept() wakes to see done
    at = *tcp::parse_endpoint("127.0.0.1", *tcp::local_port(listener.get()));
    thread = std::thread([this] {
      while (!done.load()) {
        tcp::Socket conn(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
        if (!conn) continue;
        (void)tcp::set_io_timeout(conn.get(), 2s);
        uint8_t hello[tcp::kHelloSize];
        if (::recv(conn.get(), hello, sizeof hello, MSG_PEEK | MSG_WAITALL) !=
            static_cast<ssize_t>(sizeof hello))
          continue;
        if (hello[5] == static_cast<uint8_t>(tcp::Mode::stream_in)) continue;  // closed
        (void)tcp::handle_connection(conn.get(), kKey);
      }
    });
  }
  ~OldServer() {
    done = true;
    thread.join();
  }
};

}  // namespace

TEST_CASE("tcp bench: direction in over loopback, parallel streams, in bounded time") {
  TcpConfig c = reverse(4);
  TcpBenchmark b(c);
  REQUIRE(b.check().ok());
  auto t0 = Clock::now();
  auto r = b.measure();
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message()));
  CHECK(Clock::now() - t0 < 3s);  // 0.3 s plus setup
  CHECK(r->bytes > 0);
  CHECK(r->throughput_bps > 1e8);  // any loopback moves more than 100 Mbit/s
  REQUIRE(r->loopback);
  CHECK(r->loopback->segs_out > r->connections.segs_out);  // the server's sockets sent too

  auto m = TcpBenchmark(c).run();
  REQUIRE(m.ok());
  REQUIRE(m->metrics.size() == 1);
  CHECK(m->metrics[0].name == "throughput");  // the same metric, unit and direction
  CHECK(m->metrics[0].unit == "bit/s");
  CHECK(m->metrics[0].direction == Direction::higher);
  CHECK(m->metrics[0].value > 1e8);
}

TEST_CASE("tcp server: stream_in sends for the announced duration, then its tagged count") {
  tcp::ServerOptions o;
  o.at = *tcp::parse_endpoint("127.0.0.1", 0);
  o.key = kKey;
  auto server = tcp::TcpServer::start(o);
  REQUIRE(server.ok());
  auto at = *tcp::parse_endpoint("127.0.0.1", (*server)->port());
  auto s = tcp::connect_to(at, 1s, 5s);
  REQUIRE(s.ok());
  auto session = tcp::client_handshake(s->get(), tcp::Hello{tcp::Mode::stream_in, 4096, 300}, kKey);
  REQUIRE_MESSAGE(session.ok(), (session.ok() ? "" : session.error().message()));
  // Nothing comes before the start byte: the streams share one start.
  char c;
  CHECK(::recv(s->get(), &c, 1, MSG_DONTWAIT) < 0);
  auto t0 = Clock::now();
  REQUIRE(tcp::send_all(s->get(), "G", 1, "the start").ok());
  std::vector<uint8_t> all;
  std::vector<uint8_t> buf(1 << 16);
  for (ssize_t k; (k = ::recv(s->get(), buf.data(), buf.size(), 0)) > 0;)
    all.insert(all.end(), buf.begin(), buf.begin() + k);
  auto took = Clock::now() - t0;
  CHECK(took >= 300ms);  // the server's own clock
  CHECK(took < 2s);
  REQUIRE(all.size() > tcp::kCountSize);
  auto count = tcp::read_count(kKey, *session, all.data() + all.size() - tcp::kCountSize);
  REQUIRE(count.ok());
  CHECK(*count == all.size() - tcp::kCountSize);
  CHECK(all.front() == 'T');
}

TEST_CASE("tcp server: a stream_in sender stops when serve() is told to stop") {
  std::atomic<uint16_t> port{0};
  std::atomic<bool> done{false};
  tcp::ServeOptions o;
  o.server.at = *tcp::parse_endpoint("127.0.0.1", 0);
  o.server.key = kKey;
  o.lifetime = 30s;
  o.on_listening = [&](uint16_t p) { port = p; };
  o.should_stop = [&] { return done.load(); };
  std::thread server([&] { (void)tcp::serve(o); });
  for (int i = 0; i < 200 && port == 0; ++i) std::this_thread::sleep_for(10ms);
  REQUIRE(port != 0);
  auto at = *tcp::parse_endpoint("127.0.0.1", port);
  auto s = tcp::connect_to(at, 1s, 5s);
  REQUIRE(s.ok());
  // It asks for a minute; the server's end must not hold serve() that long.
  auto session =
      tcp::client_handshake(s->get(), tcp::Hello{tcp::Mode::stream_in, 4096, 60'000}, kKey);
  REQUIRE(session.ok());
  REQUIRE(tcp::send_all(s->get(), "G", 1, "the start").ok());
  std::vector<char> buf(1 << 16);
  CHECK(::recv(s->get(), buf.data(), buf.size(), 0) > 0);  // sending
  done = true;
  auto t0 = Clock::now();
  server.join();
  CHECK(Clock::now() - t0 < 1s);
  ssize_t k;
  while ((k = ::recv(s->get(), buf.data(), buf.size(), 0)) > 0) {
  }
  CHECK(k <= 0);  // the connection ended without the count
}

TEST_CASE("tcp server: a hello with an unknown mode is refused before anything is sent") {
  int sv[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
  tcp::Socket client(sv[0]), server_end(sv[1]);
  auto hello = tcp::encode(tcp::Hello{tcp::Mode::stream, 4096, 1000});
  hello[5] = 9;
  REQUIRE(tcp::send_all(client.get(), hello.data(), hello.size(), "the hello").ok());
  auto t0 = Clock::now();
  Status s = tcp::handle_connection(server_end.get(), kKey);
  CHECK(Clock::now() - t0 < 1s);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().is(ErrorKind::invalid));
  CHECK(s.error().what == "unknown mode 9");
  char c;
  CHECK(::recv(client.get(), &c, 1, MSG_DONTWAIT) < 0);  // told nothing
}

TEST_CASE("tcp bench: direction in against a server from before it fails clearly, quickly") {
  OldServer old;
  TcpConfig c = reverse(2);
  c.placement = TcpConfig::Placement::peer;
  c.address = "127.0.0.1";
  c.port = old.at.port();
  c.key = kKey;
  TcpConfig out = c;
  out.direction = StreamDirection::out;
  out.streams = 1;                          // the old server here serves one connection at a time
  REQUIRE(TcpBenchmark(out).check().ok());  // it serves what it knows
  auto sent = TcpBenchmark(out).run();
  REQUIRE_MESSAGE(sent.ok(), (sent.ok() ? "" : sent.error().message()));

  auto t0 = Clock::now();
  Status checked = TcpBenchmark(c).check();
  REQUIRE_FALSE(checked.ok());
  CHECK(checked.error().message().find("older than that; upgrade tuner there") !=
        std::string::npos);
  auto ran = TcpBenchmark(c).run();
  REQUIRE_FALSE(ran.ok());
  CHECK(ran.error().message().find("refused the reverse stream") != std::string::npos);
  auto streams = tcp::run_streams(old.at, kKey, tcp::Mode::stream_in, 2, 300ms, 4096, {});
  REQUIRE_FALSE(streams.ok());
  CHECK(streams.error().is(ErrorKind::unsupported));
  CHECK(Clock::now() - t0 < 5s);  // no hang: each fails at the hello
}
