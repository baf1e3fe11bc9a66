#include "probes/bench/tcp_wire.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include <fmt/core.h>

namespace tuner::bench::tcp {

namespace {

constexpr uint8_t kMagic[4] = {'T', 'U', 'N', 'R'};
// 2: the hello opens a challenge-response over the peer key (tcp_auth.h).
constexpr uint8_t kVersion = 2;

void put32(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v >> 24);
  p[1] = static_cast<uint8_t>(v >> 16);
  p[2] = static_cast<uint8_t>(v >> 8);
  p[3] = static_cast<uint8_t>(v);
}

uint32_t get32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

/// SO_RCVTIMEO/SO_SNDTIMEO expiry reads as EAGAIN; say what it is.
int timeout_errno(int e) { return e == EAGAIN || e == EWOULDBLOCK ? ETIMEDOUT : e; }

Result<Socket> make_listener(const Endpoint& at) {
  Socket s(::socket(at.addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s) return errno_error("socket", at.text());
  int one = 1;
  ::setsockopt(s.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(s.get(), reinterpret_cast<const sockaddr*>(&at.addr), at.len) != 0)
    return errno_error("cannot listen: bind", at.text());
  if (::listen(s.get(), 128) != 0) return errno_error("cannot listen", at.text());
  return s;
}

}  // namespace

std::string Endpoint::text() const {
  char host[NI_MAXHOST] = "?";
  ::getnameinfo(reinterpret_cast<const sockaddr*>(&addr), len, host, sizeof host, nullptr, 0,
                NI_NUMERICHOST);
  if (addr.ss_family == AF_INET6) return fmt::format("[{}]:{}", host, port());
  return fmt::format("{}:{}", host, port());
}

uint16_t Endpoint::port() const {
  if (addr.ss_family == AF_INET6)
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&addr)->sin6_port);
  return ntohs(reinterpret_cast<const sockaddr_in*>(&addr)->sin_port);
}

Result<Endpoint> parse_endpoint(std::string_view address, uint16_t port) {
  std::string host(address);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  std::string service = std::to_string(port);
  int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &res);
  if (rc != 0 || !res)
    return Error::invalid(fmt::format("'{}' is not a numeric IPv4 or IPv6 address", address),
                          "tcp");
  Endpoint ep;
  std::memcpy(&ep.addr, res->ai_addr, res->ai_addrlen);
  ep.len = res->ai_addrlen;
  ::freeaddrinfo(res);
  return ep;
}

std::array<uint8_t, kHelloSize> encode(const Hello& h) {
  std::array<uint8_t, kHelloSize> b{};
  std::memcpy(b.data(), kMagic, 4);
  b[4] = kVersion;
  b[5] = static_cast<uint8_t>(h.mode);
  put32(b.data() + 8, h.msg_size);
  put32(b.data() + 12, h.duration_ms);
  return b;
}

Result<Hello> decode(const uint8_t* b) {
  if (std::memcmp(b, kMagic, 4) != 0)
    return Error::invalid("not a tuner tcp client (bad magic)", "tcp");
  if (b[4] != kVersion)
    return Error::unsupported(
        fmt::format("tcp protocol version {}, this tuner speaks {}", b[4], kVersion), "tcp");
  Hello h;
  if (b[5] < 1 || b[5] > 5) return Error::invalid(fmt::format("unknown mode {}", b[5]), "tcp");
  h.mode = static_cast<Mode>(b[5]);
  h.msg_size = get32(b + 8);
  h.duration_ms = get32(b + 12);
  if (h.msg_size < 1 || h.msg_size > kMaxMsgSize)
    return Error::invalid(fmt::format("message size {} out of 1..{}", h.msg_size, kMaxMsgSize),
                          "tcp");
  if (h.duration_ms > kMaxDurationMs)
    return Error::invalid(fmt::format("duration {} ms over {} ms", h.duration_ms, kMaxDurationMs),
                          "tcp");
  return h;
}

Status set_io_timeout(int fd, std::chrono::milliseconds t) {
  timeval tv{static_cast<time_t>(t.count() / 1000),
             static_cast<suseconds_t>((t.count() % 1000) * 1000)};
  if (::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0 ||
      ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0)
    return errno_error("setsockopt SO_RCVTIMEO/SO_SNDTIMEO", "tcp");
  return Ok{};
}

Status set_nodelay(int fd) {
  int one = 1;
  if (::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0)
    return errno_error("setsockopt TCP_NODELAY", "tcp");
  return Ok{};
}

