#include "tuner/verify/count_tests.h"

#include <algorithm>
#include <cmath>

namespace tuner::verify {

namespace {

constexpr int kMaxIter = 1'000'000;
constexpr double kEps = 1e-15;
constexpr double kTiny = 1e-300;
/// rank_upper_p's exact law up to this many pairs (60 trials per arm): past it, the
/// normal approximation.
constexpr std::size_t kExactRankPairs = 3600;

/// Regularized lower incomplete gamma P(a, x), a > 0 (series below a + 1, else the
/// continued fraction of Q).
double gamma_p(double a, double x) {
  if (x <= 0) return 0.0;
  double log_front = a * std::log(x) - x - std::lgamma(a);
  if (x < a + 1) {
    double term = 1.0 / a, sum = term;
    for (int n = 1; n < kMaxIter; ++n) {
      term *= x / (a + n);
      sum += term;
      if (std::fabs(term) < std::fabs(sum) * kEps) break;
    }
    return std::min(1.0, sum * std::exp(log_front));
  }
  double b = x + 1 - a, c = 1 / kTiny, d = 1 / b, h = d;
  for (int i = 1; i < kMaxIter; ++i) {
    double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < kEps) break;
  }
  return std::max(0.0, 1.0 - std::exp(log_front) * h);
}

/// The continued fraction of the incomplete beta function (modified Lentz).
double beta_cf(double a, double b, double x) {
  double qab = a + b, qap = a + 1, qam = a - 1, c = 1, d = 1 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m < kMaxIter; ++m) {
    int m2 = 2 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < kEps) break;
  }
  return h;
}

/// Regularized incomplete beta I_x(a, b).
double beta_i(double a, double b, double x) {
  if (x <= 0) return 0.0;
  if (x >= 1) return 1.0;
  double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) +
                     b * std::log1p(-x);
  if (x < (a + 1) / (a + b + 2)) return std::exp(log_front) * beta_cf(a, b, x) / a;
  return 1.0 - std::exp(log_front) * beta_cf(b, a, 1 - x) / b;
}

}  // namespace

double poisson_upper_tail(double k, double mu) {
  if (!(k > 0)) return 1.0;
  if (!(mu > 0)) return 0.0;
  if (std::isinf(mu)) return 1.0;
  return std::clamp(gamma_p(k, mu), 0.0, 1.0);
}

double binomial_upper_tail(double k, double n, double p) {
  if (!(k > 0)) return 1.0;
  if (k > n || !(p > 0)) return 0.0;
  if (p >= 1) return 1.0;
  return std::clamp(beta_i(k, n - k + 1, p), 0.0, 1.0);
}

double poisson_upper_bound(double x, double gamma) {
  // P(X <= x | mu) = 1 - P(X >= x + 1 | mu) falls from 1 to 0 as mu grows: bisect.
  auto cdf = [&](double mu) { return 1.0 - poisson_upper_tail(x + 1, mu); };
  double lo = x, hi = 2.0 * x + 50.0;
  while (cdf(hi) > gamma) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    double mid = 0.5 * (lo + hi);
    (cdf(mid) > gamma ? lo : hi) = mid;
  }
  return hi;
}

double dispersion(const std::vector<TrialCount>& baseline,
                  const std::vector<TrialCount>& candidate) {
  double x2 = 0;
  int df = 0;
  for (const std::vector<TrialCount>* arm : {&baseline, &candidate}) {
    double x = 0, t = 0;
    int k = 0;
    for (const TrialCount& c : *arm)
      if (c.t > 0) {
        x += static_cast<double>(c.x);
        t += c.t;
        ++k;
      }
    if (k < 2) continue;
    df += k - 1;
    if (!(x > 0)) continue;  // no events: no spread, each trial at its mean of 0
    double r = x / t;
    for (const TrialCount& c : *arm)
      if (c.t > 0) {
        double e = r * c.t, d = static_cast<double>(c.x) - e;
        x2 += d * d / e;
      }
  }
  return df > 0 ? std::max(1.0, x2 / df) : 1.0;
}

