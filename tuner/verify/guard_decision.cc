#include "tuner/verify/guard_decision.h"

#include <algorithm>
#include <charconv>

#include <fmt/core.h>

#include "base/from_chars.h"

namespace tuner::verify {

namespace {

using bench::GuardMetric;

uint64_t pick(GuardMetric m, const bench::NicCounters& n) {
  return m == GuardMetric::nic_drops    ? n.drops()
         : m == GuardMetric::nic_errors ? n.errors()
                                        : n.carrier_changes;
}

double rate(uint64_t x, double t) { return t > 0 ? static_cast<double>(x) / t : 0.0; }

/// One arm's retransmits and segments from a source: a trial's, or the arm's summed.
bench::TcpCount pick_tcp(const bench::GuardDelta::TcpTrial& t, bench::RetransSource s) {
  return s == bench::RetransSource::node_traffic            ? t.node
         : s == bench::RetransSource::benchmark_connections ? t.bench
                                                            : t.ns;
}

bench::TcpCount retrans_counts(const bench::GuardDelta& d, bench::RetransSource s) {
  return pick_tcp(
      {{d.out_segs, d.retrans_segs}, d.node, {d.connections.segs_out, d.connections.retrans}}, s);
}

/// Each trial's retransmits over its segments, from the chosen source.
std::vector<TrialCount> retrans_trials(const bench::GuardDelta& d, bench::RetransSource s) {
  std::vector<TrialCount> out;
  for (const bench::GuardDelta::TcpTrial& t : d.tcp_trials) {
    bench::TcpCount c = pick_tcp(t, s);
    out.push_back({c.retrans, static_cast<double>(c.segs)});
  }
  return out;
}

GuardJudgement judge_retrans(const bench::GuardDelta& b, const bench::GuardDelta& c, double limit,
                             const bench::GuardLimits& limits, const GuardTestConfig& cfg) {
  GuardJudgement j;
  j.metric = GuardMetric::tcp_retrans_pct;
  j.source = bench::retrans_source(b, c);
  j.limit = limit;
  bench::TcpCount nb = retrans_counts(b, j.source), nc = retrans_counts(c, j.source);
  auto enough = [&](bench::TcpCount x, bench::TcpCount y) {
    return x.segs >= limits.min_out_segs && y.segs >= limits.min_out_segs;
  };
  if (j.source == bench::RetransSource::node_traffic && !enough(nb, nc)) {
    // No real traffic to speak of: said so, and the benchmark's own connections judged
    // instead when they carried enough (a loopback benchmark's sockets retransmit only
    // when the stack drops on loopback, which is harm too).
    std::string why = fmt::format("too little node TCP traffic to judge: {} and {} segments, {} "
                                  "needed per arm",
                                  nb.segs, nc.segs, limits.min_out_segs);
    bench::TcpCount bb = retrans_counts(b, bench::RetransSource::benchmark_connections),
                    bc = retrans_counts(c, bench::RetransSource::benchmark_connections);
    if (enough(bb, bc)) {
      j.source = bench::RetransSource::benchmark_connections;
      nb = bb;
      nc = bc;
      why += "; the benchmark's own connections judged instead";
    }
    j.note = why;
  } else if (j.source == bench::RetransSource::node_traffic &&
             (b.loopback.segs_out > 0 || c.loopback.segs_out > 0)) {
    j.note = fmt::format("the node's traffic: the namespace's {} and {} segments less the "
                         "benchmark's {} and {} on loopback ({} and {} retransmitted)",
                         b.out_segs, c.out_segs, b.loopback.segs_out, c.loopback.segs_out,
                         b.loopback.retrans, c.loopback.retrans);
  }
  j.counts = {nb.retrans, static_cast<double>(nb.segs), nc.retrans, static_cast<double>(nc.segs)};
  j.baseline = 100 * rate(nb.retrans, j.counts.t_b);
  j.candidate = 100 * rate(nc.retrans, j.counts.t_c);
  if (!enough(nb, nc)) {
    j.judged = false;
    if (j.note.empty())
      j.note = fmt::format("too little TCP traffic to judge: {} and {} segments, {} needed per arm",
                           nb.segs, nc.segs, limits.min_out_segs);
    return j;
  }
  if (cfg.dispersion)
    j.dispersion = dispersion(retrans_trials(b, j.source), retrans_trials(c, j.source));
  double delta = limit / 100;
  Margin margin{delta, cfg.retrans_ratio, cfg.retrans_floor * delta};
  j.bound = delta > 0 ? 100 * margin.bound(j.baseline / 100) : j.baseline;
  j.p = delta > 0 ? rate_margin_p(j.counts, margin, cfg.gamma, j.dispersion)
                  : rate_ratio_p(j.counts, 1.0, j.dispersion);
  j.tripped = j.p <= cfg.level;
  // Real retransmits can be so dispersed (a trial's loss episodes retransmitting whole
  // windows) that the counts prove little however far the rates moved. The per-trial
  // rates then speak: a rank test of the candidate's trials against the baseline's,
  // beside the count test at half its level (the two together within 1.5 x level).
  if (cfg.dispersion && !j.tripped) {
    double p_rank = rate_rank_p(retrans_trials(b, j.source), retrans_trials(c, j.source), delta);
    if (p_rank <= cfg.level / 2) {
      j.p = p_rank;
      j.tripped = true;
      j.note += std::string(j.note.empty() ? "" : "; ") +
                fmt::format("proven by the per-trial rates (rank test, p = {:.2g})", p_rank);
    }
  }
  return j;
}

GuardJudgement judge_counter(GuardMetric m, const std::string& ifname, const bench::GuardDelta& b,
                             const bench::GuardDelta& c, double limit, const GuardTestConfig& cfg) {
  GuardJudgement j;
  j.metric = m;
  j.interface = ifname;
  auto bi = b.nics.find(ifname);
  auto ci = c.nics.find(ifname);
  uint64_t xb = bi == b.nics.end() ? 0 : pick(m, bi->second);
  uint64_t xc = ci == c.nics.end() ? 0 : pick(m, ci->second);
  j.counts = {xb, static_cast<double>(b.trials), xc, static_cast<double>(c.trials)};
  j.baseline = rate(xb, j.counts.t_b);
  j.candidate = rate(xc, j.counts.t_c);
  j.limit = limit;
  j.bound = j.baseline + limit;
  if (b.trials == 0 || c.trials == 0) {
    j.judged = false;
    j.note = "no trials on one arm";
    return j;
  }
  // A zero limit is a ratio of one: the conditional test is exact and the most powerful.
  j.p = limit > 0 ? rate_margin_p(j.counts, {limit}, cfg.gamma) : rate_ratio_p(j.counts, 1.0);
  auto prior = cfg.flap_prior.find(ifname);
  if (m == GuardMetric::link_flaps && prior != cfg.flap_prior.end() && prior->second.seconds > 0 &&
      b.seconds > 0 && c.seconds > 0) {
    // The since-boot rate as a floor under the baseline's: the candidate must also be
    // proven above it, per second, with the limit (per trial) at the candidate's trial
    // length. Trips need both (intersection-union: valid at cfg.level).
    Counts floor{prior->second.events, prior->second.seconds, xc, c.seconds};
    double margin = limit * static_cast<double>(c.trials) / c.seconds;
    j.floored = true;
    j.floor_p = margin > 0 ? rate_margin_p(floor, {margin}, cfg.gamma) : rate_ratio_p(floor, 1.0);
    j.p = std::max(j.p, j.floor_p);
    j.note = fmt::format(
        "floor under the baseline: {} carrier changes in the {:.0f} s before the run (p = {:.2g})",
        prior->second.events, prior->second.seconds, j.floor_p);
  }
  j.tripped = j.p <= cfg.level;
  return j;
}

std::string trip_text(const GuardJudgement& j) {
  const char* name = bench::guard_metric_name(j.metric);
  if (j.metric == GuardMetric::tcp_retrans_pct)
    return fmt::format("{}: {:.2f}% -> {:.2f}%, limit +{:.2f}% ({} of {} and {} of {} segments "
                       "retransmitted, {}; dispersion {:.3g}; p = {:.2g})",
                       name, j.baseline, j.candidate, j.limit, j.counts.x_b, j.counts.t_b,
                       j.counts.x_c, j.counts.t_c, bench::retrans_source_name(j.source),
                       j.dispersion, j.p);
  std::string floor = j.floored ? "; " + j.note : "";
  return fmt::format("{} {}: {:g} -> {:g} per trial, limit +{:g} ({} in {:g} and {} in {:g} "
                     "trials{}; p = {:.2g})",
                     name, j.interface, j.baseline, j.candidate, j.limit, j.counts.x_b,
                     j.counts.t_b, j.counts.x_c, j.counts.t_c, floor, j.p);
}

nlohmann::json counts_json(const Counts& c) {
  // exposure: trials (or windows), segments for retransmits.
  return {{"baseline", {{"events", c.x_b}, {"exposure", c.t_b}}},
          {"candidate", {{"events", c.x_c}, {"exposure", c.t_c}}}};
}

}  // namespace

std::vector<GuardJudgement> judge_guards(const bench::GuardDelta& baseline,
                                         const bench::GuardDelta& candidate,
                                         const bench::GuardLimits& limits,
                                         const GuardTestConfig& config) {
  const bench::GuardDelta &b = baseline, &c = candidate;
  const GuardTestConfig& cfg = config;
  std::vector<GuardJudgement> out;
  for (const bench::GuardLimit& l : limits.limits) {
    if (l.metric == GuardMetric::tcp_retrans_pct) {
      out.push_back(judge_retrans(b, c, l.max_increase, limits, cfg));
      continue;
    }
    for (const auto& [ifname, counters] : c.nics)
      out.push_back(judge_counter(l.metric, ifname, b, c, l.max_increase, cfg));
  }
  for (GuardJudgement& j : out)
    if (j.tripped) j.text = trip_text(j);
  return out;
}

std::vector<bench::GuardTrip> guard_trips(const bench::GuardDelta& baseline,
                                          const bench::GuardDelta& candidate,
                                          const bench::GuardLimits& limits,
                                          const GuardTestConfig& config) {
  std::vector<bench::GuardTrip> trips;
  for (const GuardJudgement& j : judge_guards(baseline, candidate, limits, config))
    if (j.tripped)
      trips.push_back(
          {j.metric, j.interface, j.baseline, j.candidate, j.limit, j.text, j.p, j.bound});
  return trips;
}

nlohmann::json guard_json(const GuardJudgement& j) {
  nlohmann::json g = {{"metric", bench::guard_metric_name(j.metric)}};
  if (j.metric == GuardMetric::tcp_retrans_pct) {
    g["source"] = bench::retrans_source_name(j.source);
    g["dispersion"] = j.dispersion;
  } else {
    g["interface"] = j.interface;
  }
  g["baseline"] = j.baseline;
  g["candidate"] = j.candidate;
  g["counts"] = counts_json(j.counts);
  g["limit"] = j.limit;
  if (j.judged) g["bound"] = j.bound;
  g["judged"] = j.judged;
  g["p"] = j.p;
  g["tripped"] = j.tripped;
  if (j.tripped) g["text"] = j.text;
  if (!j.note.empty()) g["note"] = j.note;
  return g;
}

// Every guard row the loop shows, judged against no limit here (the source and counts
// of each arm); the limits, p-values and texts of the tripped ones come from `trips`.
std::vector<GuardResult> guard_results(const bench::GuardDelta& baseline,
                                       const bench::GuardDelta& candidate,
                                       const std::vector<bench::GuardTrip>& trips) {
  const bench::GuardDelta &a = baseline, &b = candidate;
  bench::GuardLimits all;
  for (GuardMetric m : {GuardMetric::tcp_retrans_pct, GuardMetric::nic_drops,
                        GuardMetric::nic_errors, GuardMetric::link_flaps})
    all.set({m, 0});
  std::vector<GuardResult> out;
  for (const GuardJudgement& j : judge_guards(a, b, all)) {
    GuardResult g;
    g.metric = j.metric;
    g.interface = j.interface;
    if (j.metric == GuardMetric::tcp_retrans_pct) {
      g.source = bench::retrans_source_name(j.source);
      g.dispersion = j.dispersion;
      g.note = j.note;
    }
    g.baseline = j.baseline;
    g.candidate = j.candidate;
    g.counts = j.counts;
    for (const bench::GuardTrip& t : trips)
      if (t.metric == j.metric && t.interface == j.interface) {
        g.tripped = true;
        g.limit = t.max_increase;
        g.bound = t.bound;
        g.p = t.p;
        g.text = t.text;
      }
    out.push_back(std::move(g));
  }
  return out;
}

void note_expected_flaps(std::vector<GuardResult>& rows,
                         const std::map<std::string, uint64_t>& baseline,
                         const std::map<std::string, uint64_t>& candidate) {
  auto at = [](const std::map<std::string, uint64_t>& m, const std::string& k) {
    auto it = m.find(k);
    return it == m.end() ? uint64_t{0} : it->second;
  };
  for (GuardResult& g : rows)
    if (g.metric == GuardMetric::link_flaps)
      g.expected = ExpectedFlaps{at(baseline, g.interface), at(candidate, g.interface)};
}

Result<std::map<std::string, FlapPrior>> read_flap_prior(
    const Root& root, const std::vector<std::string>& interfaces) {
  auto uptime = root.read("proc/uptime");
  if (!uptime.ok()) return uptime.error();
  double up = 0;
  std::string_view text = *uptime;
  auto [end, ec] = from_chars_double(text.data(), text.data() + text.size(), up);
  if (ec != std::errc() || !(up > 0))
    return Error::invalid("not an uptime: " + std::string(text.substr(0, 40)), "proc/uptime");
  std::map<std::string, FlapPrior> out;
  auto counters = bench::sample_nic_counters(root, interfaces);
  if (!counters.ok()) return out;  // a NIC that cannot be read: no prior for any
  for (const auto& [name, c] : *counters) out[name] = {c.carrier_changes, up};
  return out;
}

}  // namespace tuner::verify
