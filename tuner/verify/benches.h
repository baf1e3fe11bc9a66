// Which benchmark measures which group, built as the profile configures it.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "probes/bench/bench.h"
#include "probes/inventory.h"
#include "tuner/profile/profile.h"

namespace tuner::verify {

/// Builds benchmark `name` from the profile's [bench.NAME] table, or as built in (tcp,
/// membw, latency with their defaults) for this machine's topology. An exec command's
/// "{gpus}" arguments become the number of GPUs (nccl-tests' -g); with none, the
/// benchmark is Error::missing.
Result<std::unique_ptr<bench::Benchmark>> make_benchmark(const std::string& name,
                                                         const Profile& profile,
                                                         const Topology& topology);

/// The benchmarks of a run, one instance per name, each checked (check()) when built,
/// before anything is changed: a benchmark that cannot run here is an error up front.
class BenchSet {
 public:
  /// `override_names` (apply --bench) replace every group's own choice when not empty.
  static Result<BenchSet> build(const Profile& profile, const Topology& topology,
                                const std::vector<std::string>& groups,
                                const std::vector<std::string>& override_names);
  /// The benchmark that decides `group`; nullptr when none is configured for it.
  bench::Benchmark* for_group(const std::string& group) const;
  /// The group's other benchmarks, run beside it in every trial as watches: proven
  /// harm on any of them rolls the group back.
  std::vector<bench::Benchmark*> watches_for(const std::string& group) const;
  /// True when no group has a benchmark.
  bool empty() const { return by_group_.empty(); }
  /// Benchmarks left out because this node lacks what they run (if_missing = "skip"),
  /// each with why and which groups they would have measured.
  const std::vector<std::string>& skipped() const { return skipped_; }

 private:
  std::vector<std::string> skipped_;
  std::map<std::string, std::unique_ptr<bench::Benchmark>> by_name_;
  std::map<std::string, std::vector<bench::Benchmark*>> by_group_;  // first decides
};

/// The names of the benchmarks that measure `group`: the group's own `bench`, else the
/// profile's [verify] bench. The first decides; the others watch for harm.
std::vector<std::string> bench_names_for(const Profile& profile, const std::string& group);

}  // namespace tuner::verify
