#include "probes/bench/tcp_client.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include <fmt/core.h>

#include "probes/bench/bench_bind.h"
#include "probes/bench/tcp_info.h"

namespace tuner::bench::tcp {

namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr auto kConnectTimeout = 2s;
constexpr auto kIoTimeout = 10s;
constexpr std::size_t kMaxSamples = 20'000'000;

/// One deadline for a phase and all its sockets: at `at` every socket it watches is
/// shut down, so each call blocked on them returns at once. Destroy it before the
/// sockets it watches are closed (declare it after them).
class PhaseDeadline {
 public:
  explicit PhaseDeadline(Clock::time_point at) : at_(at), thread_([this] { wait(); }) {}
  ~PhaseDeadline() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  PhaseDeadline(const PhaseDeadline&) = delete;
  PhaseDeadline& operator=(const PhaseDeadline&) = delete;

  void watch(int fd) {
    std::lock_guard<std::mutex> lock(mu_);
    if (fired_) ::shutdown(fd, SHUT_RDWR);
    fds_.push_back(fd);
  }
  void unwatch(int fd) {
    std::lock_guard<std::mutex> lock(mu_);
    std::erase(fds_, fd);
  }
  bool fired() {
    std::lock_guard<std::mutex> lock(mu_);
    return fired_;
  }
  /// Time left, at least 1 ms (a timeout of 0 means none to the kernel).
  std::chrono::milliseconds left() const {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(at_ - Clock::now());
    return std::max(ms, std::chrono::milliseconds(1));
  }
  /// The phase's error when the deadline cut it short, else `e` as it was.
  Error explain(Error e, const Endpoint& server) {
    if (!fired()) return e;
    return Error::io("the phase ran past its deadline (its duration and a fixed slack): the "
                     "server is too slow, or trickling",
                     server.text(), ETIMEDOUT);
  }

 private:
  void wait() {
    std::unique_lock<std::mutex> lock(mu_);
    if (cv_.wait_until(lock, at_, [this] { return done_; })) return;
    fired_ = true;
    for (int fd : fds_) ::shutdown(fd, SHUT_RDWR);
  }

  Clock::time_point at_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false, fired_ = false;
  std::vector<int> fds_;
  std::thread thread_;  // last: started once the rest is built
};

struct Opened {
  Socket sock;
  Session session;
};

/// Connects, proves the key and checks the server's proof (tcp_auth.h), within what is
/// left of the phase.
Result<Opened> open_session(const Endpoint& server, const PeerKey& key, const Hello& h,
                            std::chrono::milliseconds connect_timeout, PhaseDeadline& deadline) {
  auto s = connect_to(server, std::min(connect_timeout, deadline.left()), kIoTimeout);
  if (!s.ok()) return deadline.explain(s.error(), server);
  deadline.watch(s->get());
  auto session = client_handshake(s->get(), h, key);
  if (!session.ok()) {
    deadline.unwatch(s->get());
    Error e = session.error();
    return deadline.explain(Error{e.kind, e.what, server.text(), e.err}, server);
  }
  return Opened{std::move(*s), *session};
}

struct Stream {
  Socket sock;
  Session session;
  /// What the sending end sent and what the receiving end counted (either side's word
  /// for its own figure; the server's comes with its tag).
  uint64_t sent = 0, counted = 0;
  ConnectionCounters connections;
  Clock::time_point end{};
  Status status = Ok{};
};

/// Every byte is acknowledged now: the socket's counters are final for this stream.
void read_counters(Stream& s) {
  auto info = connection_counters(s.sock.get());
  if (!info.ok()) {
    s.status = info.error();
    return;
  }
  s.connections = *info;
}

/// Mode::stream: sends until `stop_at`, then waits for the server's tagged count.
void send_until(Stream& s, const PeerKey& key, Clock::time_point stop_at, uint32_t write_size) {
  std::vector<char> buf(write_size, 'T');
  int fd = s.sock.get();
  while (Clock::now() < stop_at) {
    ssize_t k = ::send(fd, buf.data(), buf.size(), MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) {
      s.status = errno_error("stream: cannot send", "tcp", errno == EAGAIN ? ETIMEDOUT : errno);
      return;
    }
    s.sent += static_cast<uint64_t>(k);
  }
  if (::shutdown(fd, SHUT_WR) != 0) {
    s.status = errno_error("stream: shutdown", "tcp");
    return;
  }
  CountMessage count{};
  Status got = recv_all(fd, count.data(), count.size(), "the server's byte count");
  if (!got.ok()) {
    s.status = got;
    return;
  }
  s.end = Clock::now();
  auto counted = read_count(key, s.session, count.data());
  if (!counted.ok()) {
    s.status = counted.error();
    return;
  }
  s.counted = *counted;
  read_counters(s);
}

/// Mode::stream_in: one byte starts the server, which sends for the announced duration,
/// then its tagged count of what it sent, then closes its side. The count is the last
/// kCountSize bytes of the stream, so the last ones received are kept.
void receive_until_closed(Stream& s, const PeerKey& key, uint32_t read_size) {
  int fd = s.sock.get();
  const uint8_t start = 'G';
  if (Status sent = send_all(fd, &start, 1, "the start"); !sent.ok()) {
    s.status = sent;
    return;
  }
  std::vector<uint8_t> buf(read_size);
  CountMessage tail{};
  std::size_t kept = 0;  // bytes of `tail` in use: the last ones received
  uint64_t total = 0;
  for (;;) {
    ssize_t k = ::recv(fd, buf.data(), buf.size(), 0);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) {
      s.status =
          errno_error("stream in: cannot receive", "tcp", errno == EAGAIN ? ETIMEDOUT : errno);
      return;
    }
    if (k == 0) break;
    auto n = static_cast<std::size_t>(k);
    total += n;
    if (n >= tail.size()) {
      std::memcpy(tail.data(), buf.data() + n - tail.size(), tail.size());
      kept = tail.size();
    } else {
      std::size_t old = std::min(kept, tail.size() - n);
      std::memmove(tail.data(), tail.data() + kept - old, old);
      std::memcpy(tail.data() + old, buf.data(), n);
      kept = old + n;
    }
  }
  s.end = Clock::now();
  if (kept < tail.size()) {
    s.status =
        Error::io("stream in: the server closed the connection before its byte count", "tcp");
    return;
  }
  auto sent = read_count(key, s.session, tail.data());
  if (!sent.ok()) {
    s.status = sent.error();
    return;
  }
  s.sent = *sent;
  s.counted = total - tail.size();
  read_counters(s);
}