Result<Socket> connect_to(const Endpoint& to, std::chrono::milliseconds timeout,
                          std::chrono::milliseconds io_timeout) {
  Socket s(::socket(to.addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!s) return errno_error("socket", to.text());
  if (::connect(s.get(), reinterpret_cast<const sockaddr*>(&to.addr), to.len) != 0) {
    if (errno != EINPROGRESS) return errno_error("cannot connect", to.text());
    pollfd p{s.get(), POLLOUT, 0};
    int rc;
    do rc = ::poll(&p, 1, static_cast<int>(timeout.count()));
    while (rc < 0 && errno == EINTR);
    if (rc == 0)
      return errno_error("cannot connect within " + std::to_string(timeout.count()) + " ms",
                         to.text(), ETIMEDOUT);
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(s.get(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) return errno_error("cannot connect", to.text(), err);
  }
  ::fcntl(s.get(), F_SETFL, ::fcntl(s.get(), F_GETFL) & ~O_NONBLOCK);
  Status t = set_io_timeout(s.get(), io_timeout);
  if (!t.ok()) return t.error();
  return s;
}

Status check_netns(const std::string& name) {
  bool plain = !name.empty() && name.size() < 64 && name != "." && name != "..";
  for (char c : name)
    plain = plain &&
            (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-');
  if (!plain)
    return Error::invalid(fmt::format("netns '{}' must be a name from `ip netns list`", name),
                          "tcp");
  std::string path = "/run/netns/" + name;
  if (::access(path.c_str(), F_OK) != 0) return errno_error("no such network namespace", path);
  return Ok{};
}

Status in_netns(const std::string& netns, const std::function<void()>& fn) {
  if (netns.empty()) {
    fn();
    return Ok{};
  }
  Status named = check_netns(netns);
  if (!named.ok()) return named;
  Status entered = Error::io("not run");
  // setns(CLONE_NEWNET) moves only the calling thread: do it in one that ends here.
  std::thread t([&] {
    std::string path = "/run/netns/" + netns;
    UniqueFd ns(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!ns) {
      entered = errno_error("cannot open", path);
      return;
    }
    if (::setns(ns.get(), CLONE_NEWNET) != 0) {
      entered = errno_error("setns", path);
      return;
    }
    ns.reset();
    entered = Ok{};
    fn();
  });
  t.join();
  return entered;
}

Result<Socket> listen_on(const Endpoint& at, const std::string& netns) {
  Result<Socket> out = Error::io("not run");
  Status entered = in_netns(netns, [&] { out = make_listener(at); });
  if (!entered.ok()) return entered.error();
  return out;
}

Result<uint16_t> local_port(int fd) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    return errno_error("getsockname", "tcp");
  Endpoint ep;
  ep.addr = a;
  ep.len = len;
  return ep.port();
}

Status send_all(int fd, const void* data, std::size_t n, const char* what) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return errno_error(std::string("cannot send ") + what, "tcp", timeout_errno(errno));
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return Ok{};
}

Status recv_all(int fd, void* data, std::size_t n, const char* what) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    ssize_t k = ::recv(fd, p, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0)
      return errno_error(std::string("cannot receive ") + what, "tcp", timeout_errno(errno));
    if (k == 0) return Error::io(std::string("peer closed the connection before ") + what, "tcp");
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return Ok{};
}

namespace {

bool same_address(const sockaddr* a, const sockaddr_storage& b) {
  if (a == nullptr || a->sa_family != b.ss_family) return false;
  if (a->sa_family == AF_INET)
    return std::memcmp(&reinterpret_cast<const sockaddr_in*>(a)->sin_addr,
                       &reinterpret_cast<const sockaddr_in*>(&b)->sin_addr, sizeof(in_addr)) == 0;
  if (a->sa_family == AF_INET6)
    return std::memcmp(&reinterpret_cast<const sockaddr_in6*>(a)->sin6_addr,
                       &reinterpret_cast<const sockaddr_in6*>(&b)->sin6_addr,
                       sizeof(in6_addr)) == 0;
  return false;
}

}  // namespace

bool is_wildcard(const Endpoint& ep) {
  if (ep.addr.ss_family == AF_INET)
    return reinterpret_cast<const sockaddr_in*>(&ep.addr)->sin_addr.s_addr == htonl(INADDR_ANY);
  if (ep.addr.ss_family == AF_INET6)
    return IN6_IS_ADDR_UNSPECIFIED(&reinterpret_cast<const sockaddr_in6*>(&ep.addr)->sin6_addr);
  return false;
}

Result<bool> is_own_address(const Endpoint& ep) {
  if (ep.addr.ss_family == AF_INET &&
      (ntohl(reinterpret_cast<const sockaddr_in*>(&ep.addr)->sin_addr.s_addr) >> 24) == 127)
    return true;
  if (ep.addr.ss_family == AF_INET6) {
    const in6_addr& a = reinterpret_cast<const sockaddr_in6*>(&ep.addr)->sin6_addr;
    if (IN6_IS_ADDR_LOOPBACK(&a)) return true;
    if (IN6_IS_ADDR_V4MAPPED(&a) && a.s6_addr[12] == 127) return true;
  }
  if (is_wildcard(ep)) return true;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return errno_error("getifaddrs", "tcp");
  bool own = false;
  for (ifaddrs* i = list; i != nullptr && !own; i = i->ifa_next)
    own = same_address(i->ifa_addr, ep.addr);
  ::freeifaddrs(list);
  return own;
}

}  // namespace tuner::bench::tcp
