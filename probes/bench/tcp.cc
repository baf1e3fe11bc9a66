#include "probes/bench/tcp.h"

#include <array>

#include <fmt/core.h>

#include "base/enum_names.h"

#include "probes/bench/percentile.h"
#include "probes/bench/tcp_client.h"
#include "probes/bench/tcp_server.h"

namespace tuner::bench {

namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr std::array<EnumName<StreamDirection>, 2> kStreamDirections = {{
    {StreamDirection::out, "out"},
    {StreamDirection::in, "in"},
}};
static_assert(in_enum_order(kStreamDirections));

tcp::Mode stream_mode(const TcpConfig& c) {
  return c.direction == StreamDirection::in ? tcp::Mode::stream_in : tcp::Mode::stream;
}

Error bench_error(const TcpConfig& c, std::string what, int err = 0) {
  return errno_error(std::move(what), fmt::format("bench '{}'", c.name), err);
}

std::string address_of(const TcpConfig& c) {
  if (!c.address.empty()) return c.address;
  return c.placement == TcpConfig::Placement::loopback ? "127.0.0.1" : "";
}

uint16_t port_of(const TcpConfig& c) {
  if (c.port == 0 && c.placement == TcpConfig::Placement::peer) return kServePort;
  return c.port;
}

/// The server this run talks to: started here (loopback, netns) or already there (peer).
struct Target {
  std::unique_ptr<tcp::TcpServer> server;
  tcp::Endpoint endpoint;
  tcp::PeerKey key;  // what the server proves: the rollout's (peer) or the run's own
};

Error no_key(const TcpConfig& c) {
  return Error::invalid(fmt::format("a peer benchmark needs the rollout's key, which the server "
                                    "must prove: --peer-key FILE or {} (the same on both nodes)",
                                    tcp::kPeerKeyEnv),
                        fmt::format("bench '{}'", c.name));
}

Result<Target> target(const TcpConfig& c) {
  auto ep = tcp::parse_endpoint(address_of(c), port_of(c));
  if (!ep.ok()) return bench_error(c, ep.error().what);
  Target t;
  t.endpoint = *ep;
  if (c.placement == TcpConfig::Placement::peer) {
    if (c.key.empty()) return no_key(c);
    t.key = c.key;
    return t;
  }
  t.key = c.key.empty() ? tcp::random_key() : c.key;
  tcp::ServerOptions o;
  o.key = t.key;
  o.at = *ep;
  o.netns = c.placement == TcpConfig::Placement::netns ? c.netns : "";
  o.cpus = c.cpus;
  o.max_connections = c.streams + 2;
  auto s = tcp::TcpServer::start(std::move(o));
  if (!s.ok()) return bench_error(c, s.error().message(), 0);
  t.server = std::move(*s);
  auto port = t.server->port();
  auto bound = tcp::parse_endpoint(address_of(c), port);
  if (!bound.ok()) return bench_error(c, bound.error().what);
  t.endpoint = *bound;
  return t;
}

}  // namespace

const char* stream_direction_name(StreamDirection d) { return enum_name(kStreamDirections, d); }

std::optional<StreamDirection> parse_stream_direction(std::string_view name) {
  return enum_from_name(kStreamDirections, name);
}

Status validate(const TcpConfig& c) {
  using P = TcpConfig::Placement;
  if (c.streams < 1 || c.streams > 32)
    return bench_error(c, fmt::format("'streams' = {} must be 1..32", c.streams));
  if (c.duration < 100ms || c.duration > 60s)
    return bench_error(c,
                       fmt::format("'duration' = {} ms must be 100 ms..60 s", c.duration.count()));
  if (c.rr_duration < 0ms || c.rr_duration > 60s)
    return bench_error(c,
                       fmt::format("'rr_duration' = {} ms must be 0..60 s", c.rr_duration.count()));
  if (c.write_size < 4096 || c.write_size > (1u << 20))
    return bench_error(c, fmt::format("'write_size' = {} must be 4 KiB..1 MiB", c.write_size));
  if (c.rr_size < 1 || c.rr_size > (64u << 10))
    return bench_error(c, fmt::format("'rr_size' = {} must be 1 B..64 KiB", c.rr_size));
  if (c.placement != P::loopback && c.address.empty())
    return bench_error(c, "'address' is needed: the server's address "
                          "(inside the namespace for netns, the peer's for peer)");
  if (c.placement == P::netns) {
    Status ns = tcp::check_netns(c.netns);
    if (!ns.ok()) return bench_error(c, ns.error().message());
  }
  if (c.placement == P::peer && !c.netns.empty())
    return bench_error(c, "'netns' applies to the netns placement only");
  auto ep = tcp::parse_endpoint(address_of(c), port_of(c));
  if (!ep.ok()) return bench_error(c, ep.error().what);
  return Ok{};
}