Status probe_with(const Endpoint& server, const PeerKey& key, const Hello& h,
                  std::chrono::milliseconds timeout) {
  Socket sock;
  PhaseDeadline deadline(Clock::now() + 2 * timeout);
  auto opened = open_session(server, key, h, timeout, deadline);
  if (!opened.ok()) return opened.error();
  sock = std::move(opened->sock);
  return Ok{};
}

/// A server that predates a mode closes the connection at its hello, which reads like
/// any broken connection; one that still accepts a plain probe is such a server.
Error explain_mode(Error e, const Endpoint& server, const PeerKey& key, Mode mode) {
  if (mode != Mode::stream_in || e.is(ErrorKind::denied)) return e;
  if (!probe_with(server, key, Hello{Mode::probe, 1, 0}, kConnectTimeout).ok()) return e;
  return Error::unsupported(
      "the server refused the reverse stream (direction = \"in\": the server sends): it runs "
      "a tuner older than that; upgrade tuner there, or measure direction = \"out\"",
      server.text());
}

}  // namespace

double StreamResult::bits_per_second() const {
  double secs = std::chrono::duration<double>(elapsed).count();
  return secs > 0 ? static_cast<double>(bytes) * 8.0 / secs : 0.0;
}

Result<StreamResult> run_streams(const Endpoint& server, const PeerKey& key, Mode mode,
                                 unsigned streams, std::chrono::milliseconds duration,
                                 uint32_t write_size, const CpuSet& cpus,
                                 std::chrono::milliseconds slack) {
  if (mode != Mode::stream && mode != Mode::stream_in)
    return Error::invalid("run_streams: not a stream mode", "tcp");
  Hello h{mode, write_size, static_cast<uint32_t>(duration.count())};
  std::vector<Stream> st(streams);
  PhaseDeadline deadline(Clock::now() + duration + slack);  // after st: destroyed first
  for (Stream& s : st) {
    auto opened = open_session(server, key, h, kConnectTimeout, deadline);
    if (!opened.ok()) return explain_mode(opened.error(), server, key, mode);
    s.sock = std::move(opened->sock);
    s.session = opened->session;
  }
  std::mutex mu;
  std::condition_variable cv;
  bool go = false;
  Clock::time_point start, stop_at;
  std::vector<std::thread> threads;
  threads.reserve(st.size());
  for (Stream& s : st) {
    threads.emplace_back([&, ps = &s] {
      if (!cpus.empty()) (void)bind_this_thread(cpus);
      Clock::time_point until;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return go; });
        until = stop_at;
      }
      if (mode == Mode::stream_in) receive_until_closed(*ps, key, write_size);
      else send_until(*ps, key, until, write_size);
    });
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    start = Clock::now();
    stop_at = start + duration;
    go = true;
  }
  cv.notify_all();
  for (std::thread& t : threads) t.join();

  StreamResult r;
  Clock::time_point last = start;
  for (std::size_t i = 0; i < st.size(); ++i) {
    if (!st[i].status.ok()) {
      Error e = deadline.explain(st[i].status.error(), server);
      return Error{e.kind, fmt::format("stream {} of {}: {}", i + 1, streams, e.what),
                   server.text(), e.err};
    }
    if (st[i].counted != st[i].sent)
      return Error::io(mode == Mode::stream_in
                           ? fmt::format("stream {}: received {} bytes of the {} the server sent",
                                         i + 1, st[i].counted, st[i].sent)
                           : fmt::format("stream {}: the server counted {} bytes of {} sent", i + 1,
                                         st[i].counted, st[i].sent),
                       server.text());
    r.bytes += st[i].counted;
    r.connections += st[i].connections;
    last = std::max(last, st[i].end);
  }
  r.elapsed = last - start;
  return r;
}

