// The tcp benchmark's wire: addresses, bounded socket calls, and the 16-byte hello a
// client sends first so one server (in-process, in a named netns, or `serve()` on a
// peer) handles every mode; the challenge-response that follows it is tcp_auth.h. Sockets are plain TCP with the kernel's defaults: no
// SO_SNDBUF/SO_RCVBUF, so buffer autotuning and net.ipv4.tcp_{r,w}mem, the very sysctls
// the verify loop measures, stay in effect.
#pragma once

#include <sys/socket.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "base/unique_fd.h"

namespace tuner::bench::tcp {

/// A numeric IPv4 or IPv6 address and a port (no DNS: a trial must not wait on it).
struct Endpoint {
  sockaddr_storage addr{};
  socklen_t len = 0;
  /// "127.0.0.1:5301", "[fe80::1%veth0]:5301".
  std::string text() const;
  uint16_t port() const;
};

/// Parses "10.0.0.2", "::1", "fe80::1%veth0" with `port`. Errors name the address.
Result<Endpoint> parse_endpoint(std::string_view address, uint16_t port);

/// stream: the client sends, the server counts; stream_in: the server sends, the client
/// counts (the node under test receives); info: the server answers with what it knows of
/// itself (its net.ipv4.tcp_wmem maximum: tcp_auth.h info_message). A server that
/// predates a mode closes the connection at its hello.
enum class Mode : uint8_t { probe = 1, stream = 2, rr = 3, stream_in = 4, info = 5 };

/// What a client asks of the server. The server echoes it back once accepted.
struct Hello {
  Mode mode = Mode::probe;
  /// stream: the server's read size; stream_in: its write size; rr: request = response
  /// size.
  uint32_t msg_size = 1;
  /// How long the client means to run; the server gives up 10 s after it.
  uint32_t duration_ms = 0;
};

inline constexpr std::size_t kHelloSize = 16;
inline constexpr uint32_t kMaxMsgSize = 4u << 20;
inline constexpr uint32_t kMaxDurationMs = 120'000;

/// "TUNR", version 2 (tcp_auth.h), mode, 2 reserved bytes, size and duration big-endian.
std::array<uint8_t, kHelloSize> encode(const Hello& h);
/// Refuses a wrong magic or version, an unknown mode, sizes or durations out of bounds.
Result<Hello> decode(const uint8_t* bytes);

/// A socket descriptor, owned as every descriptor is (base/unique_fd.h).
using Socket = UniqueFd;

/// Connects within `timeout`, then sets `io_timeout` on sends and receives so no later
/// call can hang.
Result<Socket> connect_to(const Endpoint& to, std::chrono::milliseconds timeout,
                          std::chrono::milliseconds io_timeout);

/// A listening socket on `at`, created inside the network namespace /run/netns/NETNS
/// when `netns` is not empty (by a short-lived thread that setns()es, so the rest of the
/// process stays where it is; accepted sockets belong to the listener's namespace).
Result<Socket> listen_on(const Endpoint& at, const std::string& netns);

/// The port a bound socket got (for port 0).
Result<uint16_t> local_port(int fd);

/// Whether `ep` is this node itself, as seen from this network namespace: a loopback
/// address, or one of its interfaces' addresses (getifaddrs). A peer benchmark against
/// itself measures loopback, which is what it is there to avoid.
Result<bool> is_own_address(const Endpoint& ep);

/// Whether `ep` is a wildcard (0.0.0.0, ::): a listener there serves every interface.
bool is_wildcard(const Endpoint& ep);

/// Sets SO_RCVTIMEO and SO_SNDTIMEO.
Status set_io_timeout(int fd, std::chrono::milliseconds t);
Status set_nodelay(int fd);

/// Sends or receives exactly n bytes (EINTR retried). A peer that closes early or a
/// timeout is an Error naming `what`.
Status send_all(int fd, const void* data, std::size_t n, const char* what);
Status recv_all(int fd, void* data, std::size_t n, const char* what);

/// Runs `fn` in a short-lived thread inside /run/netns/NETNS (setns(CLONE_NEWNET) moves
/// only the calling thread), or on this thread when `netns` is empty. An Error when the
/// namespace cannot be entered; `fn` did not run then.
Status in_netns(const std::string& netns, const std::function<void()>& fn);

/// Checks a netns name (plain: letters, digits, '.', '_', '-') and that
/// /run/netns/NAME exists.
Status check_netns(const std::string& name);

}  // namespace tuner::bench::tcp
