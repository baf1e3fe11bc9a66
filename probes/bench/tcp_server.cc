#include "probes/bench/tcp_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <vector>

#include <fmt/core.h>

#include "probes/bench/bench_bind.h"
#include "probes/bench/tcp_buffers.h"
#include "probes/bench/tcp_info.h"

namespace tuner::bench::tcp {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

struct TcpServer::Conn {
  UniqueFd fd;
  std::string source;  // the peer's address, for the per-source cap
  bool done = false;
  std::thread thread;
};

namespace {

/// The address part of a peer's sockaddr, for counting its connections.
std::string source_address(const sockaddr_storage& from, socklen_t len) {
  char host[INET6_ADDRSTRLEN] = "";
  if (from.ss_family == AF_INET && len >= sizeof(sockaddr_in))
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&from)->sin_addr, host, sizeof host);
  else if (from.ss_family == AF_INET6 && len >= sizeof(sockaddr_in6))
    ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&from)->sin6_addr, host,
                sizeof host);
  return host;
}

Status serve_stream(int fd, const PeerKey& key, const Session& session,
                    Clock::time_point deadline) {
  const Hello& h = session.hello;
  std::vector<char> buf(h.msg_size);
  uint64_t total = 0;
  for (;;) {
    ssize_t k = ::recv(fd, buf.data(), buf.size(), 0);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return errno_error("stream: cannot receive", "tcp server");
    if (k == 0) break;
    total += static_cast<uint64_t>(k);
    if (Clock::now() > deadline)
      return Error::invalid("stream: client ran past its duration", "tcp server");
  }
  // The count, and its tag: the number a decision rests on is provably this server's.
  CountMessage count = count_message(key, session, total);
  return send_all(fd, count.data(), count.size(), "the byte count");
}

/// Mode::stream_in: sends from the client's start byte for the announced duration (by
/// this server's clock, so a client cannot ask for more), then the tagged count of what
/// it sent, and closes its side. stop() shuts the socket down, ending any send at once.
Status serve_stream_in(int fd, const PeerKey& key, const Session& session) {
  const Hello& h = session.hello;
  uint8_t start = 0;
  if (Status s = recv_all(fd, &start, 1, "the start"); !s.ok()) return s;
  std::vector<char> buf(h.msg_size, 'T');
  uint64_t total = 0;
  const auto until = Clock::now() + std::chrono::milliseconds(h.duration_ms);
  while (Clock::now() < until) {
    ssize_t k = ::send(fd, buf.data(), buf.size(), MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return errno_error("stream in: cannot send", "tcp server");
    total += static_cast<uint64_t>(k);
  }
  CountMessage count = count_message(key, session, total);
  if (Status s = send_all(fd, count.data(), count.size(), "the byte count"); !s.ok()) return s;
  if (::shutdown(fd, SHUT_WR) != 0) return errno_error("stream in: shutdown", "tcp server");
  // The client closes once it has read everything: every segment is sent by then, so
  // the counters read after this return are final (the loopback guard subtracts them).
  char end = 0;
  ssize_t k;
  do k = ::recv(fd, &end, 1, 0);
  while (k < 0 && errno == EINTR);
  if (k < 0) return errno_error("stream in: waiting for the client's close", "tcp server");
  return Ok{};
}

Status serve_rr(int fd, const Hello& h, Clock::time_point deadline) {
  Status nd = set_nodelay(fd);
  if (!nd.ok()) return nd;
  std::vector<char> buf(h.msg_size);
  for (;;) {
    ssize_t k = ::recv(fd, buf.data(), buf.size(), 0);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return errno_error("rr: cannot receive", "tcp server");
    if (k == 0) return Ok{};  // the client is done
    if (static_cast<std::size_t>(k) < buf.size()) {
      Status rest =
          recv_all(fd, buf.data() + k, buf.size() - static_cast<std::size_t>(k), "a request");
      if (!rest.ok()) return rest;
    }
    Status s = send_all(fd, buf.data(), buf.size(), "a response");
    if (!s.ok()) return s;
    if (Clock::now() > deadline)
      return Error::invalid("rr: client ran past its duration", "tcp server");
  }
}

/// Mode::info: the tagged answer; the client closes once it has read it.
Status serve_info(int fd, const PeerKey& key, const Session& session,
                  const TcpWmemMaxFn& tcp_wmem_max) {
  uint64_t value = 0;
  if (tcp_wmem_max)
    if (auto v = tcp_wmem_max(); v.ok()) value = *v;
  InfoMessage answer = info_message(key, session, value);
  return send_all(fd, answer.data(), answer.size(), "the answer");
}

}  // namespace

