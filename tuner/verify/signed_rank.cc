#include "tuner/verify/signed_rank.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <mutex>

#include "tuner/verify/stats.h"

namespace tuner::verify {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// P(W+ >= w) for w = 0 .. n (n + 1) / 2: the law of a sum of independent terms that are
// k or 0 with probability 1/2 each, k = 1 .. n, built one term at a time.
std::vector<double> exact_upper_tail(unsigned n) {
  std::size_t top = static_cast<std::size_t>(n) * (n + 1) / 2;
  std::vector<double> p(top + 1, 0.0);
  p[0] = 1;
  std::size_t reach = 0;
  for (unsigned k = 1; k <= n; ++k) {
    reach += k;
    for (std::size_t s = reach; s >= k; --s) p[s] = 0.5 * (p[s] + p[s - k]);
    for (std::size_t s = std::min<std::size_t>(k, reach + 1); s-- > 0;) p[s] *= 0.5;
  }
  for (std::size_t s = top; s-- > 0;) p[s] += p[s + 1];
  return p;
}

const std::vector<double>& cached_tail(unsigned n) {
  static std::mutex mu;
  static std::map<unsigned, std::unique_ptr<const std::vector<double>>> cache;
  std::lock_guard lock(mu);
  auto& slot = cache[n];
  if (!slot) slot = std::make_unique<const std::vector<double>>(exact_upper_tail(n));
  return *slot;
}

}  // namespace

double signed_rank_upper(unsigned n, double w) {
  double top = n * (n + 1.0) / 2;
  if (w <= 0) return 1;
  if (w > top) return 0;
  if (n <= kSignedRankExactMax) return cached_tail(n)[static_cast<std::size_t>(std::ceil(w))];
  double mean = top / 2, sd = std::sqrt(n * (n + 1.0) * (2 * n + 1.0) / 24);
  return normal_upper((std::ceil(w) - 0.5 - mean) / sd);
}

SignedRankShift::SignedRankShift(std::span<const double> d) : n_(static_cast<unsigned>(d.size())) {
  walsh_.reserve(d.size() * (d.size() + 1) / 2);
  for (std::size_t i = 0; i < d.size(); ++i)
    for (std::size_t j = i; j < d.size(); ++j) walsh_.push_back((d[i] + d[j]) / 2);
  std::sort(walsh_.begin(), walsh_.end());
  std::vector<double> mag;
  for (double v : d) {
    ties_ = ties_ || v == 0;
    mag.push_back(std::fabs(v));
  }
  std::sort(mag.begin(), mag.end());
  ties_ = ties_ || std::adjacent_find(mag.begin(), mag.end()) != mag.end();
}

double SignedRankShift::estimate() const {
  if (walsh_.empty()) return std::numeric_limits<double>::quiet_NaN();
  return median(walsh_);
}

double SignedRankShift::p_above(double delta) const {
  auto above = walsh_.end() - std::upper_bound(walsh_.begin(), walsh_.end(), delta);
  return signed_rank_upper(n_, static_cast<double>(above));
}

double SignedRankShift::p_below(double delta) const {
  auto below = std::lower_bound(walsh_.begin(), walsh_.end(), delta) - walsh_.begin();
  return signed_rank_upper(n_, static_cast<double>(below));
}

std::size_t SignedRankShift::critical_count(double alpha) const {
  std::size_t lo = 1, hi = walsh_.size() + 1;  // p(hi) counts as <= alpha
  while (lo < hi) {
    std::size_t mid = lo + (hi - lo) / 2;
    if (signed_rank_upper(n_, static_cast<double>(mid)) <= alpha) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

double SignedRankShift::lower_bound(double alpha) const {
  // p_above(delta) <= alpha needs at least c Walsh averages strictly above delta: true
  // for every delta below the c-th largest, for none at or above it.
  std::size_t c = critical_count(alpha);
  if (c > walsh_.size()) return -kInf;
  return walsh_[walsh_.size() - c];
}

double SignedRankShift::upper_bound(double alpha) const {
  std::size_t c = critical_count(alpha);
  if (c > walsh_.size()) return kInf;
  return walsh_[c - 1];
}

}  // namespace tuner::verify
