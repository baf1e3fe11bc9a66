#include "probes/bench/guards.h"

#include <algorithm>
#include <array>
#include <cerrno>

#include <fmt/core.h>

#include "base/enum_names.h"
#include "base/strings.h"
#include "probes/bench/net_dev.h"
#include "probes/ifname.h"

namespace tuner::bench {

namespace {

constexpr std::array<EnumName<GuardMetric>, 4> kGuardMetrics = {{
    {GuardMetric::tcp_retrans_pct, "tcp_retrans_pct"},
    {GuardMetric::nic_drops, "nic_drops"},
    {GuardMetric::nic_errors, "nic_errors"},
    {GuardMetric::link_flaps, "link_flaps"},
}};
static_assert(in_enum_order(kGuardMetrics));

/// A counter's increase; a counter that went down was reset, and counted from 0.
uint64_t increase(uint64_t before, uint64_t after) {
  return after >= before ? after - before : after;
}

Result<uint64_t> read_counter(const Root& root, const std::string& path) {
  auto text = root.read(path);
  if (!text.ok()) return text.error();
  auto v = parse_u64(*text);
  if (!v) return Error::invalid(fmt::format("'{}' is not a counter", trim(*text)), path);
  return *v;
}

double per_trial(uint64_t total, unsigned trials) {
  return trials == 0 ? 0.0 : static_cast<double>(total) / trials;
}

}  // namespace

const char* guard_metric_name(GuardMetric m) { return enum_name(kGuardMetrics, m); }

std::optional<GuardMetric> parse_guard_metric(std::string_view name) {
  return enum_from_name(kGuardMetrics, name);
}

std::string guard_metric_names() { return enum_names_joined(kGuardMetrics, ", "); }

Result<TcpCounters> parse_snmp_tcp(std::string_view snmp) {
  std::vector<std::string_view> lines = split(snmp, '\n');
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    if (!starts_with(lines[i], "Tcp:") || !starts_with(lines[i + 1], "Tcp:")) continue;
    std::vector<std::string_view> names = split_ws(lines[i]), values = split_ws(lines[i + 1]);
    if (names.size() != values.size())
      return Error::invalid(fmt::format("Tcp: {} names but {} values", names.size(), values.size()),
                            "/proc/net/snmp");
    std::optional<uint64_t> out, retrans;
    for (std::size_t k = 1; k < names.size(); ++k) {
      if (names[k] == "OutSegs") out = parse_u64(values[k]);
      if (names[k] == "RetransSegs") retrans = parse_u64(values[k]);
    }
    if (!out || !retrans)
      return Error::invalid("Tcp: has no numeric OutSegs and RetransSegs", "/proc/net/snmp");
    return TcpCounters{*out, *retrans};
  }
  return Error::missing("no Tcp: lines", "/proc/net/snmp");
}

Result<std::map<std::string, NicCounters>> parse_net_dev(std::string_view text) {
  auto rows = parse_net_dev_rows(text);
  if (!rows.ok()) return rows.error();
  std::map<std::string, NicCounters> out;
  for (const auto& [name, r] : *rows) {
    NicCounters& c = out[name];
    c.rx_packets = r.rx_packets();
    c.tx_packets = r.tx_packets();
    c.rx_errors = r.rx_errors();
    c.rx_dropped = r.rx_dropped();
    c.tx_errors = r.tx_errors();
    c.tx_dropped = r.tx_dropped();
  }
  return out;
}

Result<NicCounterSample> sample_present_nic_counters(const Root& root,
                                                     const std::vector<std::string>& interfaces) {
  NicCounterSample out;
  if (interfaces.empty()) return out;
  auto dev_text = root.read("proc/net/dev");
  if (!dev_text.ok()) return dev_text.error();
  auto dev = parse_net_dev(*dev_text);
  if (!dev.ok()) return dev.error();
  for (const std::string& name : interfaces) {
    if (Status ok = validate_ifname(name, IfnameRule::kernel); !ok)
      return ok.error().context("guards");
    auto it = dev->find(name);
    if (it == dev->end()) {
      out.missing.push_back(name);
      continue;
    }
    NicCounters c = it->second;
    auto flaps = read_counter(root, "sys/class/net/" + name + "/carrier_changes");
    if (!flaps.ok() && flaps.error().is(ErrorKind::missing)) {  // unregistered since proc/net/dev
      out.missing.push_back(name);
      continue;
    }
    if (!flaps.ok()) return flaps.error();
    c.carrier_changes = *flaps;
    out.counters[name] = c;
  }
  return out;
}

Result<std::map<std::string, NicCounters>> sample_nic_counters(
    const Root& root, const std::vector<std::string>& interfaces) {
  auto sample = sample_present_nic_counters(root, interfaces);
  if (!sample.ok()) return sample.error();
  if (!sample->missing.empty())
    return Error::missing(
        fmt::format("no interface {} in this network namespace", sample->missing.front()),
        "/proc/net/dev");
  return std::move(sample->counters);
}

Result<GuardSample> sample_guards(const Root& root, const std::vector<std::string>& interfaces) {
  GuardSample s;
  auto snmp = root.read("proc/net/snmp");
  if (!snmp.ok()) return snmp.error();
  auto tcp = parse_snmp_tcp(*snmp);
  if (!tcp.ok()) return tcp.error();
  s.tcp = *tcp;
  auto nics = sample_nic_counters(root, interfaces);
  if (!nics.ok()) return nics.error();
  s.nics = std::move(nics).value();
  return s;
}

double GuardDelta::retrans_pct() const {
  return out_segs == 0 ? 0.0
                       : 100.0 * static_cast<double>(retrans_segs) / static_cast<double>(out_segs);
}

