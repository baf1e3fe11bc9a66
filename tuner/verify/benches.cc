#include "tuner/verify/benches.h"

#include <algorithm>

#include <fmt/core.h>

#include "probes/bench/exec.h"
#include "probes/bench/latency.h"
#include "probes/bench/membw.h"
#include "probes/bench/tcp.h"
#include "tuner/profile/group_policy.h"

namespace tuner::verify {

Result<std::unique_ptr<bench::Benchmark>> make_benchmark(const std::string& name,
                                                         const Profile& profile,
                                                         const Topology& topology) {
  auto it = profile.benches.find(name);
  if (it == profile.benches.end()) {
    if (name == "tcp") return std::unique_ptr<bench::Benchmark>(new bench::TcpBenchmark({}));
    if (name == "membw") return bench::make_membw(topology);
    if (name == "latency") return bench::make_latency(topology);
    return Error::invalid(fmt::format("no benchmark named '{}' (built in: tcp, membw, latency; "
                                      "or define a [bench.{}] table)",
                                      name, name));
  }
  const BenchSpec& b = it->second;
  switch (b.kind) {
    case BenchSpec::Kind::exec:
      return std::unique_ptr<bench::Benchmark>(new bench::ExecBenchmark(b.exec));
    case BenchSpec::Kind::tcp:
      return std::unique_ptr<bench::Benchmark>(new bench::TcpBenchmark(b.tcp));
    case BenchSpec::Kind::membw: return bench::make_membw(topology, b.membw);
    case BenchSpec::Kind::latency: return bench::make_latency(topology, b.latency);
  }
  return Error::invalid("unknown benchmark kind", name);
}

std::vector<std::string> bench_names_for(const Profile& profile, const std::string& group) {
  return group_policy(profile, group).bench;
}

Result<BenchSet> BenchSet::build(const Profile& profile, const Topology& topology,
                                 const std::vector<std::string>& groups,
                                 const std::vector<std::string>& override_names) {
  BenchSet set;
  for (const std::string& group : groups) {
    std::vector<std::string> names = override_names.empty() ? bench_names_for(profile, group)
                                                            : override_names;
    for (const std::string& name : names) {
      if (!set.by_name_.contains(name)) {
        auto b = make_benchmark(name, profile, topology);
        if (!b.ok()) return b.error().context("benchmark " + name);
        if (Status s = (*b)->check(); !s.ok()) {
          // Bad input for this machine, found before anything changed (exit 2).
          Error e = s.error().context(fmt::format("benchmark '{}' cannot run here", name));
          e.kind = ErrorKind::invalid;
          return e;
        }
        set.by_name_[name] = std::move(b).value();
      }
      auto& list = set.by_group_[group];
      bench::Benchmark* b = set.by_name_[name].get();
      if (std::find(list.begin(), list.end(), b) == list.end()) list.push_back(b);
    }
  }
  return set;
}

bench::Benchmark* BenchSet::for_group(const std::string& group) const {
  auto it = by_group_.find(group);
  return it == by_group_.end() || it->second.empty() ? nullptr : it->second.front();
}

std::vector<bench::Benchmark*> BenchSet::watches_for(const std::string& group) const {
  auto it = by_group_.find(group);
  if (it == by_group_.end() || it->second.size() < 2) return {};
  return {it->second.begin() + 1, it->second.end()};
}

}  // namespace tuner::verify
