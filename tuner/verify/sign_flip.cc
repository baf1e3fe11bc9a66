#include "tuner/verify/sign_flip.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace tuner::verify {

double sign_flip_upper(std::span<const double> d) {
  double largest = 0;
  for (double v : d) largest = std::max(largest, std::fabs(v));
  if (!(largest > 0)) return 1;
  // Each contrast as a whole number of grid steps, its sign kept.
  std::vector<long> steps;
  steps.reserve(d.size());
  long total = 0, observed = 0;
  for (double v : d) {
    auto k = static_cast<long>(std::lround(std::fabs(v) / largest * kSignFlipGrid));
    steps.push_back(k);
    total += k;
    observed += v < 0 ? -k : k;
  }
  // The law of the signed sum, by adding one contrast at a time: index s + total.
  std::vector<double> law(static_cast<std::size_t>(2 * total + 1), 0), next(law.size(), 0);
  law[static_cast<std::size_t>(total)] = 1;
  long reach = 0;  // the sums so far lie in [-reach, reach]
  for (long k : steps) {
    if (k == 0) continue;
    std::fill(next.begin() + (total - reach - k), next.begin() + (total + reach + k + 1), 0.0);
    for (long s = -reach; s <= reach; ++s) {
      double q = law[static_cast<std::size_t>(s + total)];
      if (q == 0) continue;
      next[static_cast<std::size_t>(s - k + total)] += q / 2;
      next[static_cast<std::size_t>(s + k + total)] += q / 2;
    }
    reach += k;
    law.swap(next);
  }
  double p = 0;
  for (long s = observed; s <= reach; ++s) p += law[static_cast<std::size_t>(s + total)];
  return std::min(1.0, p);
}

}  // namespace tuner::verify
