#include "probes/ssh_session.h"

#include <arpa/inet.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "base/strings.h"

namespace tuner {
namespace {

// include/net/tcp_states.h
constexpr uint64_t kTcpEstablished = 1;
// include/uapi/linux/route.h and ipv6_route.h.
constexpr uint64_t kRtfUp = 0x0001;
constexpr uint64_t kRtfReject = 0x0200;

/// One 32-bit word as proc/net/tcp{,6} prints it (%08X of the value in host order),
/// back to its four bytes in memory (network order).
bool host_word(std::string_view s, uint8_t* out) {
  auto v = parse_hex(s, 8);
  if (!v || s.size() != 8) return false;
  auto w = static_cast<uint32_t>(*v);
  std::memcpy(out, &w, 4);
  return true;
}

/// "0100007F:0016" or 32 hex digits ":" port, as proc/net/tcp{,6} prints an endpoint.
std::optional<std::pair<IpAddr, uint16_t>> endpoint(std::string_view s) {
  auto colon = s.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view addr = s.substr(0, colon);
  auto port = parse_hex(s.substr(colon + 1), 4);
  if (!port) return std::nullopt;
  IpAddr a;
  if (addr.size() == 8) {
    if (!host_word(addr, a.bytes.data())) return std::nullopt;
    a.v4 = true;
  } else if (addr.size() == 32) {
    for (size_t i = 0; i < 4; ++i)
      if (!host_word(addr.substr(i * 8, 8), a.bytes.data() + i * 4)) return std::nullopt;
    // ::ffff:a.b.c.d, a dual-stack socket's IPv4 peer.
    static constexpr uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (std::memcmp(a.bytes.data(), kMapped, 12) == 0) {
      IpAddr v4;
      std::memcpy(v4.bytes.data(), a.bytes.data() + 12, 4);
      v4.v4 = true;
      a = v4;
    }
  } else {
    return std::nullopt;
  }
  return std::pair{a, static_cast<uint16_t>(*port)};
}

bool usable(std::optional<uint64_t> flags) {
  return flags && (*flags & kRtfUp) && !(*flags & kRtfReject);
}

/// Whether the first `bits` bits of a and b agree.
bool prefix_match(const uint8_t* a, const uint8_t* b, unsigned bits) {
  unsigned whole = bits / 8, rest = bits % 8;
  if (std::memcmp(a, b, whole) != 0) return false;
  if (rest == 0) return true;
  auto mask = static_cast<uint8_t>(0xff << (8 - rest));
  return (a[whole] & mask) == (b[whole] & mask);
}

struct Best {
  std::optional<std::string> dev;
  int prefix = -1;
  uint64_t metric = 0;
  void offer(std::string_view d, int p, uint64_t m) {
    if (p > prefix || (p == prefix && m < metric)) {
      dev = std::string(d);
      prefix = p;
      metric = m;
    }
  }
};

std::optional<std::string> route_out_v4(std::string_view text, const IpAddr& peer) {
  // Iface Destination Gateway Flags RefCnt Use Metric Mask MTU Window IRTT; a header row.
  // Destination and Mask are printed like proc/net/tcp's addresses (host order).
  Best best;
  for (std::string_view line : split(text, '\n')) {
    auto f = split_ws(line);
    if (f.size() < 8 || f[0] == "Iface" || !usable(parse_hex(f[3]))) continue;
    uint8_t dest[4], mask[4];
    auto metric = parse_u64(f[6]);
    if (!host_word(f[1], dest) || !host_word(f[7], mask) || !metric) continue;
    bool match = true;
    int bits = 0;
    for (int i = 0; i < 4; ++i) {
      match = match && (peer.bytes[i] & mask[i]) == dest[i];
      bits += std::popcount(mask[i]);
    }
    if (match) best.offer(f[0], bits, *metric);
  }
  return best.dev;
}

std::optional<std::string> route_out_v6(std::string_view text, const IpAddr& peer) {
  // dest plen src plen next_hop metric refcnt use flags iface; no header; addresses as
  // 32 hex digits in network order.
  Best best;
  for (std::string_view line : split(text, '\n')) {
    auto f = split_ws(line);
    if (f.size() < 10 || f[0].size() != 32 || !usable(parse_hex(f[8]))) continue;
    auto plen = parse_hex(f[1], 2);
    auto metric = parse_hex(f[5], 8);
    if (!plen || *plen > 128 || !metric) continue;
    uint8_t dest[16];
    bool ok = true;
    for (size_t i = 0; i < 16 && ok; ++i) {
      auto b = parse_hex(f[0].substr(i * 2, 2), 2);
      ok = b.has_value();
      if (ok) dest[i] = static_cast<uint8_t>(*b);
    }
    if (ok && prefix_match(dest, peer.bytes.data(), static_cast<unsigned>(*plen)))
      best.offer(f[9], static_cast<int>(*plen), *metric);
  }
  return best.dev;
}

void add_port_lines(std::string_view text, std::set<uint16_t>& out) {
  for (std::string_view line : split(text, '\n')) {
    auto f = split_ws(line);
    if (f.size() < 2 || f[0].size() != 4) continue;
    std::string key(f[0]);
    for (char& c : key) c = static_cast<char>(c | 0x20);  // keywords are case-insensitive
    if (key != "port") continue;
    if (auto p = parse_u64(f[1]); p && *p > 0 && *p <= 65535) out.insert(static_cast<uint16_t>(*p));
  }
}

}  // namespace

std::string to_string(const IpAddr& a) {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(a.v4 ? AF_INET : AF_INET6, a.bytes.data(), buf, sizeof buf);
  return buf;
}

std::vector<IpAddr> parse_tcp_peers(std::string_view text, const std::set<uint16_t>& ports) {
  // sl local_address rem_address st tx_queue:rx_queue ...; a header row.
  std::vector<IpAddr> out;
  for (std::string_view line : split(text, '\n')) {
    auto f = split_ws(line);
    if (f.size() < 4 || parse_hex(f[3], 2) != kTcpEstablished) continue;
    auto local = endpoint(f[1]);
    auto remote = endpoint(f[2]);
    if (!local || !remote || !ports.contains(local->second)) continue;
    if (std::ranges::find(out, remote->first) == out.end()) out.push_back(remote->first);
  }
  return out;
}

std::optional<std::string> route_out(std::string_view routes, const IpAddr& peer) {
  return peer.v4 ? route_out_v4(routes, peer) : route_out_v6(routes, peer);
}

std::set<uint16_t> sshd_ports(const Root& root) {
  std::set<uint16_t> out{22};
  if (auto main = root.read("etc/ssh/sshd_config"); main.ok()) add_port_lines(*main, out);
  if (auto dropins = root.list("etc/ssh/sshd_config.d"); dropins.ok())
    for (const std::string& name : *dropins)
      if (name.size() > 5 && name.ends_with(".conf"))
        if (auto text = root.read("etc/ssh/sshd_config.d/" + name); text.ok())
          add_port_lines(*text, out);
  return out;
}

std::optional<uint16_t> ssh_connection_port(std::string_view value) {
  auto f = split_ws(value);
  if (f.size() != 4) return std::nullopt;
  auto p = parse_u64(f[3]);
  if (!p || *p == 0 || *p > 65535) return std::nullopt;
  return static_cast<uint16_t>(*p);
}

std::optional<std::map<std::string, std::string>> probe_ssh_session_ports(
    const Root& root, std::optional<uint16_t> extra_port) {
  auto tcp4 = root.read("proc/net/tcp");
  auto tcp6 = root.read("proc/net/tcp6");
  auto v4 = root.read("proc/net/route");
  auto v6 = root.read("proc/net/ipv6_route");
  if ((!tcp4.ok() && !tcp6.ok()) || (!v4.ok() && !v6.ok())) return std::nullopt;
  std::set<uint16_t> ports = sshd_ports(root);
  if (extra_port) ports.insert(*extra_port);
  std::vector<IpAddr> peers;
  if (tcp4.ok()) peers = parse_tcp_peers(*tcp4, ports);
  if (tcp6.ok())
    for (IpAddr& p : parse_tcp_peers(*tcp6, ports))
      if (std::ranges::find(peers, p) == peers.end()) peers.push_back(p);
  std::map<std::string, std::string> out;
  for (const IpAddr& p : peers) {
    // A link-local peer (fe80::/10) is on every port's fe80::/64: which one takes a scope
    // id proc/net/tcp6 does not print.
    if (!p.v4 && p.bytes[0] == 0xfe && (p.bytes[1] & 0xc0) == 0x80) continue;
    const auto& table = p.v4 ? v4 : v6;
    if (!table.ok()) continue;
    if (auto dev = route_out(*table, p)) out.emplace(*dev, to_string(p));
  }
  return out;
}

}  // namespace tuner