Status handle_connection(int fd, const PeerKey& key, const TcpWmemMaxFn& tcp_wmem_max) {
  if (key.empty()) return Error::denied("the server has no key", "tcp server");
  // Who has not proven the key within 2 s is dropped; each call is bounded, and the
  // handshake is four of them at most.
  Status t = set_io_timeout(fd, 500ms);
  if (!t.ok()) return t;
  auto session = server_handshake(fd, key);
  if (!session.ok()) return session.error();
  t = set_io_timeout(fd, 5s);
  if (!t.ok()) return t;
  const Hello& hello = session->hello;
  auto deadline = Clock::now() + std::chrono::milliseconds(hello.duration_ms) + 10s;
  switch (hello.mode) {
    case Mode::probe: return Ok{};
    case Mode::stream: return serve_stream(fd, key, *session, deadline);
    case Mode::rr: return serve_rr(fd, hello, deadline);
    case Mode::stream_in: return serve_stream_in(fd, key, *session);
    case Mode::info: return serve_info(fd, key, *session, tcp_wmem_max);
  }
  return Ok{};
}

Result<std::unique_ptr<TcpServer>> TcpServer::start(ServerOptions options) {
  std::unique_ptr<TcpServer> s(new TcpServer(std::move(options)));
  auto l = listen_on(s->options_.at, s->options_.netns);
  if (!l.ok()) return l.error();
  s->listener_ = std::move(*l);
  auto port = local_port(s->listener_.get());
  if (!port.ok()) return port.error();
  s->port_ = *port;
  s->acceptor_ = std::thread([srv = s.get()] { srv->accept_loop(); });
  return s;
}

TcpServer::TcpServer(ServerOptions options) : options_(std::move(options)) {
  if (!options_.tcp_wmem_max)
    options_.tcp_wmem_max = [netns = options_.netns] { return read_tcp_wmem_max(netns); };
}

TcpServer::~TcpServer() { stop(); }

void TcpServer::accept_loop() {
  if (!options_.cpus.empty()) (void)bind_this_thread(options_.cpus);
  while (!stop_.load()) {
    pollfd p{listener_.get(), POLLIN, 0};
    int rc = ::poll(&p, 1, 100);
    reap(false);
    if (rc <= 0) continue;
    sockaddr_storage from{};
    socklen_t from_len = sizeof from;
    UniqueFd fd(
        ::accept4(listener_.get(), reinterpret_cast<sockaddr*>(&from), &from_len, SOCK_CLOEXEC));
    if (!fd) {
      if (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED)
        std::this_thread::sleep_for(10ms);  // out of descriptors or memory: do not spin
      continue;
    }
    std::string source = source_address(from, from_len);
    std::lock_guard<std::mutex> lock(mu_);
    if (conns_.size() >= options_.max_connections) continue;  // fd closes here
    auto same = std::count_if(conns_.begin(), conns_.end(),
                              [&](const auto& c) { return !c->done && c->source == source; });
    if (static_cast<unsigned>(same) >= options_.max_per_source) continue;
    accepted_.fetch_add(1);
    auto conn = std::make_unique<Conn>();
    conn->fd = std::move(fd);
    conn->source = std::move(source);
    Conn* c = conn.get();
    conn->thread = std::thread([this, c] {
      if (!options_.cpus.empty()) (void)bind_this_thread(options_.cpus);
      Status s = handle_connection(c->fd.get(), options_.key, options_.tcp_wmem_max);
      if (!s.ok() && (s.error().is(ErrorKind::denied) || s.error().is(ErrorKind::invalid) ||
                      s.error().is(ErrorKind::unsupported)))
        refused_.fetch_add(1);
      auto info = connection_counters(c->fd.get());
      std::lock_guard<std::mutex> done_lock(mu_);
      if (info.ok()) served_ += *info;
      c->fd.reset();
      c->done = true;
    });
    conns_.push_back(std::move(conn));
  }
}

void TcpServer::reap(bool all) {
  std::list<std::unique_ptr<Conn>> finished;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = conns_.begin(); it != conns_.end();) {
      if (all || (*it)->done) {
        if (all && (*it)->fd) ::shutdown((*it)->fd.get(), SHUT_RDWR);
        finished.push_back(std::move(*it));
        it = conns_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& c : finished)
    if (c->thread.joinable()) c->thread.join();
}

ConnectionCounters TcpServer::served() const {
  std::lock_guard<std::mutex> lock(mu_);
  return served_;
}

void TcpServer::stop() {
  stop_.store(true);
  if (acceptor_.joinable()) acceptor_.join();
  reap(true);
  listener_ = Socket();
}

Status serve(const ServeOptions& o) {
  auto server = TcpServer::start(o.server);
  if (!server.ok()) return server.error();
  if (o.on_listening) o.on_listening((*server)->port());
  auto lifetime = std::min<std::chrono::seconds>(o.lifetime, std::chrono::hours(24));
  auto until = Clock::now() + lifetime;
  while (Clock::now() < until && !(o.should_stop && o.should_stop()))
    std::this_thread::sleep_for(100ms);
  (*server)->stop();
  return Ok{};
}

}  // namespace tuner::bench::tcp
