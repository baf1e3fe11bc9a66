// A simulated value search (search.h) against benchmarks with known effects: how often
// it keeps something when no candidate helps, how often it finds and keeps the one that
// does, and how many benchmark runs it takes. decision_sim.cc prints the table
// (--search K); sim_search_test.cc asserts the targets.
#pragma once

#include <cstdint>
#include <vector>

#include "tuner/verify/search.h"
#include "tuner/verify/sim.h"

namespace tuner::verify {

struct SearchScenario {
  Scenario base;            ///< noise, cv, direction, design (its effect is unused)
  unsigned candidates = 4;  ///< values searched
  double best_effect = 0;   ///< true gain of one candidate, at a random position
  double other_effect = 0;  ///< true gain of every other candidate
};

struct SearchOutcome {
  unsigned reps = 0;
  unsigned keeps = 0;         ///< something kept
  unsigned found = 0;         ///< the best_effect candidate kept (when it is unique)
  unsigned screened_out = 0;  ///< every candidate dropped in screening (no_gain)
  unsigned chosen_right = 0;  ///< the best_effect candidate went to confirmation
  double runs = 0;            ///< benchmark runs of all arms, summed
  double screen_runs = 0;     ///< of them in screening, summed
  double keep_rate() const { return reps ? static_cast<double>(keeps) / reps : 0; }
  double found_rate() const { return reps ? static_cast<double>(found) / reps : 0; }
  double mean_runs() const { return reps ? runs / reps : 0; }
  double mean_screen_runs() const { return reps ? screen_runs / reps : 0; }
};

struct SearchSimOptions {
  unsigned reps = 2000;
  std::uint64_t seed = 1;
  Config config;        ///< the confirmation (unit and looks set per design)
  ScreenConfig screen;  ///< direction and min_effect taken from config
};

/// For `candidates` values: every noise of standard_scenarios() at 3% (2% for the
/// blocked design's block offsets), each with no candidate helping (all +0%), all at
/// exactly min_effect (+1%), and one +5% among +0%.
std::vector<SearchScenario> search_scenarios(unsigned candidates);

/// Runs `options.reps` searches. Deterministic for (seed, index, replication).
SearchOutcome simulate_search(const SearchScenario& scenario, const SearchSimOptions& options,
                              std::uint64_t index);

}  // namespace tuner::verify
