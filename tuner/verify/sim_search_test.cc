// A reduced run of `tuner_decision_sim --search K` that asserts the search's targets
// with a margin. It fails if selection leaks into the confirmation (confirming on the
// screening's own trials keeps a null candidate far more often than false_keep_rate) or
// if screening loses the good candidate.
#include "tuner/verify/sim_search.h"

#include <doctest/doctest.h>

using namespace tuner::verify;

namespace {

SearchOutcome run(Noise noise, unsigned k, double best, double other, unsigned reps,
                  std::uint64_t index) {
  SearchSimOptions o;
  o.reps = reps;
  o.seed = 7;
  o.config = sim_config();
  return simulate_search({Scenario{noise, 0.03}, k, best, other}, o, index);
}

}  // namespace

TEST_CASE("search simulation: no candidate beats min_effect: kept at most false_keep_rate") {
  // All 8 at exactly min_effect, the boundary where the bound is tight.
  SearchOutcome r = run(Noise::normal, 8, 0.01, 0.01, 2000, 1);
  CHECK(r.keep_rate() <= 0.016);  // 1% bound, 3 standard errors at 2000 runs: 0.67%
  SearchOutcome p = run(Noise::period3_locked, 4, 0.0, 0.0, 1000, 2);
  CHECK(p.keep_rate() <= 0.01);
}

TEST_CASE("search simulation: a +5% candidate among 4 is found, kept, in <= 60 runs") {
  SearchOutcome r = run(Noise::normal, 4, 0.05, 0.0, 400, 3);
  CHECK(r.found_rate() >= 0.93);
  CHECK(r.mean_runs() <= 60);
  SearchOutcome none = run(Noise::normal, 4, 0.0, 0.0, 400, 4);
  CHECK(none.keeps <= 4);
  CHECK(none.mean_runs() <= 60);
}

TEST_CASE("search simulation: a +5% candidate among 8 is found in <= 90 runs") {
  SearchOutcome r = run(Noise::normal, 8, 0.05, 0.0, 400, 5);
  CHECK(r.found_rate() >= 0.88);
  CHECK(r.mean_runs() <= 90);
}
