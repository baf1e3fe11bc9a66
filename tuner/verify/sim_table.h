// The simulators' tables (tuner_decision_sim, README.md): percent cells, rows as text
// or Markdown, and the value-search and fleet modes' tables with their targets.
#pragma once

#include <string>
#include <vector>

#include "tuner/verify/sim_fleet.h"
#include "tuner/verify/sim_search.h"

namespace tuner::verify {

/// "12.3": a rate in percent, one decimal.
std::string pct(double rate);
/// "1.23% (+-0.05)": a rate in percent with its binomial standard error over reps.
std::string pct_se(double rate, unsigned reps);
/// "+5%" or "+1.5%".
std::string signed_pct(double rate);
/// One table row: Markdown, or text with the first `left` cells left-aligned in `lw`
/// columns and the rest right-aligned in `rw`.
void row(bool md, const std::vector<std::string>& cells, std::size_t left = 5, int lw = 12,
         int rw = 9);

/// --search K: the value search's table and its targets; 1 when a target is missed.
int print_search(const SearchSimOptions& o, unsigned k, bool md);
/// --fleet: the fleet decisions' table and its targets; 1 when a target is missed.
int print_fleet(const FleetOptions& o, bool md);

}  // namespace tuner::verify
