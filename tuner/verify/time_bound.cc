#include "tuner/verify/time_bound.h"

#include "tuner/verify/benches.h"

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
    case BenchSpec::Kind::tcp:
      return spec.tcp.duration + spec.tcp.rr_duration + milliseconds{1000};
    case BenchSpec::Kind::latency: return spec.latency.duration + milliseconds{500};
    case BenchSpec::Kind::membw: return spec.membw.duration + milliseconds{2000};
    case BenchSpec::Kind::exec: return spec.exec.timeout;
    case BenchSpec::Kind::count_: break;
  }
  return milliseconds{0};
}

milliseconds group_time_bound(const Profile& profile, const std::string& group, unsigned runs) {
  GroupDecider d = group_decider(profile, group);
  GroupPolicy policy = group_policy(profile, group);
  if (d.by == Decider::left_out) return milliseconds{0};
  if (d.by == Decider::guard_soak) return 2 * policy.soak;
  milliseconds one{0};
  for (const std::string& name : bench_names_for(profile, group))
    one += bench_run_bound(profile, name);
  return runs * one;
}

}  // namespace tuner::verify