double rate_ratio_p(const Counts& c, double ratio, double phi) {
  uint64_t n = c.x_b + c.x_c;
  if (n == 0 || c.x_c == 0) return 1.0;
  if (!(c.t_b > 0)) return 1.0;  // nothing to compare against
  double pi = ratio * c.t_c / (ratio * c.t_c + c.t_b);
  phi = std::max(1.0, phi);
  return binomial_upper_tail(static_cast<double>(c.x_c) / phi, static_cast<double>(n) / phi, pi);
}

double Margin::bound(double rate_b) const {
  double b = rate_b + add;
  if (std::isfinite(ratio)) b = std::min(b, ratio * rate_b + floor);
  return b;
}

double rate_margin_p(const Counts& c, const Margin& m, double gamma, double phi) {
  if (c.x_c == 0 || !(c.t_b > 0) || !(c.t_c > 0)) return 1.0;
  phi = std::max(1.0, phi);
  // Scaled: x / phi events over t / phi, the rates unchanged.
  double xb = static_cast<double>(c.x_b) / phi, tb = c.t_b / phi;
  double xc = static_cast<double>(c.x_c) / phi, tc = c.t_c / phi;
  double upper = poisson_upper_bound(xb, gamma) / tb;
  return std::min(1.0, gamma + poisson_upper_tail(xc, tc * m.bound(upper)));
}

double rate_rank_p(const std::vector<TrialCount>& baseline,
                   const std::vector<TrialCount>& candidate, double add) {
  std::vector<double> b, c;
  for (const TrialCount& t : baseline)
    if (t.t > 0) b.push_back(static_cast<double>(t.x) / t.t);
  for (const TrialCount& t : candidate)
    if (t.t > 0) c.push_back(static_cast<double>(t.x) / t.t - add);
  return rank_upper_p(b, c);
}

double rank_two_sided_p(const std::vector<double>& a, const std::vector<double>& b) {
  return std::min(1.0, 2 * std::min(rank_upper_p(a, b), rank_upper_p(b, a)));
}

double rank_upper_p(const std::vector<double>& b, const std::vector<double>& c) {
  const std::size_t m = c.size(), n = b.size();
  if (m < 2 || n < 2) return 1.0;
  std::size_t u = 0;
  for (double ci : c)
    for (double bj : b) u += ci > bj ? 1 : 0;
  if (m * n > kExactRankPairs) {
    // Past the exact law's reach (its memory grows as m n^2, its counts past a double):
    // the normal approximation with a continuity correction, ties still against the
    // candidate (conservative).
    double mean = 0.5 * static_cast<double>(m * n);
    double sd = std::sqrt(static_cast<double>(m * n) * static_cast<double>(m + n + 1) / 12.0);
    return std::min(1.0,
                    0.5 * std::erfc((static_cast<double>(u) - 0.5 - mean) / (sd * std::sqrt(2.0))));
  }
  // The null law of U: arrangements of m c's and n b's by the pairs (c before b in the
  // order of values) they make, f(a, k, v) = f(a - 1, k, v - k) + f(a, k - 1, v), over
  // all C(m + n, m) equally likely arrangements; two rows of a at a time.
  std::vector<std::vector<double>> prev(n + 1), cur(n + 1);
  for (std::size_t a = 0; a <= m; ++a) {
    for (std::size_t k = 0; k <= n; ++k) {
      std::vector<double>& f = cur[k];
      f.assign(a * k + 1, 0.0);
      if (a == 0 || k == 0) {
        f[0] = 1;
        continue;
      }
      const std::vector<double>& up = prev[k];  // the largest value is a c: k pairs
      for (std::size_t v = 0; v < up.size(); ++v) f[v + k] += up[v];
      const std::vector<double>& left = cur[k - 1];  // the largest value is a b: none
      for (std::size_t v = 0; v < left.size(); ++v) f[v] += left[v];
    }
    std::swap(prev, cur);
  }
  const std::vector<double>& law = prev[n];
  double total = 0, tail = 0;
  for (std::size_t v = 0; v < law.size(); ++v) {
    total += law[v];
    if (v >= u) tail += law[v];
  }
  return std::min(1.0, tail / total);
}

}  // namespace tuner::verify
