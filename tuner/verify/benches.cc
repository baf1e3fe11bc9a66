#include "tuner/verify/benches.h"

#include <algorithm>

#include <cerrno>
#include <optional>

#include <fmt/core.h>
#include <fmt/ranges.h>

#include "base/runner.h"

#include "probes/bench/exec.h"
#include "probes/bench/latency.h"
#include "probes/bench/membw.h"
#include "probes/bench/tcp.h"
#include "tuner/profile/group_policy.h"

namespace tuner::verify {

Result<std::unique_ptr<bench::Benchmark>> make_benchmark(const std::string& name,
                                                         const Profile& profile,
                                                         const Topology& topology) {
  BenchSpec builtin;
  auto it = profile.benches.find(name);
  if (it == profile.benches.end()) {
    const BenchKindInfo* row = find_bench_kind(name);
    if (!row || !row->builtin)
      return Error::invalid(fmt::format("no benchmark named '{}' (built in: {}; or define a "
                                        "[bench.{}] table)",
                                        name, builtin_bench_list(), name));
    builtin.name = name;
    builtin.kind = row->kind;  // with its default options
  }
  const BenchSpec& b = it == profile.benches.end() ? builtin : it->second;
  switch (b.kind) {
    case BenchSpec::Kind::exec: {
      bench::ExecConfig config = b.exec;
      std::size_t gpus = 0;
      for (const PciDevice& d : topology.pci) gpus += d.kind == "gpu";
      for (std::string& arg : config.command) {
        if (arg != "{gpus}") continue;
        if (gpus == 0) return Error::missing("its command asks for {gpus}, and this node has none");
        arg = std::to_string(gpus);
      }
      return std::unique_ptr<bench::Benchmark>(new bench::ExecBenchmark(std::move(config)));
    }
    case BenchSpec::Kind::tcp:
      return std::unique_ptr<bench::Benchmark>(new bench::TcpBenchmark(b.tcp));
    case BenchSpec::Kind::membw: return bench::make_membw(topology, b.membw);
    case BenchSpec::Kind::latency: return bench::make_latency(topology, b.latency);
    case BenchSpec::Kind::count_: break;
  }
  return Error::invalid("unknown benchmark kind", name);
}

std::vector<std::string> bench_names_for(const Profile& profile, const std::string& group) {
  return group_policy(profile, group).bench;
}

namespace {

/// Why an exec benchmark with if_missing = "skip" cannot run on this node: its program
/// is not there, or it needs GPUs and there are none. nullopt otherwise (a program that
/// is there but untrusted, or any other fault, stays an error).
std::optional<std::string> missing_here(const std::string& name, const Profile& profile,
                                        const Result<std::unique_ptr<bench::Benchmark>>& b) {
  auto it = profile.benches.find(name);
  if (it == profile.benches.end() || it->second.kind != BenchSpec::Kind::exec ||
      !it->second.exec.skip_if_missing)
    return std::nullopt;
  if (!b.ok())
    return b.error().is(ErrorKind::missing) ? std::optional(b.error().what) : std::nullopt;
  const std::string& program = it->second.exec.command.front();
  auto path = find_executable(program);
  if (path.ok() || !(path.error().is(ErrorKind::missing) || path.error().err == ENOENT))
    return std::nullopt;
  return path.error().what;
}

}  // namespace

Result<BenchSet> BenchSet::build(const Profile& profile, const Topology& topology,
                                 const std::vector<std::string>& groups,
                                 const std::vector<std::string>& override_names) {
  BenchSet set;
  std::map<std::string, std::vector<std::string>> skipped;  // name -> why, then its groups
  for (const std::string& group : groups) {
    std::vector<std::string> names = override_names.empty() ? bench_names_for(profile, group)
                                                            : override_names;
    for (const std::string& name : names) {
      if (skipped.contains(name)) {
        skipped[name].push_back(group);
        continue;
      }
      if (!set.by_name_.contains(name)) {
        auto b = make_benchmark(name, profile, topology);
        if (auto why = missing_here(name, profile, b)) {
          skipped[name] = {*why, group};
          continue;
        }
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
  for (const auto& [name, why_groups] : skipped) {
    std::vector<std::string> groups_of(why_groups.begin() + 1, why_groups.end());
    std::vector<std::string> fallbacks;
    for (const std::string& g : groups_of) {
      bench::Benchmark* b = set.for_group(g);
      fallbacks.push_back(g + (b ? " by " + b->name() : std::string(" not measured")));
    }
    set.skipped_.push_back(fmt::format("benchmark '{}' skipped (if_missing = \"skip\"): {}; {}",
                                       name, why_groups.front(), fmt::join(fallbacks, ", ")));
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
