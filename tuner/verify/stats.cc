#include "tuner/verify/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

namespace tuner::verify {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<double> sorted(std::span<const double> v) {
  std::vector<double> s(v.begin(), v.end());
  std::sort(s.begin(), s.end());
  return s;
}

// Acklam's rational approximation of the normal quantile (relative error < 1.2e-9),
// the starting point that normal_quantile refines.
double acklam(double p) {
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00};
  constexpr double low = 0.02425;
  if (p < low) {
    double q = std::sqrt(-2 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p <= 1 - low) {
    double q = p - 0.5;
    double r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  double q = std::sqrt(-2 * std::log1p(-p));
  return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
         ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
}

}  // namespace

double median(std::span<const double> v) { return quantile(v, 0.5); }

double quantile(std::span<const double> v, double q) {
  if (v.empty() || !(q >= 0 && q <= 1)) return kNaN;
  std::vector<double> s = sorted(v);
  double h = q * static_cast<double>(s.size() - 1);
  auto lo = static_cast<std::size_t>(std::floor(h));
  if (lo + 1 >= s.size()) return s.back();
  double frac = h - static_cast<double>(lo);
  // Written as a + f * (b - a) so that equal neighbours give exactly that value.
  return s[lo] + frac * (s[lo + 1] - s[lo]);
}

double trimmed_mean(std::span<const double> v, double fraction) {
  if (v.empty() || !(fraction >= 0 && fraction < 0.5)) return kNaN;
  std::vector<double> s = sorted(v);
  auto cut = static_cast<std::size_t>(std::floor(fraction * static_cast<double>(s.size())));
  return mean(std::span<const double>(s).subspan(cut, s.size() - 2 * cut));
}

double mean(std::span<const double> v) {
  if (v.empty()) return kNaN;
  // Compensated (Kahan) summation: benchmark values share a large common magnitude,
  // where naive summation loses the digits that differ.
  double sum = 0, carry = 0;
  for (double x : v) {
    double y = x - carry;
    double t = sum + y;
    carry = (t - sum) - y;
    sum = t;
  }
  return sum / static_cast<double>(v.size());
}

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); }

double normal_upper(double z) { return 0.5 * std::erfc(z / std::numbers::sqrt2); }

namespace {

/// The quantile for 0 < p <= 0.5.
double lower_quantile(double p) {
  double x = acklam(p);
  // One Halley step on f(x) = Phi(x) - p with Phi from erfc (Acklam's refinement).
  double e = normal_cdf(x) - p;
  double u = e * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
  if (!std::isfinite(u)) return x;  // p in the subnormal range: exp overflows
  return x - u / (1 + x * u / 2);
}

}  // namespace

double normal_quantile(double p) {
  if (std::isnan(p) || p < 0 || p > 1) return kNaN;
  if (p == 0) return -std::numeric_limits<double>::infinity();
  if (p == 1) return std::numeric_limits<double>::infinity();
  // Work in the lower half, where p itself carries full precision; the upper half
  // follows by symmetry (1 - p is exact for p > 0.5).
  return p > 0.5 ? -lower_quantile(1 - p) : lower_quantile(p);
}

}  // namespace tuner::verify
