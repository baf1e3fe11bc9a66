#include "tuner/verify/rank_sum.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "tuner/verify/stats.h"

namespace tuner::verify {
namespace {

using Cdf = std::vector<double>;

// The null distribution of U for samples of m and n values is the coefficient list of
// the Gaussian binomial [m+n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i):
// coefficient u counts the rank arrangements with U = u. Each factor is applied as a
// multiplication then an exact division, so after every step the polynomial is again a
// Gaussian binomial with non-negative integer coefficients; the small ones (the tails
// that p-values are made of) are computed exactly in doubles while below 2^53.
// Returns P(U <= u) for u = 0..m n.
Cdf exact_lower_cdf(unsigned m, unsigned n) {
  unsigned small = std::min(m, n), large = std::max(m, n);
  std::size_t top = static_cast<std::size_t>(m) * n;
  // Room for the product's degree before each division: (i-1) large + large + i.
  std::vector<double> c(top + small + 1, 0.0);
  c[0] = 1;
  for (unsigned i = 1; i <= small; ++i) {
    std::size_t step = large + i;
    std::size_t grown = static_cast<std::size_t>(i - 1) * large + step;  // degree after *
    for (std::size_t u = grown; u >= step; --u) c[u] -= c[u - step];
    std::size_t degree = static_cast<std::size_t>(i) * large;
    for (std::size_t u = i; u <= degree; ++u) c[u] += c[u - i];
    for (std::size_t u = degree + 1; u <= grown; ++u) c[u] = 0;
  }
  double total = 0;
  for (std::size_t u = 0; u <= top; ++u) total += c[u];
  Cdf cdf(top + 1);
  double run = 0;
  for (std::size_t u = 0; u <= top; ++u) {
    run += c[u];
    cdf[u] = std::min(1.0, run / total);
  }
  return cdf;
}

// The distribution depends only on {m, n}; the verify loop asks for a handful of sizes
// (its look points), each costing O(m * m n) once.
const Cdf& cached_cdf(unsigned m, unsigned n) {
  static std::mutex mu;
  static std::map<std::pair<unsigned, unsigned>, std::unique_ptr<const Cdf>> cache;
  auto key = std::minmax(m, n);
  std::lock_guard lock(mu);
  auto& slot = cache[{key.first, key.second}];
  if (!slot) slot = std::make_unique<const Cdf>(exact_lower_cdf(m, n));
  return *slot;
}

}  // namespace

double rank_sum_variance(unsigned m, unsigned n, double tie_term) {
  double mm = m, nn = n, total = mm + nn;
  if (total < 2) return 0;
  return mm * nn / 12.0 * ((total + 1) - tie_term / (total * (total - 1)));
}

double rank_sum_exact_upper(unsigned m, unsigned n, double u) {
  double top = static_cast<double>(m) * n;
  double k = std::ceil(u);
  if (k <= 0) return 1;
  if (k > top) return 0;
  // By symmetry P(U >= k) = P(U <= mn - k): read from the lower tail, where the small
  // probabilities are accurate.
  return cached_cdf(m, n)[static_cast<std::size_t>(top - k)];
}

double rank_sum_normal_upper(unsigned m, unsigned n, double u, double tie_term) {
  double var = rank_sum_variance(m, n, tie_term);
  if (!(var > 0)) return 1;
  double mean = static_cast<double>(m) * n / 2;
  return normal_upper((u - mean - 0.5) / std::sqrt(var));
}

RankSum mann_whitney(std::span<const double> x, std::span<const double> y) {
  RankSum r;
  auto m = static_cast<unsigned>(x.size()), n = static_cast<unsigned>(y.size());
  if (m == 0 || n == 0) return r;
  std::vector<std::pair<double, bool>> all;  // value, from y
  all.reserve(m + n);
  for (double v : x) all.emplace_back(v, false);
  for (double v : y) all.emplace_back(v, true);
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  double rank_sum_y = 0, tie_term = 0;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    auto t = static_cast<double>(j - i);
    double mid_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (std::size_t k = i; k < j; ++k)
      if (all[k].second) rank_sum_y += mid_rank;
    tie_term += t * t * t - t;
    i = j;
  }
  double nn = n;
  r.u = rank_sum_y - nn * (nn + 1) / 2;
  r.mean = static_cast<double>(m) * nn / 2;
  r.variance = rank_sum_variance(m, n, tie_term);
  if (!(r.variance > 0)) return r;  // every value equal: no evidence either way
  r.exact = tie_term == 0 && m <= kExactMaxPerSample && n <= kExactMaxPerSample;
  double top = static_cast<double>(m) * nn;
  if (r.exact) {
    r.p_greater = rank_sum_exact_upper(m, n, r.u);
    r.p_less = rank_sum_exact_upper(m, n, top - r.u);
  } else {
    r.p_greater = rank_sum_normal_upper(m, n, r.u, tie_term);
    r.p_less = rank_sum_normal_upper(m, n, top - r.u, tie_term);
  }
  return r;
}

}  // namespace tuner::verify
