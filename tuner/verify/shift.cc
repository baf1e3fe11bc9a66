#include "tuner/verify/shift.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tuner/verify/rank_sum.h"
#include "tuner/verify/stats.h"

namespace tuner::verify {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Sum of t^3 - t over groups of equal values inside one sample.
double tie_term_within(std::span<const double> v) {
  std::vector<double> s(v.begin(), v.end());
  std::sort(s.begin(), s.end());
  double term = 0;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t j = i;
    while (j < s.size() && s[j] == s[i]) ++j;
    auto t = static_cast<double>(j - i);
    term += t * t * t - t;
    i = j;
  }
  return term;
}

std::vector<double> sorted_differences(std::span<const double> x, std::span<const double> y) {
  std::vector<double> d;
  d.reserve(x.size() * y.size());
  for (double b : y)
    for (double a : x) d.push_back(b - a);
  std::sort(d.begin(), d.end());
  return d;
}

double median_of_sorted(const std::vector<double>& s) {
  if (s.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::size_t h = s.size() / 2;
  return s.size() % 2 ? s[h] : s[h - 1] + (s[h] - s[h - 1]) / 2;
}

}  // namespace

double hodges_lehmann(std::span<const double> x, std::span<const double> y) {
  return median_of_sorted(sorted_differences(x, y));
}

ShiftAnalysis::ShiftAnalysis(std::span<const double> x, std::span<const double> y)
    : m_(static_cast<unsigned>(x.size())),
      n_(static_cast<unsigned>(y.size())),
      diffs_(sorted_differences(x, y)),
      // Between two consecutive differences no value of y - delta equals a value of x,
      // so only ties inside a sample remain; they are the same for every delta.
      tie_term_(tie_term_within(x) + tie_term_within(y)),
      exact_(tie_term_ == 0 && m_ <= kExactMaxPerSample && n_ <= kExactMaxPerSample) {}

double ShiftAnalysis::estimate() const { return median_of_sorted(diffs_); }

double ShiftAnalysis::p_count(std::size_t count) const {
  auto u = static_cast<double>(count);
  return exact_ ? rank_sum_exact_upper(m_, n_, u) : rank_sum_normal_upper(m_, n_, u, tie_term_);
}

double ShiftAnalysis::p_above(double delta) const {
  // U of y - delta over x with ties counted as "not above": #(d > delta).
  auto above = static_cast<std::size_t>(diffs_.end() -
                                        std::upper_bound(diffs_.begin(), diffs_.end(), delta));
  return p_count(above);
}

double ShiftAnalysis::p_below(double delta) const {
  // By symmetry of the null distribution, #(d < delta) has the law of U.
  auto below = static_cast<std::size_t>(std::lower_bound(diffs_.begin(), diffs_.end(), delta) -
                                        diffs_.begin());
  return p_count(below);
}

std::size_t ShiftAnalysis::critical_count(double alpha) const {
  // p_count falls as the count grows: binary search for the first count <= alpha.
  std::size_t lo = 0, hi = pairs() + 1;
  while (lo < hi) {
    std::size_t mid = lo + (hi - lo) / 2;
    if (p_count(mid) <= alpha) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

double ShiftAnalysis::lower_bound(double alpha) const {
  // p_above(delta) <= alpha  <=>  #(d > delta) >= c  <=>  delta < d[pairs - c].
  std::size_t c = critical_count(alpha);
  if (c > pairs()) return -kInf;
  if (c == 0) return kInf;
  return diffs_[pairs() - c];
}

double ShiftAnalysis::upper_bound(double alpha) const {
  // p_below(delta) <= alpha  <=>  #(d < delta) >= c  <=>  delta > d[c - 1].
  std::size_t c = critical_count(alpha);
  if (c > pairs()) return kInf;
  if (c == 0) return -kInf;
  return diffs_[c - 1];
}

}  // namespace tuner::verify
