#include "tuner/verify/soak.h"

#include <algorithm>
#include <cmath>

#include <fmt/core.h>

#include "base/interrupt.h"

namespace tuner::verify {

namespace {

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

nlohmann::json window_json(const bench::GuardDelta& d, double secs) {
  nlohmann::json ifs = nlohmann::json::object();
  for (const auto& [name, n] : d.nics)
    ifs[name] = {{"packets", n.packets()},
                 {"drops", n.drops()},
                 {"errors", n.errors()},
                 {"carrier_changes", n.carrier_changes}};
  return {{"seconds", secs},
          {"tcp", {{"out_segs", d.out_segs}, {"retrans_segs", d.retrans_segs}}},
          {"interfaces", ifs}};
}

/// Workload traffic to judge something by: TCP segments enough for the retransmit
/// guard, or a watched interface carrying min_packets in both windows (a handful of
/// ARP or LLDP frames is not a workload).
bool has_traffic(const bench::GuardDelta& before, const bench::GuardDelta& after,
                 const SoakOptions& o) {
  if (before.out_segs >= o.limits.min_out_segs && after.out_segs >= o.limits.min_out_segs)
    return true;
  return std::ranges::any_of(after.nics, [&](const auto& nic) {
    auto b = before.nics.find(nic.first);
    return b != before.nics.end() && nic.second.packets() >= min_packets(o, after.seconds) &&
           b->second.packets() >= min_packets(o, before.seconds);
  });
}

/// "no traffic on eth0, eth1 during the soak (fewer than 3000 packets ...): undecided";
/// with no NIC watched, TCP is all there is.
std::string no_traffic(const SoakOptions& o, const bench::GuardLimits& limits, double seconds) {
  std::string tcp = fmt::format("{} TCP segments", limits.min_out_segs);
  if (o.interfaces.empty())
    return fmt::format(
        "no TCP traffic during the soak (no NIC is watched; fewer than {} in a window): "
        "undecided, nothing judged",
        tcp);
  std::string names;
  for (const auto& n : o.interfaces) names += (names.empty() ? "" : ", ") + n;
  return fmt::format(
      "no traffic on {} during the soak (fewer than {} packets and {} in a window): undecided, "
      "nothing judged",
      names, min_packets(o, seconds), tcp);
}

}  // namespace

uint64_t min_packets(const SoakOptions& o, double seconds) {
  return std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(o.min_packets_per_s * seconds)));
}

Result<SoakResult> soak_group(const Root& root, Clock& clock, const SoakOptions& o,
                              const std::function<Status()>& write) {
  SoakResult r;
  if (o.window.count() <= 0) {
    if (Status s = write(); !s.ok()) return s.error();
    return r;
  }
  r.ran = true;
  auto s0 = bench::sample_guards(root, o.interfaces);
  if (!s0.ok()) return s0.error();
  auto t0 = clock.now();
  clock.wait_for(o.window);
  auto s1 = bench::sample_guards(root, o.interfaces);
  if (!s1.ok()) return s1.error();
  auto t1 = clock.now();
  if (Status s = check_interrupt(); !s.ok()) return s.error();  // nothing written yet
  if (Status s = write(); !s.ok()) return s.error();
  // The after-window starts once the write has returned: a write that resets the link
  // (a channel change on i40e, ice or bnxt_en) has waited for it to come back by then,
  // and the retransmits, drops and carrier changes of that one outage are the change's
  // stated cost (the plan says the link resets), not harm it goes on doing. A link that
  // keeps flapping, or loss that stays, counts in the window that follows.
  auto s1w = bench::sample_guards(root, o.interfaces);
  if (!s1w.ok()) return s1w.error();
  auto t1w = clock.now();
  clock.wait_for(o.window);
  auto s2 = bench::sample_guards(root, o.interfaces);
  if (!s2.ok()) return s2.error();
  auto t2 = clock.now();

  bench::GuardDelta before = bench::guard_delta(*s0, *s1), after = bench::guard_delta(*s1w, *s2);
  before.seconds = seconds(t1 - t0);
  after.seconds = seconds(t2 - t1w);
  r.traffic = has_traffic(before, after, o);
  r.guards = judge_guards(before, after, o.limits, o.test);
  for (const GuardJudgement& j : r.guards) r.tripped = r.tripped || j.tripped;
  // A trip is evidence with or without workload traffic (a link that starts flapping);
  // a pass without it is not.
  if (!r.traffic) r.note = no_traffic(o, o.limits, seconds(o.window));

  nlohmann::json guards = nlohmann::json::array();
  for (const GuardJudgement& j : r.guards) guards.push_back(guard_json(j));
  r.json = {
      {"window_s", seconds(o.window)},
      {"write_s", seconds(t1w - t1)},
      {"windows",
       {{"before", window_json(before, seconds(t1 - t0))},
        {"after", window_json(after, seconds(t2 - t1w))}}},
      {"guards", guards},
      {"traffic", r.traffic},
      {"min_traffic",
       {{"tcp_segments", o.limits.min_out_segs}, {"packets", min_packets(o, seconds(o.window))}}},
      {"decision", r.tripped   ? "tripped"
                   : r.traffic ? "passed"
                               : "no_traffic"}};
  if (!r.note.empty()) r.json["note"] = r.note;
  return r;
}

std::string tripped_text(const SoakResult& r) {
  std::string text;
  for (const GuardJudgement& j : r.guards)
    if (j.tripped) text += (text.empty() ? "" : "; ") + j.text;
  return text;
}

}  // namespace tuner::verify