TcpBenchmark::TcpBenchmark(TcpConfig config) : config_(std::move(config)) {}

Status TcpBenchmark::check() {
  Status v = validate(config_);
  if (!v.ok()) return v;
  // Loopback and netns open (and close) the listener: proves the address exists where
  // it should and that we may enter the namespace; peer checks that the server there
  // proves the key.
  auto t = target(config_);
  if (!t.ok()) return t.error();
  // Direction "in" asks for the reverse stream itself: a peer's older tuner that would
  // refuse it is found here, before anything changes.
  auto mode = config_.direction == StreamDirection::in ? tcp::Mode::stream_in : tcp::Mode::probe;
  Status p = tcp::probe(t->endpoint, t->key, 2s, mode);
  if (!p.ok()) return bench_error(config_, p.error().message());
  return Ok{};
}

Result<tcp::ServerFacts> TcpBenchmark::server_facts() {
  Status v = validate(config_);
  if (!v.ok()) return v.error();
  auto t = target(config_);
  if (!t.ok()) return t.error();
  auto facts = tcp::server_facts(t->endpoint, t->key, 2s);
  if (!facts.ok()) return bench_error(config_, facts.error().message());
  return facts;
}

Result<TcpResult> TcpBenchmark::measure() {
  Status v = validate(config_);
  if (!v.ok()) return v.error();
  auto t = target(config_);
  if (!t.ok()) return t.error();
  TcpResult r;
  auto streams = tcp::run_streams(t->endpoint, t->key, stream_mode(config_), config_.streams,
                                  config_.duration, config_.write_size, config_.cpus);
  if (!streams.ok()) return bench_error(config_, streams.error().message());
  r.bytes = streams->bytes;
  r.throughput_bps = streams->bits_per_second();
  r.connections = streams->connections;
  if (config_.rr_duration > 0ms) {
    auto rr = tcp::run_rr(t->endpoint, t->key, config_.rr_duration, config_.rr_size, config_.cpus);
    if (!rr.ok()) return bench_error(config_, rr.error().message());
    Percentiles p = summarize(std::move(rr->rtt_ns));
    r.transactions = p.count;
    r.rr_p50_us = static_cast<double>(p.p50) / 1e3;
    r.rr_p99_us = static_cast<double>(p.p99) / 1e3;
    r.connections += rr->connections;
  }
  if (config_.placement == TcpConfig::Placement::loopback && t->server) {
    t->server->stop();  // every server thread has read its socket's counters
    ConnectionCounters both = r.connections;
    both += t->server->served();
    r.loopback = both;
  }
  return r;
}

Result<Measurement> TcpBenchmark::run() {
  auto t0 = Clock::now();
  auto r = measure();
  if (!r.ok()) return r.error();
  Measurement m;
  m.metrics.push_back(Metric{"throughput", r->throughput_bps, "bit/s", Direction::higher});
  if (config_.rr_duration > 0ms) {
    m.metrics.push_back(Metric{"rr_latency_p50", r->rr_p50_us, "us", Direction::lower});
    m.metrics.push_back(Metric{"rr_latency_p99", r->rr_p99_us, "us", Direction::lower});
  }
  m.connections = r->connections;
  m.loopback = r->loopback;
  m.elapsed = Clock::now() - t0;
  return m;
}

}  // namespace tuner::bench
