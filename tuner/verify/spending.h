// Error spending for a test looked at several times (Lan and DeMets 1983): a function
// that says how much of the total error rate may have been used by the time a fraction
// t of the planned trials is in. Each look may use only the increment since the last
// one, so the increments add up to the total however many looks are taken and
// wherever they fall.
#pragma once

#include <optional>
#include <string_view>

namespace tuner::verify {

enum class Spending {
  /// O'Brien–Fleming type, 2 - 2 Phi(z_{1-total/2} / sqrt(t)): almost nothing early,
  /// nearly all of it at the end. Early stops need overwhelming evidence.
  obrien_fleming,
  /// Pocock type, total * ln(1 + (e - 1) t): about the same at every look. Stops early
  /// on clear evidence, at the price of a stricter last look.
  pocock,
  /// Kim and DeMets' power family with exponent 2, total * t^2: a quarter spent by half
  /// the trials. Between the two; the keep default (README.md says why).
  quadratic,
};

/// "obrien_fleming" / "pocock" / "quadratic".
const char* spending_name(Spending s);
std::optional<Spending> parse_spending(std::string_view name);

/// Cumulative error spent at information fraction t: 0 at t <= 0, exactly `total` at
/// t >= 1, non-decreasing between.
double spent(Spending s, double total, double t);

}  // namespace tuner::verify
