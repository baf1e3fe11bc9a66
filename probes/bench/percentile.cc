#include "probes/bench/percentile.h"

#include <algorithm>
#include <cmath>

namespace tuner::bench {

namespace {

// 1-based nearest rank of percentile p among n samples: ceil(p/100 * n), at least 1.
// The small epsilon keeps 99% of 100 samples at rank 99 despite 0.99 * 100 rounding up.
std::size_t nearest_rank(std::size_t n, double p) {
  double r = std::ceil(p / 100.0 * static_cast<double>(n) - 1e-9);
  if (r < 1) return 1;
  return std::min(n, static_cast<std::size_t>(r));
}

}  // namespace

int64_t percentile_sorted(const std::vector<int64_t>& sorted, double p) {
  return sorted[nearest_rank(sorted.size(), p) - 1];
}

Percentiles summarize(std::vector<int64_t> samples) {
  Percentiles out;
  if (samples.empty()) return out;
  std::sort(samples.begin(), samples.end());
  out.count = samples.size();
  out.min = samples.front();
  out.p50 = percentile_sorted(samples, 50);
  out.p99 = percentile_sorted(samples, 99);
  out.max = samples.back();
  return out;
}

}  // namespace tuner::bench
