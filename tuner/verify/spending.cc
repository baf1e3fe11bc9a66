#include "tuner/verify/spending.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "tuner/verify/stats.h"

namespace tuner::verify {

const char* spending_name(Spending s) {
  switch (s) {
    case Spending::obrien_fleming: return "obrien_fleming";
    case Spending::pocock: return "pocock";
    case Spending::quadratic: return "quadratic";
  }
  return "?";
}

double spent(Spending s, double total, double t) {
  if (t <= 0) return 0;
  if (t >= 1) return total;
  double value = 0;
  switch (s) {
    case Spending::obrien_fleming: {
      double z = -normal_quantile(total / 2);  // z_{1 - total/2}, accurate for small totals
      value = 2 * normal_upper(z / std::sqrt(t));
      break;
    }
    case Spending::pocock: value = total * std::log1p((std::numbers::e - 1) * t); break;
    case Spending::quadratic: value = total * t * t; break;
  }
  return std::clamp(value, 0.0, total);
}

}  // namespace tuner::verify
