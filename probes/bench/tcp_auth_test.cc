// The peer key's challenge-response on real sockets over loopback: who does not hold the
// key gets nothing and changes nothing, on either side of the connection.
#include "probes/bench/tcp_auth.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

#include <doctest/doctest.h>

#include "probes/bench/tcp.h"
#include "probes/bench/tcp_client.h"
#include "probes/bench/tcp_server.h"
#include "tests/support/temp_dir.h"

using namespace tuner;
using namespace tuner::bench;
using namespace std::chrono_literals;

namespace {

using Clock = std::chrono::steady_clock;

const tcp::PeerKey kKey{"0123456789abcdef0123456789abcdef"};

struct Served {
  std::unique_ptr<tcp::TcpServer> server;
  tcp::Endpoint at;
};

Served start(const tcp::PeerKey& key, unsigned per_source = 33) {
  tcp::ServerOptions o;
  o.at = *tcp::parse_endpoint("127.0.0.1", 0);
  o.key = key;
  o.max_per_source = per_source;
  auto s = tcp::TcpServer::start(o);
  REQUIRE(s.ok());
  Served out;
  out.at = *tcp::parse_endpoint("127.0.0.1", (*s)->port());
  out.server = std::move(*s);
  return out;
}

/// A listener of our own on a free loopback port: the squatter or the slow peer.
struct Squatter {
  tcp::Socket listener;
  tcp::Endpoint at;
  Squatter() {
    auto l = tcp::listen_on(*tcp::parse_endpoint("127.0.0.1", 0), "");
    REQUIRE(l.ok());
    listener = std::move(*l);
    at = *tcp::parse_endpoint("127.0.0.1", *tcp::local_port(listener.get()));
  }
  tcp::Socket accept_one() const {
    return tcp::Socket(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
  }
};

TcpConfig peer_config(const tcp::Endpoint& at, const tcp::PeerKey& key) {
  TcpConfig c;
  c.placement = TcpConfig::Placement::peer;
  c.address = "127.0.0.1";
  c.port = at.port();
  c.duration = 200ms;
  c.rr_duration = 100ms;
  c.key = key;
  return c;
}

}  // namespace

TEST_CASE("peer key: the right key is served, a wrong one gets nothing on either side") {
  Served s = start(kKey);
  CHECK(tcp::probe(s.at, kKey, 1s).ok());
  auto m = TcpBenchmark(peer_config(s.at, kKey)).run();
  CHECK_MESSAGE(m.ok(), (m.ok() ? "" : m.error().message()));
  CHECK(s.server->refused() == 0);

  tcp::PeerKey wrong{"0123456789abcdef0123456789abcdeX"};
  Status p = TcpBenchmark(peer_config(s.at, wrong)).check();
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().message().find("did not prove the peer key") != std::string::npos);
  auto r = TcpBenchmark(peer_config(s.at, wrong)).run();
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message().find("did not prove the peer key") != std::string::npos);
}

TEST_CASE("peer key: a client that cannot prove the key is dropped and told nothing") {
  Served s = start(kKey);
  // A client that knows the protocol but not the key: the server's proof comes back (it
  // reveals nothing), then the wrong proof closes the connection before any service.
  auto sock = tcp::connect_to(s.at, 1s, 2s);
  REQUIRE(sock.ok());
  auto hello = tcp::encode(tcp::Hello{tcp::Mode::stream, 4096, 1000});
  uint8_t nonce[tcp::kNonceSize] = {};
  REQUIRE(tcp::send_all(sock->get(), hello.data(), hello.size(), "hello").ok());
  REQUIRE(tcp::send_all(sock->get(), nonce, sizeof nonce, "nonce").ok());
  uint8_t challenge[tcp::kNonceSize + tcp::kProofSize];
  REQUIRE(tcp::recv_all(sock->get(), challenge, sizeof challenge, "challenge").ok());
  uint8_t guess[tcp::kProofSize] = {};
  REQUIRE(tcp::send_all(sock->get(), guess, sizeof guess, "proof").ok());
  char c;
  CHECK(::recv(sock->get(), &c, 1, 0) <= 0);
  for (int i = 0; i < 100 && s.server->refused() == 0; ++i) std::this_thread::sleep_for(10ms);
  CHECK(s.server->refused() == 1);
}

TEST_CASE("peer key: an older client's hello and a silent connection are dropped at once") {
  Served s = start(kKey);
  {
    auto sock = tcp::connect_to(s.at, 1s, 3s);
    REQUIRE(sock.ok());
    auto hello = tcp::encode(tcp::Hello{tcp::Mode::probe, 1, 0});
    hello[4] = 1;  // version 1: no key
    REQUIRE(tcp::send_all(sock->get(), hello.data(), hello.size(), "hello").ok());
    char c;
    CHECK(::recv(sock->get(), &c, 1, 0) <= 0);
  }
  auto sock = tcp::connect_to(s.at, 1s, 5s);
  REQUIRE(sock.ok());
  auto t0 = Clock::now();
  char c;
  CHECK(::recv(sock->get(), &c, 1, 0) <= 0);  // nothing sent: dropped, not kept for 5 s
  CHECK(Clock::now() - t0 < 2s);
}

