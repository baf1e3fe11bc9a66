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

/// Connects, sends the hello and waits for the server to echo it.
Result<Socket> open_session(const Endpoint& server, const Hello& h,
                            std::chrono::milliseconds connect_timeout) {
  auto s = connect_to(server, connect_timeout, kIoTimeout);
  if (!s.ok()) return s.error();
  auto hello = encode(h);
  Status sent = send_all(s->get(), hello.data(), hello.size(), "the hello");
  if (!sent.ok())
    return Error{sent.error().kind, sent.error().what, server.text(), sent.error().err};
  uint8_t echo[kHelloSize];
  Status got = recv_all(s->get(), echo, sizeof echo, "the server answered the hello");
  if (!got.ok())
    return Error{got.error().kind, got.error().what + " (is a tuner tcp server listening there?)",
                 server.text(), got.error().err};
  if (std::memcmp(echo, hello.data(), kHelloSize) != 0)
    return Error::invalid("the server answered with something other than our hello", server.text());
  return std::move(*s);
}

struct Stream {
  Socket sock;
  uint64_t sent = 0, counted = 0;
  ConnectionCounters connections;
  Clock::time_point end{};
  Status status = Ok{};
};

void send_until(Stream& s, Clock::time_point stop_at, uint32_t write_size) {
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
  uint8_t count[8];
  Status got = recv_all(fd, count, sizeof count, "the server's byte count");
  if (!got.ok()) {
    s.status = got;
    return;
  }
  s.end = Clock::now();
  for (uint8_t b : count) s.counted = (s.counted << 8) | b;
  // Every byte is acknowledged now: the socket's counters are final for this stream.
  auto info = connection_counters(fd);
  if (!info.ok()) {
    s.status = info.error();
    return;
  }
  s.connections = *info;
}

}  // namespace

double StreamResult::bits_per_second() const {
  double secs = std::chrono::duration<double>(elapsed).count();
  return secs > 0 ? static_cast<double>(bytes) * 8.0 / secs : 0.0;
}

Result<StreamResult> run_streams(const Endpoint& server, unsigned streams,
                                 std::chrono::milliseconds duration, uint32_t write_size,
                                 const CpuSet& cpus) {
  Hello h{Mode::stream, write_size, static_cast<uint32_t>(duration.count())};
  std::vector<Stream> st(streams);
  for (Stream& s : st) {
    auto sock = open_session(server, h, kConnectTimeout);
    if (!sock.ok()) return sock.error();
    s.sock = std::move(*sock);
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
      send_until(*ps, until, write_size);
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
      Error e = st[i].status.error();
      return Error{e.kind, fmt::format("stream {} of {}: {}", i + 1, streams, e.what),
                   server.text(), e.err};
    }
    if (st[i].counted != st[i].sent)
      return Error::io(fmt::format("stream {}: the server counted {} bytes of {} sent", i + 1,
                                   st[i].counted, st[i].sent),
                       server.text());
    r.bytes += st[i].counted;
    r.connections += st[i].connections;
    last = std::max(last, st[i].end);
  }
  r.elapsed = last - start;
  return r;
}

Result<RrResult> run_rr(const Endpoint& server, std::chrono::milliseconds duration, uint32_t size,
                        const CpuSet& cpus) {
  Hello h{Mode::rr, size, static_cast<uint32_t>(duration.count())};
  auto sock = open_session(server, h, kConnectTimeout);
  if (!sock.ok()) return sock.error();
  Status nd = set_nodelay(sock->get());
  if (!nd.ok()) return nd.error();
  RrResult r;
  Status bound = Ok{};
  // The phase runs on the calling thread; keep its affinity as it was afterwards.
  std::thread worker([&] {
    if (!cpus.empty()) bound = bind_this_thread(cpus);
    std::vector<char> buf(size, 'R');
    r.rtt_ns.reserve(std::min<std::size_t>(kMaxSamples, 1u << 20));
    const auto deadline = Clock::now() + duration;
    for (auto t0 = Clock::now(); t0 < deadline && r.rtt_ns.size() < kMaxSamples;) {
      Status s = send_all(sock->get(), buf.data(), buf.size(), "a request");
      if (s.ok()) s = recv_all(sock->get(), buf.data(), buf.size(), "a response");
      if (!s.ok()) {
        bound = Error{s.error().kind, "rr: " + s.error().what, server.text(), s.error().err};
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
  auto info = connection_counters(sock->get());
  if (!info.ok()) return info.error();
  r.connections = *info;
  return r;
}

Status probe(const Endpoint& server, std::chrono::milliseconds timeout) {
  auto s = open_session(server, Hello{Mode::probe, 1, 0}, timeout);
  if (!s.ok()) return s.error();
  return Ok{};
}

}  // namespace tuner::bench::tcp