Result<RrResult> run_rr(const Endpoint& server, const PeerKey& key,
                        std::chrono::milliseconds duration, uint32_t size, const CpuSet& cpus) {
  Hello h{Mode::rr, size, static_cast<uint32_t>(duration.count())};
  Socket sock;
  PhaseDeadline deadline(Clock::now() + duration + kPhaseSlack);  // after sock: destroyed first
  auto opened = open_session(server, key, h, kConnectTimeout, deadline);
  if (!opened.ok()) return opened.error();
  sock = std::move(opened->sock);
  Status nd = set_nodelay(sock.get());
  if (!nd.ok()) return nd.error();
  RrResult r;
  Status bound = Ok{};
  // The phase runs on the calling thread; keep its affinity as it was afterwards.
  std::thread worker([&] {
    if (!cpus.empty()) bound = bind_this_thread(cpus);
    std::vector<char> buf(size, 'R');
    r.rtt_ns.reserve(std::min<std::size_t>(kMaxSamples, 1u << 20));
    const auto until = Clock::now() + duration;
    for (auto t0 = Clock::now(); t0 < until && r.rtt_ns.size() < kMaxSamples;) {
      Status s = send_all(sock.get(), buf.data(), buf.size(), "a request");
      if (s.ok()) s = recv_all(sock.get(), buf.data(), buf.size(), "a response");
      if (!s.ok()) {
        Error e = deadline.explain(s.error(), server);
        bound = Error{e.kind, "rr: " + e.what, server.text(), e.err};
        return;
      }
      auto t1 = Clock::now();
      r.rtt_ns.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
      t0 = t1;
    }
  });
  worker.join();
  if (!bound.ok()) return bound.error();
  if (r.rtt_ns.empty()) return Error::io("rr: no transaction completed", server.text());
  auto info = connection_counters(sock.get());
  if (!info.ok()) return info.error();
  r.connections = *info;
  return r;
}

Status probe(const Endpoint& server, const PeerKey& key, std::chrono::milliseconds timeout,
             Mode mode) {
  Status p = probe_with(server, key, Hello{mode, 1, 0}, timeout);
  if (!p.ok()) return explain_mode(p.error(), server, key, mode);
  return Ok{};
}

Result<ServerFacts> server_facts(const Endpoint& server, const PeerKey& key,
                                 std::chrono::milliseconds timeout) {
  Socket sock;
  PhaseDeadline deadline(Clock::now() + 2 * timeout);  // after sock: destroyed first
  auto opened = open_session(server, key, Hello{Mode::info, 1, 0}, timeout, deadline);
  if (!opened.ok()) {
    // A server that predates the question closes at its hello, like any broken
    // connection; one that still answers a plain probe is such a server.
    if (opened.error().is(ErrorKind::denied) ||
        !probe_with(server, key, Hello{Mode::probe, 1, 0}, timeout).ok())
      return opened.error();
    return ServerFacts{std::nullopt, true};
  }
  sock = std::move(opened->sock);
  InfoMessage answer{};
  Status got = recv_all(sock.get(), answer.data(), answer.size(), "the server's answer");
  if (!got.ok()) return deadline.explain(got.error(), server);
  auto value = read_info(key, opened->session, answer.data());
  if (!value.ok()) return Error{value.error().kind, value.error().what, server.text(), 0};
  ServerFacts facts;
  if (*value > 0) facts.tcp_wmem_max = *value;
  return facts;
}

}  // namespace tuner::bench::tcp
