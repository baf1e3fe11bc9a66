#include "tuner/verify/peer_window.h"

#include <algorithm>
#include <map>

#include <fmt/core.h>

#include "probes/bench/tcp_buffers.h"
#include "tuner/profile/group_policy.h"

namespace tuner::verify {

namespace {

constexpr const char* kTcpRmem = "sysctl:net.ipv4.tcp_rmem";

/// "268435456 (256 MiB)".
std::string bytes_text(uint64_t n) {
  if (n >= (1u << 20) && n % (1u << 20) == 0) return fmt::format("{} ({} MiB)", n, n >> 20);
  return std::to_string(n);
}

/// The deciding benchmark's tcp table when it is a tcp one with direction "in" run
/// against a peer; nullptr otherwise.
const BenchSpec* peer_in_spec(const Profile& profile, const GroupPolicy& policy) {
  if (policy.bench.empty()) return nullptr;
  auto it = profile.benches.find(policy.bench.front());
  if (it == profile.benches.end() || it->second.kind != BenchSpec::Kind::tcp) return nullptr;
  const bench::TcpConfig& t = it->second.tcp;
  if (t.direction != bench::StreamDirection::in) return nullptr;
  bool against_peer = policy.peer || t.placement == bench::TcpConfig::Placement::peer;
  return against_peer ? &it->second : nullptr;
}

}  // namespace

std::optional<PeerWindowNeed> peer_window_need(const Profile& profile, const Plan& plan,
                                               const std::string& group) {
  GroupPolicy policy = group_policy(profile, group);
  if (!peer_in_spec(profile, policy)) return std::nullopt;
  std::optional<uint64_t> need;
  auto consider = [&](const std::optional<std::string>& current, const std::string& desired) {
    auto after = bench::tcp::tcp_mem_max(desired);
    if (!after) return;
    auto before = current ? bench::tcp::tcp_mem_max(*current) : std::nullopt;
    // An unreadable current value may be below: the candidate may raise it.
    if (before && *before >= *after) return;
    need = std::max(need.value_or(0), *after);
  };
  for (const Change& c : plan.changes)
    if (c.group == group && c.knob == kTcpRmem) consider(c.current, c.desired);
  for (const PlanSearch& s : plan.searches) {
    if (s.group != group) continue;
    auto k = std::find(s.knobs.begin(), s.knobs.end(), kTcpRmem);
    if (k == s.knobs.end()) continue;
    auto i = static_cast<std::size_t>(k - s.knobs.begin());
    std::optional<std::string> current;
    for (const Change& c : plan.changes)
      if (c.knob == kTcpRmem) current = c.current;
    for (const PlanSearch::Candidate& cand : s.candidates)
      if (i < cand.desired.size()) consider(current, cand.desired[i]);
  }
  if (!need) return std::nullopt;
  return PeerWindowNeed{group, policy.bench.front(), *need};
}

PeerWindowFit peer_window_fit(const PeerWindowNeed& need, std::optional<uint64_t> peer_wmem_max) {
  if (!peer_wmem_max) return PeerWindowFit::unknown;
  return *peer_wmem_max < need.rmem_max ? PeerWindowFit::too_small : PeerWindowFit::fits;
}

std::string peer_window_note(const PeerWindowNeed& need, std::optional<uint64_t> peer_wmem_max,
                             PeerWindowFit fit) {
  switch (fit) {
    case PeerWindowFit::fits: return "";
    case PeerWindowFit::too_small:
      return fmt::format(
          "group {}: the peer's net.ipv4.tcp_wmem maximum is {}, below this node's candidate "
          "tcp_rmem maximum {}: the peer sends (direction \"in\"), its send buffer bounds the "
          "window, and {} cannot load the setting, so the guard soak decides the group "
          "instead (kept unless it proves harm); no wide-area trials are run for it",
          need.group, bytes_text(*peer_wmem_max), bytes_text(need.rmem_max), need.bench);
    case PeerWindowFit::unknown:
      return fmt::format(
          "group {}: the peer did not report its net.ipv4.tcp_wmem maximum (a tuner from "
          "before it did): {} is run as planned, but it loads this node's tcp_rmem maximum "
          "{} only if the peer's is at least that",
          need.group, need.bench, bytes_text(need.rmem_max));
  }
  return "";
}

ServerFactsFn live_server_facts() {
  return [](const bench::TcpConfig& config) { return bench::TcpBenchmark(config).server_facts(); };
}

void soak_instead(Profile& profile, const std::string& group) {
  GroupSettings& g = profile.groups[group];
  if (g.name.empty()) g.name = group;
  g.bench = std::vector<std::string>{};
  g.keep_if_neutral = true;
}

Result<std::vector<PeerWindowCheck>> check_peer_windows(Profile& profile, const Plan& plan,
                                                        const std::vector<std::string>& groups,
                                                        const ServerFactsFn& facts) {
  std::vector<PeerWindowCheck> out;
  std::map<std::string, bench::tcp::ServerFacts> asked;  // by benchmark
  for (const std::string& group : groups) {
    auto need = peer_window_need(profile, plan, group);
    if (!need) continue;
    auto it = asked.find(need->bench);
    if (it == asked.end()) {
      auto f = facts(profile.benches.at(need->bench).tcp);
      if (!f.ok())
        return f.error().context(fmt::format("benchmark '{}' cannot run here", need->bench));
      it = asked.emplace(need->bench, *f).first;
    }
    PeerWindowCheck c{*need, it->second.tcp_wmem_max, PeerWindowFit::fits, ""};
    c.fit = peer_window_fit(c.need, c.peer_wmem_max);
    c.note = peer_window_note(c.need, c.peer_wmem_max, c.fit);
    if (c.fit == PeerWindowFit::too_small) soak_instead(profile, group);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace tuner::verify
