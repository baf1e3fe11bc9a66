// The server's facts (Mode::info): a bench server reports its net.ipv4.tcp_wmem maximum,
// tagged with the session, and a server from before the message is "unknown", not an
// error. Over loopback, against the real server and one that predates the mode.
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <doctest/doctest.h>

#include "probes/bench/tcp.h"
#include "probes/bench/tcp_buffers.h"
#include "probes/bench/tcp_client.h"
#include "probes/bench/tcp_server.h"

using namespace tuner;
using namespace tuner::bench;
using namespace std::chrono_literals;

namespace {

const tcp::PeerKey kKey{"the rollout's shared key, 32 b."};

struct Served {
  std::unique_ptr<tcp::TcpServer> server;
  tcp::Endpoint at;
};

Served serve(tcp::TcpWmemMaxFn fn) {
  tcp::ServerOptions o;
  o.at = *tcp::parse_endpoint("127.0.0.1", 0);
  o.key = kKey;
  o.tcp_wmem_max = std::move(fn);
  auto s = tcp::TcpServer::start(o);
  REQUIRE(s.ok());
  Served out{std::move(*s), {}};
  out.at = *tcp::parse_endpoint("127.0.0.1", out.server->port());
  return out;
}

/// A server from before Mode::info: it closes a connection whose hello asks for it (as
/// decode() did for a mode it did not know) and serves every other one.
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
        if (hello[5] == static_cast<uint8_t>(tcp::Mode::info)) continue;  // closed
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

TEST_CASE("tcp_mem_max: the third of three whole numbers") {
  CHECK(tcp::tcp_mem_max("4096\t16384\t4194304\n") == 4194304u);
  CHECK(tcp::tcp_mem_max("4096 131072 268435456") == 268435456u);
  CHECK_FALSE(tcp::tcp_mem_max("4096 16384"));
  CHECK_FALSE(tcp::tcp_mem_max("4096 16384 4194304 1"));
  CHECK_FALSE(tcp::tcp_mem_max("4096 16384 lots"));
  CHECK_FALSE(tcp::tcp_mem_max(""));
}

TEST_CASE("tcp hello: Mode::info is a mode; the next one is not") {
  auto b = tcp::encode(tcp::Hello{tcp::Mode::info, 1, 0});
  auto h = tcp::decode(b.data());
  REQUIRE(h.ok());
  CHECK(h->mode == tcp::Mode::info);
  b[5] = 6;
  CHECK_FALSE(tcp::decode(b.data()).ok());
}

TEST_CASE("tcp auth: an info answer is tagged for its session and is not a byte count") {
  tcp::Session s;
  s.client.fill(1);
  s.server.fill(2);
  auto m = tcp::info_message(kKey, s, 4194304);
  auto v = tcp::read_info(kKey, s, m.data());
  REQUIRE(v.ok());
  CHECK(*v == 4194304u);
  CHECK(tcp::read_count(kKey, s, m.data()).error().is(ErrorKind::denied));
  auto count = tcp::count_message(kKey, s, 4194304);
  CHECK(tcp::read_info(kKey, s, count.data()).error().is(ErrorKind::denied));
  tcp::Session other = s;
  other.server.fill(3);
  CHECK(tcp::read_info(kKey, other, m.data()).error().is(ErrorKind::denied));
  m[7] ^= 1;  // a changed value fails its tag
  CHECK(tcp::read_info(kKey, s, m.data()).error().is(ErrorKind::denied));
}

TEST_CASE("tcp server: answers Mode::info with its tcp_wmem maximum") {
  Served srv = serve([]() -> Result<uint64_t> { return uint64_t{4194304}; });
  auto f = tcp::server_facts(srv.at, kKey, 2s);
  REQUIRE_MESSAGE(f.ok(), (f.ok() ? "" : f.error().message()));
  CHECK(f->tcp_wmem_max == 4194304u);
  CHECK_FALSE(f->old_server);

  // One that cannot read its own: 0 on the wire, unknown here, but not an old server.
  Served blind = serve([]() -> Result<uint64_t> { return Error::io("no /proc", "test"); });
  auto g = tcp::server_facts(blind.at, kKey, 2s);
  REQUIRE(g.ok());
  CHECK_FALSE(g->tcp_wmem_max);
  CHECK_FALSE(g->old_server);

  // A client without the key learns nothing.
  auto denied = tcp::server_facts(srv.at, tcp::PeerKey{"another rollout's key, 32 bytes"}, 2s);
  REQUIRE_FALSE(denied.ok());
  CHECK(denied.error().is(ErrorKind::denied));
}

TEST_CASE("tcp server: by default reports this namespace's /proc/sys/net/ipv4/tcp_wmem") {
  auto own = tcp::read_tcp_wmem_max();
  REQUIRE_MESSAGE(own.ok(), (own.ok() ? "" : own.error().message()));
  CHECK(*own >= 4096u);
  TcpConfig c;  // loopback: an in-process server with the live reader
  auto f = TcpBenchmark(c).server_facts();
  REQUIRE_MESSAGE(f.ok(), (f.ok() ? "" : f.error().message()));
  CHECK(f->tcp_wmem_max == *own);
}

TEST_CASE("tcp client: a server from before Mode::info is unknown, not an error") {
  OldServer old;
  REQUIRE(tcp::probe(old.at, kKey, 2s).ok());  // it serves the rest
  auto f = tcp::server_facts(old.at, kKey, 2s);
  REQUIRE_MESSAGE(f.ok(), (f.ok() ? "" : f.error().message()));
  CHECK(f->old_server);
  CHECK_FALSE(f->tcp_wmem_max);
}

TEST_CASE("tcp client: no server there is an error") {
  Served gone = serve({});
  tcp::Endpoint at = gone.at;
  gone.server->stop();
  auto f = tcp::server_facts(at, kKey, 500ms);
  CHECK_FALSE(f.ok());
}