TEST_CASE("peer key: a squatter on the port cannot pass for the server") {
  Squatter sq;
  // The squatter answers like the old protocol did: it echoes what it reads.
  std::thread fake([&] {
    tcp::Socket conn = sq.accept_one();
    uint8_t buf[64] = {};
    ssize_t k = ::recv(conn.get(), buf, sizeof buf, 0);
    // Padded to the length of a server's nonce and proof: it looks the part.
    if (k > 0) (void)::send(conn.get(), buf, 48, MSG_NOSIGNAL);
    std::this_thread::sleep_for(200ms);
  });
  Status p = TcpBenchmark(peer_config(sq.at, kKey)).check();
  fake.join();
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().message().find("did not prove the peer key") != std::string::npos);
}

TEST_CASE("peer key: a peer benchmark without a key does not run") {
  Served s = start(kKey);
  Status p = TcpBenchmark(peer_config(s.at, tcp::PeerKey{})).check();
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().message().find("needs the rollout's key") != std::string::npos);
  CHECK(s.server->accepted() == 0);
}

TEST_CASE("peer key: a byte count without the session's tag is refused") {
  Squatter sq;
  // A server that holds the key but reports a count of its own making (say, a relay).
  std::thread liar([&] {
    tcp::Socket conn = sq.accept_one();
    (void)tcp::set_io_timeout(conn.get(), 2s);
    auto session = tcp::server_handshake(conn.get(), kKey);
    if (!session.ok()) return;
    char buf[65536];
    uint64_t total = 0;
    for (ssize_t k; (k = ::recv(conn.get(), buf, sizeof buf, 0)) > 0;)
      total += static_cast<uint64_t>(k);
    uint8_t out[8 + tcp::kProofSize] = {};
    for (int i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(total >> (56 - 8 * i));
    (void)tcp::send_all(conn.get(), out, sizeof out, "count");
  });
  auto r = tcp::run_streams(sq.at, kKey, tcp::Mode::stream, 1, 100ms, 4096, {});
  liar.join();
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message().find("tag does not match") != std::string::npos);
}

TEST_CASE("peer key: a trickling server cannot stretch a phase past its deadline") {
  Squatter sq;
  std::atomic<bool> stop{false};
  std::thread slow([&] {
    tcp::Socket conn = sq.accept_one();
    (void)tcp::set_io_timeout(conn.get(), 5s);
    if (!tcp::server_handshake(conn.get(), kKey).ok()) return;
    // A small receive buffer, read one byte every 20 ms: the client's sends block.
    char b;
    while (!stop.load() && ::recv(conn.get(), &b, 1, 0) > 0) std::this_thread::sleep_for(20ms);
  });
  auto t0 = Clock::now();
  auto r = tcp::run_streams(sq.at, kKey, tcp::Mode::stream, 1, 200ms, 1 << 20, {}, 1s);
  auto took = Clock::now() - t0;
  stop = true;
  slow.join();
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message().find("ran past its deadline") != std::string::npos);
  CHECK(took < 3s);  // 200 ms + 1 s of slack, not a 10 s timeout per call
}

TEST_CASE("peer key: one source cannot take every connection") {
  Served s = start(kKey, 2);
  std::vector<tcp::Socket> idle;
  for (int i = 0; i < 2; ++i) {
    auto c = tcp::connect_to(s.at, 1s, 2s);
    REQUIRE(c.ok());
    idle.push_back(std::move(*c));
  }
  for (int i = 0; i < 100 && s.server->accepted() < 2; ++i) std::this_thread::sleep_for(10ms);
  auto third = tcp::connect_to(s.at, 1s, 2s);
  REQUIRE(third.ok());
  auto t0 = Clock::now();
  char c;
  CHECK(::recv(third->get(), &c, 1, 0) <= 0);  // closed at accept
  CHECK(Clock::now() - t0 < 400ms);            // before the idle ones time out
  CHECK(s.server->accepted() == 2);
}

TEST_CASE("peer key: from text, a file, or the environment") {
  CHECK(tcp::key_from_text("short", "x").error().message().find("at least 16") !=
        std::string::npos);
  CHECK(tcp::key_from_text("0123456789abcdef\n", "x")->secret == "0123456789abcdef");
  tuner::testing::TempDir dir;
  std::string path = dir.path + "/key";
  std::ofstream(path) << "0123456789abcdef0123456789abcdef\n";
  ::chmod(path.c_str(), 0600);
  auto k = tcp::read_key_file(path);
  REQUIRE(k.ok());
  CHECK(k->secret == "0123456789abcdef0123456789abcdef");
  if (::geteuid() == 0) {
    ::chmod(path.c_str(), 0644);
    auto open = tcp::read_key_file(path);
    REQUIRE_FALSE(open.ok());
    CHECK(open.error().message().find("can be read by others") != std::string::npos);
  }
  ::unlink(path.c_str());
  ::mkfifo(path.c_str(), 0600);
  CHECK_FALSE(tcp::read_key_file(path).ok());  // a FIFO: refused by type, never waited on
  ::setenv(tcp::kPeerKeyEnv, "fedcba9876543210fedcba9876543210", 1);
  CHECK(tcp::peer_key_from("")->secret == "fedcba9876543210fedcba9876543210");
  ::unsetenv(tcp::kPeerKeyEnv);
  CHECK(tcp::peer_key_from("")->empty());
}