GuardDelta& GuardDelta::operator+=(const GuardDelta& o) {
  out_segs += o.out_segs;
  retrans_segs += o.retrans_segs;
  trials += o.trials;
  seconds += o.seconds;
  connections += o.connections;
  connection_trials += o.connection_trials;
  loopback += o.loopback;
  node.segs += o.node.segs;
  node.retrans += o.node.retrans;
  tcp_trials.insert(tcp_trials.end(), o.tcp_trials.begin(), o.tcp_trials.end());
  for (const auto& [name, c] : o.nics) {
    NicCounters& t = nics[name];
    t.rx_dropped += c.rx_dropped;
    t.tx_dropped += c.tx_dropped;
    t.rx_errors += c.rx_errors;
    t.tx_errors += c.tx_errors;
    t.carrier_changes += c.carrier_changes;
    t.rx_packets += c.rx_packets;
    t.tx_packets += c.tx_packets;
  }
  return *this;
}

GuardDelta guard_delta(const GuardSample& before, const GuardSample& after) {
  GuardDelta d;
  d.trials = 1;
  d.out_segs = increase(before.tcp.out_segs, after.tcp.out_segs);
  d.retrans_segs = increase(before.tcp.retrans_segs, after.tcp.retrans_segs);
  d.node = {d.out_segs, d.retrans_segs};
  d.tcp_trials.push_back({d.node, d.node, {}});
  for (const auto& [name, a] : after.nics) {
    auto b = before.nics.find(name);
    NicCounters zero;
    const NicCounters& bc = b == before.nics.end() ? zero : b->second;
    d.nics[name] = NicCounters{increase(bc.rx_dropped, a.rx_dropped),
                               increase(bc.tx_dropped, a.tx_dropped),
                               increase(bc.rx_errors, a.rx_errors),
                               increase(bc.tx_errors, a.tx_errors),
                               increase(bc.carrier_changes, a.carrier_changes),
                               increase(bc.rx_packets, a.rx_packets),
                               increase(bc.tx_packets, a.tx_packets)};
  }
  return d;
}

GuardDelta guard_delta(const GuardSample& before, const GuardSample& after, const Measurement& m) {
  GuardDelta d = guard_delta(before, after);
  if (m.connections) {
    d.connections = *m.connections;
    d.connection_trials = 1;
    d.tcp_trials.back().bench = {m.connections->segs_out, m.connections->retrans};
  }
  if (m.loopback) {
    // OutSegs leaves retransmissions out, tcpi_segs_out counts them.
    d.loopback = *m.loopback;
    uint64_t first = m.loopback->segs_out - std::min(m.loopback->segs_out, m.loopback->retrans);
    d.node.segs = d.out_segs - std::min(d.out_segs, first);
    d.node.retrans = d.retrans_segs - std::min(d.retrans_segs, m.loopback->retrans);
    d.tcp_trials.back().node = d.node;
  }
  return d;
}

constexpr std::array<EnumName<RetransSource>, 3> kRetransSources = {{
    {RetransSource::namespace_counter, "namespace"},
    {RetransSource::node_traffic, "node_traffic"},
    {RetransSource::benchmark_connections, "benchmark_connections"},
}};
static_assert(in_enum_order(kRetransSources));

const char* retrans_source_name(RetransSource s) { return enum_name(kRetransSources, s); }

RetransSource retrans_source(const GuardDelta& baseline, const GuardDelta& candidate) {
  return baseline.has_connections() && candidate.has_connections()
             ? RetransSource::node_traffic
             : RetransSource::namespace_counter;
}

GuardLimits GuardLimits::defaults() {
  GuardLimits l;
  l.limits = {{GuardMetric::tcp_retrans_pct, 1.0},
              {GuardMetric::nic_drops, 10},
              {GuardMetric::nic_errors, 0},
              {GuardMetric::link_flaps, 0}};
  return l;
}

void GuardLimits::set(GuardLimit l) {
  for (GuardLimit& x : limits)
    if (x.metric == l.metric) {
      x = l;
      return;
    }
  limits.push_back(l);
}

std::vector<GuardTrip> check_guards(const GuardDelta& base, const GuardDelta& cand,
                                    const GuardLimits& limits) {
  std::vector<GuardTrip> trips;
  for (const GuardLimit& l : limits.limits) {
    const char* name = guard_metric_name(l.metric);
    if (l.metric == GuardMetric::tcp_retrans_pct) {
      if (base.out_segs < limits.min_out_segs || cand.out_segs < limits.min_out_segs) continue;
      double b = base.retrans_pct(), c = cand.retrans_pct();
      if (c - b > l.max_increase)
        trips.push_back(
            {l.metric, "", b, c, l.max_increase,
             fmt::format("{}: {:.2f}% -> {:.2f}%, limit +{:.2f}%", name, b, c, l.max_increase)});
      continue;
    }
    for (const auto& [ifname, cc] : cand.nics) {
      auto bi = base.nics.find(ifname);
      NicCounters zero;
      const NicCounters& bc = bi == base.nics.end() ? zero : bi->second;
      auto pick = [&](const NicCounters& n) {
        return l.metric == GuardMetric::nic_drops    ? n.drops()
               : l.metric == GuardMetric::nic_errors ? n.errors()
                                                     : n.carrier_changes;
      };
      double b = per_trial(pick(bc), base.trials), c = per_trial(pick(cc), cand.trials);
      if (c - b > l.max_increase)
        trips.push_back({l.metric, ifname, b, c, l.max_increase,
                         fmt::format("{} {}: {:g} -> {:g} per trial, limit +{:g}", name, ifname, b,
                                     c, l.max_increase)});
    }
  }
  return trips;
}

}  // namespace tuner::bench
