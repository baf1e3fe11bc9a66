#include "tuner/verify/soak.h"

#include <algorithm>

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

/// Traffic enough to judge something: TCP segments for the retransmit guard, or
/// packets through a watched interface in both windows.
bool has_traffic(const bench::GuardDelta& before, const bench::GuardDelta& after,
                 const bench::GuardLimits& limits) {
  if (before.out_segs >= limits.min_out_segs && after.out_segs >= limits.min_out_segs) return true;
  return std::ranges::any_of(after.nics, [&](const auto& nic) {
    auto b = before.nics.find(nic.first);
    return nic.second.packets() > 0 && b != before.nics.end() && b->second.packets() > 0;
  });
}

/// "no traffic on eth0, eth1 during the soak"; with no NIC watched, TCP is all there is.
std::string no_traffic(const SoakOptions& o) {
  if (o.interfaces.empty()) return "no TCP traffic during the soak (no NIC is watched)";
  std::string names;
  for (const auto& n : o.interfaces) names += (names.empty() ? "" : ", ") + n;
  return fmt::format("no traffic on {} during the soak", names);
}

}  // namespace

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
  clock.wait_for(o.window);
  auto s2 = bench::sample_guards(root, o.interfaces);
  if (!s2.ok()) return s2.error();
  auto t2 = clock.now();

  bench::GuardDelta before = bench::guard_delta(*s0, *s1), after = bench::guard_delta(*s1, *s2);
  before.seconds = seconds(t1 - t0);
  after.seconds = seconds(t2 - t1);
  r.traffic = has_traffic(before, after, o.limits);
  r.guards = judge_guards(before, after, o.limits, o.test);
  for (const GuardJudgement& j : r.guards) r.tripped = r.tripped || j.tripped;
  if (!r.traffic) r.note = no_traffic(o);

  nlohmann::json guards = nlohmann::json::array();
  for (const GuardJudgement& j : r.guards) guards.push_back(guard_json(j));
  r.json = {{"window_s", seconds(o.window)},
            {"windows",
             {{"before", window_json(before, seconds(t1 - t0))},
              {"after", window_json(after, seconds(t2 - t1))}}},
            {"guards", guards},
            {"traffic", r.traffic},
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
