#include "tuner/verify/spending.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

#include "base/enum_names.h"
#include "tuner/verify/stats.h"

namespace tuner::verify {

namespace {

constexpr std::array<EnumName<Spending>, 3> kSpendings = {{
    {Spending::obrien_fleming, "obrien_fleming"},
    {Spending::pocock, "pocock"},
    {Spending::quadratic, "quadratic"},
}};
static_assert(in_enum_order(kSpendings));

}  // namespace

const char* spending_name(Spending s) { return enum_name(kSpendings, s); }

std::optional<Spending> parse_spending(std::string_view name) {
  return enum_from_name(kSpendings, name);
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
