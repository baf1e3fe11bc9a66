// Percentiles of benchmark samples (latencies, per-repetition times). One definition
// for every benchmark, so a p99 means the same thing in each report.
#pragma once

#include <cstdint>
#include <vector>

namespace tuner::bench {

/// Nearest-rank percentile: the smallest sample such that at least p% of the samples are
/// at or below it (p in (0, 100]; p = 100 is the maximum). It is always one of the
/// samples, never an interpolation; tests/bench/anchors.sh reads cyclictest's
/// histogram with the same rule.
/// `sorted` must be sorted ascending and non-empty.
int64_t percentile_sorted(const std::vector<int64_t>& sorted, double p);

/// The summary a latency report needs. Empty input gives count 0 and zeros.
struct Percentiles {
  std::size_t count = 0;
  int64_t min = 0, p50 = 0, p99 = 0, p9999 = 0, max = 0;
};

/// Sorts `samples` (taken by value) and summarises them.
Percentiles summarize(std::vector<int64_t> samples);

}  // namespace tuner::bench
