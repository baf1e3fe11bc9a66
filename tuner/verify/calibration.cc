#include "tuner/verify/calibration.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <tuple>

#include "tuner/verify/signed_rank.h"

namespace tuner::verify {
namespace {

// Standard errors of Monte Carlo margin on every cumulative rate.
constexpr double kMarginSe = 3.0;
constexpr std::uint64_t kSeed = 0x7475'6e65'7276'6572ULL;  // "tunerver"

double fraction(const std::vector<unsigned>& points, std::size_t k) {
  return static_cast<double>(points[k]) / points.back();
}

// Signed-rank statistics W+_k (Walsh averages above 0 among the first points[k]
// contrasts) of every simulated run, run-major. Under H0 a contrast's sign is a fair coin
// independent of its magnitude, and only the order of the magnitudes matters, so a
// random sign on a uniform 53-bit magnitude serves (a tie has chance 2^-53).
std::vector<std::uint16_t> simulate_counts(const std::vector<unsigned>& points) {
  std::size_t looks = points.size();
  unsigned n_max = points.back();
  std::vector<std::uint16_t> counts(static_cast<std::size_t>(kCalibrationRuns) * looks);
  std::vector<double> d(n_max);
  std::mt19937_64 gen(kSeed);  // NOLINT(cert-msc32-c,cert-msc51-cpp): the same table every run
  for (std::size_t r = 0; r < kCalibrationRuns; ++r) {
    for (unsigned i = 0; i < n_max; ++i) {
      std::uint64_t bits = gen();
      double magnitude = static_cast<double>(bits >> 11) + 1;
      d[i] = (bits & 1) ? magnitude : -magnitude;
    }
    unsigned w = 0, prev = 0;
    for (std::size_t k = 0; k < looks; ++k) {
      unsigned n = points[k];
      for (unsigned j = prev; j < n; ++j)  // the new contrast with itself and every older one
        for (unsigned i = 0; i <= j; ++i) w += d[i] + d[j] > 0;
      counts[r * looks + k] = static_cast<std::uint16_t>(w);
      prev = n;
    }
  }
  return counts;
}

// The p-value SignedRankShift gives tie-free contrasts with this count.
double tie_free_p(unsigned n, unsigned count) { return signed_rank_upper(n, count); }

LookThresholds calibrate(const std::vector<unsigned>& points,
                         const std::vector<std::uint16_t>& counts, Spending spending,
                         double total) {
  std::size_t looks = points.size();
  LookThresholds out;
  std::vector<char> crossed(kCalibrationRuns, 0);
  double runs = kCalibrationRuns;
  std::size_t crossed_so_far = 0;  // simulated runs that crossed at an earlier look
  double union_so_far = 0;         // sum of the earlier looks' exact crossing chances
  for (std::size_t k = 0; k < looks; ++k) {
    unsigned n = points[k], pairs = n * (n + 1) / 2;
    std::vector<std::size_t> hist(pairs + 1, 0);
    for (std::size_t r = 0; r < kCalibrationRuns; ++r)
      if (!crossed[r]) ++hist[counts[r * looks + k]];
    // A threshold is acceptable when either bound on the cumulative crossing chance
    // stays within the spending function:
    //  - the union bound: earlier looks' chances plus this look's exact tail;
    //  - the simulation, less a margin of kMarginSe standard errors. The crossing set of
    //    the chosen threshold is the most liberal that fits, so its true rate exceeds
    //    the spending only if the simulation fell kMarginSe errors short.
    // The union bound decides early looks, where little is spent and the simulation
    // sees too few crossings; the simulation decides later ones, where successive looks
    // overlap and the union bound would count the same runs several times.
    double target = spent(spending, total, fraction(points, k));
    double allowed = target * runs - kMarginSe * std::sqrt(target * (1 - target) * runs);
    unsigned c = pairs + 1;
    std::size_t running = crossed_so_far;
    bool simulated = false;  // the simulation admitted the last step down
    while (c > 0) {
      std::size_t next = running + hist[c - 1];
      bool by_union = union_so_far + tie_free_p(n, c - 1) <= target;
      bool by_simulation = static_cast<double>(next) <= allowed;
      if (!by_union && !by_simulation) break;
      simulated = !by_union;
      running = next;
      --c;
    }
    // c > pairs: nothing may cross here (p-values are > 0, so threshold 0 never fires).
    double threshold = c > pairs ? 0.0 : tie_free_p(n, c);
    out.p.push_back(threshold);
    union_so_far += threshold;
    out.bound.push_back(simulated ? target : union_so_far);
    for (std::size_t r = 0; r < kCalibrationRuns; ++r)
      if (!crossed[r] && counts[r * looks + k] >= c) crossed[r] = 1;
    crossed_so_far = running;
    out.crossed.push_back(static_cast<double>(crossed_so_far) / runs);
  }
  return out;
}

}  // namespace

LookThresholds union_thresholds(const std::vector<unsigned>& points, Spending spending,
                                double total) {
  LookThresholds out;
  double before = 0;
  for (std::size_t k = 0; k < points.size(); ++k) {
    double now = spent(spending, total, fraction(points, k));
    out.p.push_back(now - before);
    out.crossed.push_back(now);
    out.bound.push_back(now);
    before = now;
  }
  return out;
}

const LookThresholds& calibrated_thresholds(const std::vector<unsigned>& points, Spending spending,
                                            double total) {
  using Key = std::tuple<std::vector<unsigned>, Spending, double>;
  static std::mutex mu;
  static std::map<Key, std::unique_ptr<const LookThresholds>> cache;
  // The simulated counts serve every spending and total of a design: keep the last.
  static std::vector<unsigned> counts_for;
  static std::vector<std::uint16_t> counts;
  std::lock_guard lock(mu);
  auto& slot = cache[Key{points, spending, total}];
  if (!slot) {
    if (points.size() == 1) {
      // One look: the exact p-value of a single test is already valid at `total`.
      slot = std::make_unique<const LookThresholds>(LookThresholds{{total}, {total}, {total}});
    } else {
      if (counts_for != points) {
        counts = simulate_counts(points);
        counts_for = points;
      }
      slot = std::make_unique<const LookThresholds>(calibrate(points, counts, spending, total));
    }
  }
  return *slot;
}

}  // namespace tuner::verify
