#include "tuner/profile/group_policy.h"

#include <array>

#include "base/enum_names.h"

namespace tuner {

namespace {

constexpr std::array<EnumName<Decider>, 5> kDeciders = {{
    {Decider::benchmark, "benchmark"},
    {Decider::peer_benchmark, "peer_benchmark"},
    {Decider::guard_soak, "guard_soak"},
    {Decider::left_out, "left_out"},
    {Decider::chosen, "chosen"},
}};
static_assert(in_enum_order(kDeciders));

/// The benchmark's kind and, for tcp and exec, its table (nullptr for a built-in name).
const BenchSpec* spec_of(const Profile& profile, const std::string& name) {
  auto it = profile.benches.find(name);
  return it == profile.benches.end() ? nullptr : &it->second;
}

bool is_tcp(const Profile& profile, const std::string& name) {
  if (const BenchSpec* s = spec_of(profile, name)) return s->kind == BenchSpec::Kind::tcp;
  const BenchKindInfo* row = find_bench_kind(name);
  return row && row->builtin && row->kind == BenchSpec::Kind::tcp;
}

/// Where a benchmark of this node measures.
std::string where_of(const Profile& profile, const std::string& name) {
  const BenchSpec* s = spec_of(profile, name);
  if (!s) {
    const BenchKindInfo* row = find_bench_kind(name);
    return row && row->kind == BenchSpec::Kind::tcp ? "loopback" : "this node";
  }
  switch (s->kind) {
    case BenchSpec::Kind::tcp:
      switch (s->tcp.placement) {
        case bench::TcpConfig::Placement::loopback: return "loopback";
        case bench::TcpConfig::Placement::netns: return "netns " + s->tcp.netns;
        case bench::TcpConfig::Placement::peer: return "peer " + s->tcp.address;
      }
      return "loopback";
    case BenchSpec::Kind::exec:
      return s->exec.command.empty() ? "this node" : "this node: " + s->exec.command.front();
    default: return "this node";
  }
}

}  // namespace

GroupPolicy group_policy(const Profile& profile, const std::string& group) {
  GroupPolicy p;
  p.name = group;
  p.bench = profile.verify.bench;
  p.bisect = profile.verify.bisect;
  p.soak = profile.verify.soak;
  auto g = profile.groups.find(group);
  if (g == profile.groups.end()) return p;
  if (g->second.bench) p.bench = *g->second.bench;
  if (g->second.bisect) p.bisect = *g->second.bisect;
  if (g->second.soak) p.soak = *g->second.soak;
  p.keep_if_neutral = g->second.keep_if_neutral;
  p.peer = g->second.peer;
  if (g->second.chosen) {
    // Soaked as a bench = [] group kept when neutral: the guards can still roll it back.
    p.chosen = true;
    p.bench.clear();
    p.keep_if_neutral = true;
    p.peer = false;
  }
  return p;
}

const char* decider_name(Decider d) { return enum_name(kDeciders, d); }

std::optional<Decider> parse_decider(std::string_view name) {
  return enum_from_name(kDeciders, name);
}

GroupDecider group_decider(const Profile& profile, const std::string& group) {
  GroupPolicy p = group_policy(profile, group);
  GroupDecider d;
  d.keep_if_neutral = p.keep_if_neutral;
  if (p.chosen) {
    d.by = Decider::chosen;
    return d;
  }
  if (p.bench.empty()) {
    d.by = p.keep_if_neutral ? Decider::guard_soak : Decider::left_out;
    return d;
  }
  // verified_apply's with_peer: a peer group's tcp benchmarks run against apply --peer.
  auto name = [&](const std::string& b) { return p.peer && is_tcp(profile, b) ? b + "@peer" : b; };
  d.by = p.peer ? Decider::peer_benchmark : Decider::benchmark;
  d.bench = name(p.bench.front());
  d.where = p.peer && is_tcp(profile, p.bench.front()) ? "apply --peer"
                                                       : where_of(profile, p.bench.front());
  for (std::size_t i = 1; i < p.bench.size(); ++i) d.watches.push_back(name(p.bench[i]));
  return d;
}

std::string decided_by_text(const GroupDecider& d) {
  const char* keep = d.keep_if_neutral ? "kept unless it proves harm"
                                       : "kept only on a proven gain";
  std::string soak =
      "the guard soak on the node's traffic: kept unless it proves harm (no traffic: undecided, "
      "kept as chosen)";
  std::string watching;
  for (const std::string& w : d.watches) watching += (watching.empty() ? ", watching " : ", ") + w;
  switch (d.by) {
    case Decider::benchmark:
      return "benchmark " + d.bench + " (" + d.where + ")" + watching + "; " + keep;
    case Decider::peer_benchmark:
      return "a peer benchmark: " + d.bench + " (" + d.where + ")" + watching + ", " + keep +
             "; without --peer " + soak;
    case Decider::guard_soak: return soak;
    case Decider::left_out:
      return "nothing measures it: left out when verifying (no benchmark, no keep_if_neutral)";
    case Decider::chosen:
      return "kept as chosen: nothing here measures what it gains or costs; the guard soak "
             "rolls it back only if the node's network errors rise";
  }
  return "";
}

}  // namespace tuner
