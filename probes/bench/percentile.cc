#include "probes/bench/percentile.h"

#include <algorithm>
#include <cmath>

namespace tuner::bench {

namespace {

// 1-based nearest rank of percentile p among n samples: ceil(p/100 * n), at least 1.
// The relative epsilon keeps rounding from pushing an exact rank one up: 7 / 100.0 * 100
// is 7.000000000000001 in binary floating point, and p99.9 of 1000 samples 999.0000000000001.
std::size_t nearest_rank(std::size_t n, double p) {
  const double x = p / 100.0 * static_cast<double>(n);
  double r = std::ceil(x - 1e-12 * std::max(1.0, x));
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
  out.p9999 = percentile_sorted(samples, 99.99);
  out.max = samples.back();
  return out;
}

}  // namespace tuner::bench
