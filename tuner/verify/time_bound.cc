#include "tuner/verify/time_bound.h"

#include <algorithm>

#include <fmt/format.h>

#include "tuner/knobs/knob.h"
#include "tuner/verify/benches.h"
#include "tuner/verify/loop.h"
#include "tuner/verify/peer_window.h"
#include "tuner/verify/search.h"
#include "tuner/verify/verified_apply.h"

namespace tuner::verify {

using std::chrono::milliseconds;

milliseconds bench_run_bound(const Profile& profile, const std::string& name) {
  BenchSpec spec;
  if (auto it = profile.benches.find(name); it != profile.benches.end()) {
    spec = it->second;
  } else if (const BenchKindInfo* k = find_bench_kind(name); k && k->builtin) {
    spec.kind = k->kind;
  } else {
    return milliseconds{0};
  }
  switch (spec.kind) {
    case BenchSpec::Kind::tcp: return spec.tcp.duration + spec.tcp.rr_duration + milliseconds{1000};
    case BenchSpec::Kind::latency: return spec.latency.duration + milliseconds{500};
    case BenchSpec::Kind::membw: return spec.membw.duration + milliseconds{2000};
    case BenchSpec::Kind::exec: return spec.exec.timeout;
    case BenchSpec::Kind::count_: break;
  }
  return milliseconds{0};
}

milliseconds group_time_bound(const Profile& profile, const std::string& group, unsigned runs,
                              Design design) {
  GroupDecider d = group_decider(profile, group);
  GroupPolicy policy = group_policy(profile, group);
  if (d.by == Decider::left_out) return milliseconds{0};
  // A link-resetting knob (channels, rings, MTU, link modes) waits for the link once
  // when a soak writes it (kLinkTimeoutMs at most).
  const milliseconds link_wait{kLinkTimeoutMs};
  if (d.by == Decider::guard_soak || d.by == Decider::chosen)
    return 2 * policy.soak + (design == Design::blocked ? link_wait : milliseconds{0});
  milliseconds one{0};
  for (const std::string& name : bench_names_for(profile, group))
    one += bench_run_bound(profile, name);
  LoopOptions o;
  unsigned block = std::max(1u, o.block);
  // A blocked group rewrites a link-resetting knob at every flip and wash: each write
  // waits for the link to come back, then the loop's link settle.
  milliseconds settling = design == Design::blocked
                              ? 2 * ((runs + block - 1) / block) * (o.link_settle + link_wait)
                              : runs * o.settle;
  return runs * one + settling;
}

std::vector<PlanGroup::PeerTraffic> peer_traffic(const Profile& profile, const std::string& group,
                                                 unsigned runs) {
  GroupPolicy policy = group_policy(profile, group);
  std::vector<PlanGroup::PeerTraffic> out;
  for (const std::string& name : policy.bench) {
    BenchSpec spec;
    if (auto it = profile.benches.find(name); it != profile.benches.end()) {
      spec = it->second;
    } else if (const BenchKindInfo* k = find_bench_kind(name); k && k->builtin) {
      spec.kind = k->kind;
    }
    if (spec.kind != BenchSpec::Kind::tcp) continue;
    bool peer_copy = policy.peer;  // with_peer runs it against apply --peer
    if (!peer_copy && spec.tcp.placement != bench::TcpConfig::Placement::peer) continue;
    out.push_back({peer_copy ? name + "@peer" : name,
                   bench::stream_direction_name(spec.tcp.direction), runs, spec.tcp.duration,
                   spec.tcp.streams});
  }
  return out;
}

void fill_time_bounds(const Profile& profile, Plan& plan) {
  for (PlanSearch& s : plan.searches) {
    auto tried = std::count_if(s.candidates.begin(), s.candidates.end(),
                               [](const PlanSearch::Candidate& c) { return !c.current; });
    Design design = s.design == "blocked" ? Design::blocked : Design::interleaved;
    s.worst_case_runs = search_worst_case_runs(design, static_cast<std::size_t>(tried),
                                               profile.verify.max_trials, LoopOptions{}.block);
  }
  for (PlanGroup& g : plan.groups) {
    unsigned runs = 2 * profile.verify.max_trials;
    for (const PlanSearch& s : plan.searches)
      if (s.group == g.name) runs = std::max(runs, s.worst_case_runs);
    std::vector<std::string> knobs;
    for (const Change& c : plan.changes)
      if (c.group == g.name) knobs.push_back(c.knob);
    Design design = design_for_knobs(knobs);
    g.worst_case =
        std::chrono::ceil<std::chrono::seconds>(group_time_bound(profile, g.name, runs, design));
    Decider by = group_decider(profile, g.name).by;
    if (by == Decider::benchmark || by == Decider::peer_benchmark)
      g.peer_traffic = peer_traffic(profile, g.name, runs);
    if (auto need = peer_window_need(profile, plan, g.name)) g.peer_wmem_needed = need->rmem_max;
    if (design == Design::blocked && (by == Decider::benchmark || by == Decider::peer_benchmark)) {
      unsigned block = std::max(1u, LoopOptions{}.block);
      plan.notes.push_back(fmt::format(
          "group {} changes a port's channels, rings, MTU or link modes and is measured in A/B "
          "trials: a verifying apply rewrites them at every flip and wash, up to {} times, each "
          "a link reset on i40e, ice and bnxt_en; decide it by the guard soak (bench = []) to "
          "write them once",
          g.name, 2 * ((runs + block - 1) / block)));
    }
  }
  if (profile.verify.budget)
    plan.verify_budget = std::chrono::ceil<std::chrono::seconds>(*profile.verify.budget);
}

}  // namespace tuner::verify
