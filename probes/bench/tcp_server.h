// The tcp benchmark's server side. The same server runs in-process (loopback, or with
// its listener inside a named netns) or on a peer machine through serve(). It only
// answers tuner clients that hold its key (tcp_auth.h): a connection that does not open
// with a valid hello and prove the key within 2 s is closed, having been told nothing.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "base/cpuset.h"
#include "probes/bench/bench.h"
#include "probes/bench/tcp_auth.h"
#include "probes/bench/tcp_wire.h"

namespace tuner::bench::tcp {

/// What the server answers a Mode::info hello with: its net.ipv4.tcp_wmem maximum, read
/// at each question (a peer may apply a profile while it serves).
using TcpWmemMaxFn = std::function<Result<uint64_t>()>;

struct ServerOptions {
  /// Where to listen; port 0 picks a free one (see TcpServer::port()).
  Endpoint at;
  /// A /run/netns name to listen in; "" is the caller's namespace.
  std::string netns;
  /// CPUs the server's threads run on; empty leaves them unbound.
  CpuSet cpus;
  /// Connections served at once; more are closed at accept.
  unsigned max_connections = 64;
  /// Connections served at once from one source address (a client's 32 streams fit):
  /// one host cannot take every slot.
  unsigned max_per_source = 33;
  /// The key clients must prove (tcp_auth.h); an empty key serves nobody.
  PeerKey key;
  /// What a Mode::info hello is answered with; empty: read_tcp_wmem_max(netns), this
  /// listener's namespace's (tests put a fixed value here).
  TcpWmemMaxFn tcp_wmem_max = {};
};

/// A listening server with its accept thread. Each connection gets a thread, bounded by
/// 2 s to authenticate, then by the client's announced duration plus 10 s and a 5 s idle
/// timeout; a stream_in connection sends for the announced duration by the server's own
/// clock, each send and wait bounded by the same 5 s.
class TcpServer {
 public:
  static Result<std::unique_ptr<TcpServer>> start(ServerOptions options);
  ~TcpServer();
  TcpServer(const TcpServer&) = delete;
  TcpServer& operator=(const TcpServer&) = delete;

  uint16_t port() const { return port_; }
  /// Stops accepting, shuts down open connections and joins every thread. Idempotent.
  void stop();
  /// Connections accepted so far.
  unsigned accepted() const { return accepted_.load(); }
  /// Connections closed because they did not prove the key (or sent no valid hello).
  unsigned refused() const { return refused_.load(); }
  /// TCP_INFO of every connection served to its end, read as its exchange ended (before
  /// the close): what the server's sockets sent and retransmitted. On loopback these
  /// segments are in the namespace's TCP counter beside the client's.
  ConnectionCounters served() const;

 private:
  struct Conn;
  explicit TcpServer(ServerOptions options);
  void accept_loop();
  void reap(bool all);

  ServerOptions options_;
  Socket listener_;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<unsigned> accepted_{0};
  std::atomic<unsigned> refused_{0};
  std::thread acceptor_;
  mutable std::mutex mu_;
  std::list<std::unique_ptr<Conn>> conns_;
  ConnectionCounters served_;  // under mu_
};

/// What `tuner bench --serve` (wired by the CLI) runs on a peer.
struct ServeOptions {
  ServerOptions server;
  /// How long to serve; serve() returns after it. Bounded to 24 h.
  std::chrono::seconds lifetime{600};
  /// Called once listening, with the port (for port 0 and for the CLI's message).
  std::function<void(uint16_t)> on_listening;
  /// Polled every 100 ms; returning true ends serve() early (a signal handler's flag).
  std::function<bool()> should_stop;
};

/// Serves tcp benchmark clients for `lifetime`, then stops. Errors: cannot listen.
Status serve(const ServeOptions& options);

/// Handles one accepted connection: the handshake (tcp_auth.h), then the mode's
/// exchange. Exposed for tests; returns how the connection ended (Error::denied: the
/// client did not prove the key). Mode::info answers `tcp_wmem_max()` (0 when it fails
/// or is not given: "could not read it").
Status handle_connection(int fd, const PeerKey& key, const TcpWmemMaxFn& tcp_wmem_max = {});

}  // namespace tuner::bench::tcp
