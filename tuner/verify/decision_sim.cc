// tuner_decision_sim: runs the verify loop's decision against simulated benchmarks with
// known effects and prints how often it keeps, with the naive rule and fixed-size
// signed-rank tests beside it. The README's tables are its --markdown output.
//
//   tuner_decision_sim [--reps N] [--seed S] [--markdown] [--shipped] [--fixed-n]
//
// --shipped: one group's share of the shipped defaults instead of the simulation's
// config; --fixed-n: for +5% rows, the trials per arm a fixed design needs for the same
// miss rate (a bisection: slow).
// Design experiments (README.md, "Choices"): [--keep-spending F] [--futility-spending F]
// (F: obrien_fleming, pocock, quadratic) [--power-effect E] [--miss-rate R]
// [--look-every N] [--union-bound] (no calibration) [--outlier-k K] (0: no unit left out)
// [--no-mean-test] (the signed-rank test alone) [--mean-all-in] (the mean test on every
// unit) [--mean-min-units N] (the mean test keeps from N units on) [--fixed N] (the larger fixed-size test) [--effect E] (only scenarios with that
// true effect) [--noise NAME] (only scenarios with that noise). --looks prints the look
// schedule and thresholds instead.
// --search K: the value search over K candidates instead (README.md, "Value search"),
// with [--screen-blocks N] [--screen-min N] [--drop-z Z] [--futility-z Z]; exits 1
// when a target is missed.
// --fleet: decisions for a fleet of hardware classes (README.md, "Fleet decisions"),
// on the shipped config, with [--classes C] [--nodes N] (per class) [--canaries K]
// [--effect-sd E] (a node's true effect around its class's); exits 1 when a target is
// missed.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#include "tuner/verify/calibration.h"
#include "tuner/verify/sim.h"
#include "tuner/verify/sim_fleet.h"
#include "tuner/verify/sim_search.h"

namespace {

using namespace tuner::verify;

[[noreturn]] void usage(const char* why) {
  std::fprintf(
      stderr,
      "tuner_decision_sim: %s\nusage: tuner_decision_sim [--reps N] [--seed S] "
      "[--markdown] [--shipped] [--fixed-n] [--keep-spending F] [--futility-spending F] "
      "[--power-effect E] "
      "[--miss-rate R] [--look-every N] [--union-bound] [--outlier-k K] [--no-mean-test] "
      "[--mean-all-in] [--mean-min-units N] [--fixed N] [--effect E] [--noise NAME] "
      "[--looks] [--search K [--screen-blocks N] [--screen-min N] [--drop-z Z] [--futility-z Z]]\n"
      "       [--fleet [--classes C] [--nodes N] [--canaries K] [--effect-sd E] [--canary-bias B]\n"
      "        [--class-spread S] [--class-bias B]]\n"
      "F: obrien_fleming, pocock, quadratic\n",
      why);
  std::exit(2);
}

unsigned long long parse_number(const char* s, unsigned long long max) {
  char* end = nullptr;
  unsigned long long v = std::strtoull(s, &end, 10);
  if (!*s || *end || v == 0 || v > max) usage("expected a positive number");
  return v;
}

double parse_real(const char* s) {
  char* end = nullptr;
  double v = std::strtod(s, &end);
  if (!*s || *end || !std::isfinite(v)) usage("expected a number");
  return v;
}

Spending spending_arg(std::string_view s) {
  if (auto f = parse_spending(s)) return *f;
  usage("unknown spending function");
}

std::string pct(double rate) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f", 100 * rate);
  return buf;
}

// A rate in percent with its binomial standard error, for the summary lines.
std::string pct_se(double rate, unsigned reps) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2f%% (+-%.2f)", 100 * rate,
                100 * std::sqrt(rate * (1 - rate) / std::max(1u, reps)));
  return buf;
}

std::string signed_pct(double rate) {
  char buf[16];
  double whole = std::round(100 * rate);
  std::snprintf(buf, sizeof buf, std::fabs(100 * rate - whole) < 1e-9 ? "%+.0f%%" : "%+.1f%%",
                100 * rate);
  return buf;
}

// Text: the first `left` cells left-aligned in `lw` columns, the rest right-aligned in `rw`.
void row(bool md, const std::vector<std::string>& cells, std::size_t left = 5, int lw = 12,
         int rw = 9) {
  std::string line;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (md) {
      line += (i ? " | " : "| ") + cells[i];
    } else {
      char buf[48];
      if (i < left) std::snprintf(buf, sizeof buf, "%-*s", lw, cells[i].c_str());
      else std::snprintf(buf, sizeof buf, " %*s", rw, cells[i].c_str());
      line += buf;
    }
  }
  std::printf("%s%s\n", line.c_str(), md ? " |" : "");
}

// The targets, per scenario: keeps at the threshold within false_keep_rate
// (1.2x for the wider candidate spread); +5% at 3% kept >= 95% (normal, t3, slow drift)
// or >= 90% (outliers, bimodal, bursts); trials per arm at +5% no more than a fixed
// design needs for the same miss rate.
struct Summary {
  double worst_null = 0;    // keeps when the effect is <= 0
  double worst_stalls = 0;  // keeps of stalls whose mean gain is <= min_effect
  unsigned stalls_rows = 0;
  double worst_threshold = 0;  // keeps when the effect is exactly min_effect
  std::string worst_threshold_at;
  double worst_power = 1;  // keeps of +5% at 3% cv
  std::string worst_power_at;
  unsigned null_rows = 0, threshold_rows = 0, power_rows = 0;
  std::vector<std::string> missed;
  double trials[2] = {0, 0};  // mean trials per arm at 3% cv: effect 0, effect +5%
  double most[2] = {0, 0};
  unsigned rows[2] = {0, 0};

  void add(const Scenario& s, const MethodOutcome& q, const Config& c, unsigned fixed_n,
           const std::string& name) {
    // Stalls whose mean gain is at most min_effect: kept at most false_keep_rate.
    if (s.noise == Noise::stalls && s.effect <= c.min_effect + 1e-12 &&
        q.keep_rate() > c.false_keep_rate)
      missed.push_back(name + ": stalls kept " + pct(q.keep_rate()) + "% > " +
                       pct(c.false_keep_rate) + "%");
    if (s.noise == Noise::stalls) {
      stalls_rows += s.effect <= c.min_effect + 1e-12;
      worst_stalls = std::max(worst_stalls, s.effect <= c.min_effect + 1e-12 ? q.keep_rate() : 0);
      return;  // its own targets: the effect is the mean's, not the typical trial's
    }
    if (s.effect <= 0) {
      worst_null = std::max(worst_null, q.keep_rate());
      ++null_rows;
    }
    if (std::fabs(s.effect - c.min_effect) < 1e-12) {
      double bound = c.false_keep_rate * (s.noise == Noise::spread ? 1.2 : 1);
      if (q.keep_rate() > worst_threshold) worst_threshold_at = name;
      worst_threshold = std::max(worst_threshold, q.keep_rate());
      ++threshold_rows;
      if (q.keep_rate() > bound)
        missed.push_back(name + ": kept " + pct(q.keep_rate()) + "% > " + pct(bound) + "%");
    }
    if (s.cv < 0.03 || (s.effect != 0 && s.effect != 0.05)) return;
    int i = s.effect == 0 ? 0 : 1;
    if (i == 1) {
      if (q.keep_rate() < worst_power) worst_power_at = name;
      worst_power = std::min(worst_power, q.keep_rate());
      ++power_rows;
      bool strict = s.noise == Noise::normal || s.noise == Noise::student_t3 ||
                    s.noise == Noise::drift;
      bool loose = s.noise == Noise::bimodal || s.noise == Noise::bursts;
      // Symmetric outliers: issue 40 asks the mean test to leave them >= 93%.
      bool outlier = s.noise == Noise::outlier;
      if ((strict && q.keep_rate() < 0.95) || (loose && q.keep_rate() < 0.90) ||
          (outlier && q.keep_rate() < 0.93))
        missed.push_back(name + ": +5% kept " + pct(q.keep_rate()) + "%");
      if (fixed_n && q.mean_trials() > fixed_n)
        missed.push_back(name + ": " + std::to_string(q.mean_trials()) + " trials > fixed " +
                         std::to_string(fixed_n));
    }
    trials[i] += q.mean_trials();
    most[i] = std::max(most[i], q.mean_trials());
    ++rows[i];
  }
};

unsigned trial_count(const char* s) { return static_cast<unsigned>(parse_number(s, 1000)); }

// The look schedule of `c`: what each look may spend and the p-value it needs.
void print_looks(const Config& c, bool md) {
  std::vector<unsigned> points = look_points(c);
  double beta = futility_rate(c);
  const LookThresholds& keep = calibrated_thresholds(points, c.keep_spending, c.false_keep_rate);
  const LookThresholds& stop = calibrated_thresholds(points, c.futility_spending, beta);
  LookThresholds keep_union = union_thresholds(points, c.keep_spending, c.false_keep_rate);
  LookThresholds stop_union = union_thresholds(points, c.futility_spending, beta);
  row(md, {"look", "trials", "spent", "keep p<=", "union", "sim", "stop spent", "stop p<=", "union",
           "sim"});
  if (md) row(md, {"---", "---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:"});
  auto g = [](double v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return std::string(buf);
  };
  for (std::size_t k = 0; k < points.size(); ++k) {
    double t = static_cast<double>(points[k]) / c.max_trials;
    row(md, {std::to_string(k + 1), std::to_string(points[k]),
             g(spent(c.keep_spending, c.false_keep_rate, t)), g(keep.p[k]), g(keep_union.p[k]),
             g(keep.crossed[k]), g(spent(c.futility_spending, beta, t)), g(stop.p[k]),
             g(stop_union.p[k]), g(stop.crossed[k])});
  }
}

// --search K: the value search over K candidates in every noise scenario.
int print_search(const SearchSimOptions& o, unsigned k, bool md) {
  const Config& c = o.config;
  const ScreenConfig& sc = o.screen;
  const char* note = md ? "" : "# ";
  std::printf("%ssearch: %u candidates; screening %u..%u blocks, drop_z %g, futility_z %g; "
              "confirmation: min_effect %g, false_keep_rate %g, miss_rate %g, trials per arm "
              "%u..%u; %u replications, seed %llu\n\n",
              note, k, sc.min_blocks, sc.max_blocks, sc.drop_z, sc.futility_z, c.min_effect,
              c.false_keep_rate, c.miss_rate, c.min_trials, c.max_trials, o.reps,
              static_cast<unsigned long long>(o.seed));
  row(md, {"better", "noise", "design", "cv", "effects", "keep%", "found%", "chosen%", "screened%",
           "runs", "screen runs"});
  if (md)
    row(md, {"---", "---", "---", "---", "---", "---:", "---:", "---:", "---:", "---:", "---:"});
  auto start = std::chrono::steady_clock::now();
  std::vector<SearchScenario> scenarios = search_scenarios(k);
  double worst_false = 0, worst_found = 1, normal_runs[2] = {0, 0}, runs_sum = 0, most_runs = 0;
  std::string worst_false_at, worst_found_at;
  std::vector<std::string> missed;
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    const SearchScenario& ss = scenarios[i];
    const Scenario& s = ss.base;
    SearchOutcome r = simulate_search(ss, o, 1000 + i);
    bool helps = ss.best_effect > ss.other_effect;
    std::string effects = helps ? "one " + signed_pct(ss.best_effect)
                                : "all " + signed_pct(ss.other_effect);
    std::string name = std::string(s.direction == Direction::higher ? "" : "lower ") +
                       std::string(noise_name(s.noise)) +
                       (s.design == Design::blocked ? " blocked" : "") + " " + effects;
    char runs[16], screen_runs[16];
    std::snprintf(runs, sizeof runs, "%.1f", r.mean_runs());
    std::snprintf(screen_runs, sizeof screen_runs, "%.1f", r.mean_screen_runs());
    row(md,
        {s.direction == Direction::higher ? "higher" : "lower", std::string(noise_name(s.noise)),
         std::string(design_name(s.design)), pct(s.cv).substr(0, pct(s.cv).find('.')) + "%",
         effects, pct(r.keep_rate()), helps ? pct(r.found_rate()) : "",
         helps ? pct(static_cast<double>(r.chosen_right) / r.reps) : "",
         pct(static_cast<double>(r.screened_out) / r.reps), runs, screen_runs});
    runs_sum += r.mean_runs();
    most_runs = std::max(most_runs, r.mean_runs());
    if (!helps) {
      if (r.keep_rate() > worst_false) worst_false_at = name;
      worst_false = std::max(worst_false, r.keep_rate());
      double bound = c.false_keep_rate * (s.noise == Noise::spread ? 1.2 : 1);
      if (r.keep_rate() > bound + 3 * std::sqrt(bound * (1 - bound) / r.reps))
        missed.push_back(name + ": kept " + pct(r.keep_rate()) + "% > " + pct(bound) + "%");
      continue;
    }
    if (r.found_rate() < worst_found) worst_found_at = name;
    worst_found = std::min(worst_found, r.found_rate());
    bool strict = s.noise == Noise::normal || s.noise == Noise::student_t3 ||
                  s.noise == Noise::drift || s.noise == Noise::drift_fast;
    double need = k <= 4 ? 0.95 : 0.90;
    if (strict && r.found_rate() < need)
      missed.push_back(name + ": +5% found and kept " + pct(r.found_rate()) + "% < " + pct(need) +
                       "%");
    if (s.noise == Noise::normal && s.direction == Direction::higher)
      normal_runs[1] = r.mean_runs();
  }
  for (std::size_t i = 0; i < scenarios.size(); ++i)
    if (scenarios[i].base.noise == Noise::normal &&
        scenarios[i].base.direction == Direction::higher && scenarios[i].best_effect == 0) {
      normal_runs[0] = simulate_search(scenarios[i], o, 1000 + i).mean_runs();
      break;
    }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double run_limit = k <= 4 ? 60 : 90;
  std::printf("\n%stargets, search over %u candidates:\n", note, k);
  std::printf("- keeps when no candidate beats min_effect: worst %s, %s (bound %g%%)\n",
              pct_se(worst_false, o.reps).c_str(), worst_false_at.c_str(), 100 * c.false_keep_rate);
  std::printf("- the +5%% candidate found and kept: worst %s, %s\n",
              pct_se(worst_found, o.reps).c_str(), worst_found_at.c_str());
  std::printf("- runs per search, normal noise: %.1f (none helps), %.1f (one +5%%); over all "
              "rows mean %.1f, worst %.1f (limit %.0f)\n",
              normal_runs[0], normal_runs[1], runs_sum / static_cast<double>(scenarios.size()),
              most_runs, run_limit);
  if (normal_runs[0] > run_limit || normal_runs[1] > run_limit)
    missed.push_back("runs per search above " + std::to_string(static_cast<int>(run_limit)));
  std::printf("- targets missed: %s\n", missed.empty() ? "none" : "");
  for (const std::string& m : missed) std::printf("  - %s\n", m.c_str());
  std::fprintf(stderr, "%zu search scenarios x %u replications in %.1f s\n", scenarios.size(),
               o.reps, secs);
  return missed.empty() ? 0 : 1;
}

// --fleet: per class and per fleet, the four ways to decide (sim_fleet.h).
int print_fleet(const FleetOptions& o, bool md) {
  const Config& c = o.config;
  const char* note = md ? "" : "# ";
  std::printf("%sfleet: %u classes x %u nodes, %u canaries per class; noise %s %s, node level "
              "sd %g%%, node effect sd %g%%, canary-shared bias sd %g%%; decision: min_effect %g, "
              "false_keep_rate %g, miss_rate %g, trials per arm %u..%u; class check: node spread "
              "%g%%, canary bias %g%%, heterogeneity level %g; %u replications, seed %llu\n\n",
              note, o.classes, o.nodes, o.canaries, std::string(noise_name(o.noise.noise)).c_str(),
              (pct(o.noise.cv).substr(0, pct(o.noise.cv).find('.')) + "%").c_str(),
              100 * o.level_sd, 100 * o.effect_sd, 100 * o.canary_bias, c.min_effect,
              c.false_keep_rate, c.miss_rate, c.min_trials, c.max_trials, 100 * o.check.node_spread,
              100 * o.check.canary_bias, o.check.heterogeneity_level, o.reps,
              static_cast<unsigned long long>(o.seed));
  auto start = std::chrono::steady_clock::now();
  std::vector<FleetResult> results;
  std::vector<FleetScenario> scenarios = fleet_scenarios(c);
  for (std::size_t i = 0; i < scenarios.size(); ++i)
    results.push_back(simulate_fleet(scenarios[i], o, 2000 + i));
  auto num = [](double v, const char* f) {
    char buf[32];
    std::snprintf(buf, sizeof buf, f, v);
    return std::string(buf);
  };
  row(md,
      {"scenario", "class", "effect", "node keep%", "agree keep%", "disagree%", "pooled keep%",
       "checked keep%", "heterog%", "node nodes", "agree nodes", "pooled nodes", "checked nodes"},
      3, 10, 12);
  if (md)
    row(md, {"---", "---:", "---",
             "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:"});
  for (const FleetResult& r : results)
    for (std::size_t k = 0; k < r.effects.size(); ++k) {
      const ClassTally &n = r.at(FleetRule::per_node, k), &a = r.at(FleetRule::canaries_agree, k),
                       &p = r.at(FleetRule::pooled, k), &ch = r.at(FleetRule::canaries_checked, k);
      double reps = std::max(1u, o.reps);
      row(md,
          {r.scenario.name, std::to_string(k), signed_pct(r.effects[k]),
           num(100 * n.keep_rate(), "%.2f"), num(100 * a.keep_rate(), "%.2f"),
           num(100.0 * a.disagree / reps, "%.1f"), num(100 * p.keep_rate(), "%.2f"),
           num(100 * ch.keep_rate(), "%.2f"), num(100.0 * ch.heterogeneous / reps, "%.1f"),
           num(n.carrying / reps, "%.1f"), num(a.carrying / reps, "%.1f"),
           num(p.carrying / reps, "%.1f"), num(ch.carrying / reps, "%.1f")},
          3, 10, 12);
    }
  std::printf("\n");
  const double inf = std::numeric_limits<double>::infinity();
  row(md, {"scenario", "rule", "class false%", "power%", "fleet false%", "useless nodes", "trials"},
      2, 16, 13);
  if (md) row(md, {"---", "---", "---:", "---:", "---:", "---:", "---:"});
  for (const FleetResult& r : results)
    for (std::size_t i = 0; i < kFleetRules; ++i) {
      auto rule = static_cast<FleetRule>(i);
      double null = r.keep_rate(rule, -inf, c.min_effect + 1e-12);
      bool any_null = std::any_of(r.effects.begin(), r.effects.end(),
                                  [&](double e) { return e <= c.min_effect + 1e-12; });
      double gain = power_effect(c) - 1e-12;
      bool any_gain =
          std::any_of(r.effects.begin(), r.effects.end(), [&](double e) { return e >= gain; });
      row(md,
          {r.scenario.name, std::string(fleet_rule_name(rule)),
           any_null ? num(100 * null, "%.3f") : "",
           any_gain ? num(100 * r.keep_rate(rule, gain, inf), "%.1f") : "",
           num(100 * r.fleet_false_rate(rule), "%.2f"), num(r.useless_nodes(rule), "%.2f"),
           num(r.trials(rule), "%.0f")},
          2, 16, 13);
    }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<std::string> missed = fleet_targets_missed(results);
  std::printf("\n%stargets missed: %s\n", note, missed.empty() ? "none" : "");
  for (const std::string& m : missed) std::printf("  - %s\n", m.c_str());
  std::fprintf(stderr, "%zu fleet scenarios x %u replications in %.1f s\n", results.size(), o.reps,
               secs);
  return missed.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  // The fleet mode decides on the shipped config; the other flags adjust it as usual.
  bool fleet = std::any_of(argv + 1, argv + argc,
                           [](const char* a) { return std::string_view(a) == "--fleet"; });
  SimOptions options;
  options.config = fleet ? shipped_config() : sim_config();
  Config& c = options.config;
  bool md = false;
  double only_effect = NAN;
  std::string only_noise;
  bool looks_only = false;
  bool fixed_n = false;
  unsigned search = 0;
  ScreenConfig screen;
  FleetOptions fleet_options;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage("missing value");
      return argv[++i];
    };
    if (arg == "--reps") options.reps = static_cast<unsigned>(parse_number(value(), 1000000));
    else if (arg == "--seed") options.seed = parse_number(value(), ~0ULL);
    else if (arg == "--markdown") md = true;
    else if (arg == "--keep-spending") c.keep_spending = spending_arg(value());
    else if (arg == "--futility-spending") c.futility_spending = spending_arg(value());
    else if (arg == "--power-effect") c.power_effect = parse_real(value());
    else if (arg == "--miss-rate") c.miss_rate = parse_real(value());
    else if (arg == "--look-every") c.look_every = trial_count(value());
    else if (arg == "--union-bound") c.calibrate = false;
    else if (arg == "--outlier-k") c.outlier_k = parse_real(value());
    else if (arg == "--no-mean-test") c.mean_test = false;
    else if (arg == "--mean-all-in") c.mean_outliers = MeanOutliers::all_in;
    else if (arg == "--mean-min-units") c.mean_min_units = trial_count(value());
    else if (arg == "--noise") only_noise = value();
    else if (arg == "--fixed") options.fixed_large = trial_count(value());
    else if (arg == "--effect") only_effect = parse_real(value());
    else if (arg == "--looks") looks_only = true;
    else if (arg == "--shipped") c = shipped_config();
    else if (arg == "--fixed-n") fixed_n = true;
    else if (arg == "--search")
      search = static_cast<unsigned>(parse_number(value(), kMaxCandidates));
    else if (arg == "--screen-blocks") screen.max_blocks = trial_count(value());
    else if (arg == "--screen-min") screen.min_blocks = trial_count(value());
    else if (arg == "--drop-z") screen.drop_z = parse_real(value());
    else if (arg == "--futility-z") screen.futility_z = parse_real(value());
    else if (arg == "--fleet") continue;
    else if (arg == "--classes") fleet_options.classes = trial_count(value());
    else if (arg == "--nodes") fleet_options.nodes = trial_count(value());
    else if (arg == "--canaries") fleet_options.canaries = trial_count(value());
    else if (arg == "--effect-sd") fleet_options.effect_sd = parse_real(value());
    else if (arg == "--canary-bias") fleet_options.canary_bias = parse_real(value());
    else if (arg == "--class-spread") fleet_options.check.node_spread = parse_real(value());
    else if (arg == "--class-bias") fleet_options.check.canary_bias = parse_real(value());
    else usage("unknown option");
  }
  if (tuner::Status s = validate(c); !s) usage(s.error().message().c_str());
  if (c.outlier_k < 0) usage("--outlier-k: expected 0 or more");
  if (looks_only) {
    print_looks(c, md);
    return 0;
  }
  if (search) {
    SearchSimOptions so;
    so.reps = options.reps;
    so.seed = options.seed;
    so.config = c;
    so.screen = screen;
    return print_search(so, search, md);
  }
  if (fleet) {
    if (fleet_options.canaries > fleet_options.nodes) usage("--canaries: more than --nodes");
    if (fleet_options.effect_sd < 0) usage("--effect-sd: expected 0 or more");
    if (fleet_options.canary_bias < 0 || fleet_options.check.node_spread < 0 ||
        fleet_options.check.canary_bias < 0)
      usage("--canary-bias, --class-spread, --class-bias: expected 0 or more");
    fleet_options.reps = options.reps;
    fleet_options.seed = options.seed;
    fleet_options.config = c;
    return print_fleet(fleet_options, md);
  }

  const char* note = md ? "" : "# ";
  std::printf("%sdecision: min_effect %g, false_keep_rate %g, miss_rate %g, power_effect %g, "
              "trials per arm %u..%u every %u, keep %s, futility %s, %s, outlier_k %g, mean "
              "test %s; %u replications, seed %llu\n\n",
              note, c.min_effect, c.false_keep_rate, c.miss_rate, power_effect(c), c.min_trials,
              c.max_trials, c.look_every, spending_name(c.keep_spending),
              spending_name(c.futility_spending), c.calibrate ? "calibrated" : "union bound",
              c.outlier_k,
              !c.mean_test                                ? "off"
              : c.mean_outliers == MeanOutliers::balanced ? "balanced"
                                                          : "all units",
              options.reps, static_cast<unsigned long long>(options.seed));
  std::string small = "SR" + std::to_string(options.fixed_small) + "%";
  std::string large = "SR" + std::to_string(options.fixed_large) + "%";
  row(md, {"better", "noise", "design", "cv", "effect", "keep%", "no_gain%", "harm%", "inconc%",
           "trials", "fixed N", "naive%", small, large});
  if (md)
    row(md, {"---", "---", "---", "---", "---",
             "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:"});

  auto start = std::chrono::steady_clock::now();
  std::vector<Scenario> scenarios = standard_scenarios(c.min_effect);
  Summary sum;
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    const Scenario& s = scenarios[i];
    if (!std::isnan(only_effect) && std::fabs(s.effect - only_effect) > 1e-9) continue;
    if (!only_noise.empty() && noise_name(s.noise) != only_noise) continue;
    ScenarioResult r = simulate(s, options, i);
    const MethodOutcome& q = r.sequential;
    unsigned fixed =
        fixed_n && s.effect == 0.05 && s.cv >= 0.03 ? fixed_trials_needed(s, options, i) : 0;
    char trials[16];
    std::snprintf(trials, sizeof trials, "%.1f", q.mean_trials());
    std::string name = std::string(s.direction == Direction::higher ? "" : "lower ") +
                       std::string(noise_name(s.noise)) +
                       (s.design == Design::blocked ? " blocked" : "") + " " + signed_pct(s.effect);
    row(md,
        {s.direction == Direction::higher ? "higher" : "lower", std::string(noise_name(s.noise)),
         std::string(design_name(s.design)), pct(s.cv).substr(0, pct(s.cv).find('.')) + "%",
         signed_pct(s.effect), pct(q.keep_rate()), pct(q.rate(Verdict::no_gain)),
         pct(q.rate(Verdict::harm)), pct(q.rate(Verdict::inconclusive)), trials,
         fixed ? std::to_string(fixed) : "", pct(r.naive.keep_rate()),
         pct(r.fixed_small.keep_rate()), pct(r.fixed_large.keep_rate())});
    sum.add(s, q, c, fixed, name);
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("\n%stargets, sequential decision:\n", note);
  if (sum.null_rows)
    std::printf("- keeps when the effect is <= 0: worst %s\n",
                pct_se(sum.worst_null, options.reps).c_str());
  if (sum.threshold_rows)
    std::printf("- keeps when the effect is exactly min_effect: worst %s, %s (bound %g%%)\n",
                pct_se(sum.worst_threshold, options.reps).c_str(), sum.worst_threshold_at.c_str(),
                100 * c.false_keep_rate);
  if (sum.stalls_rows)
    std::printf("- stalls whose mean gain is <= min_effect: worst %s (bound %g%%)\n",
                pct_se(sum.worst_stalls, options.reps).c_str(), 100 * c.false_keep_rate);
  if (sum.power_rows)
    std::printf("- +5%% gains kept at 3%% cv: worst %s, %s\n",
                pct_se(sum.worst_power, options.reps).c_str(), sum.worst_power_at.c_str());
  for (int i = 0; i < 2; ++i)
    if (sum.rows[i])
      std::printf("- trials per arm, effect %s at 3%% cv: mean %.1f, worst %.1f\n",
                  i == 0 ? "0" : "+5%", sum.trials[i] / sum.rows[i], sum.most[i]);
  std::printf("- targets missed: %s\n", sum.missed.empty() ? "none" : "");
  for (const std::string& m : sum.missed) std::printf("  - %s\n", m.c_str());
  std::fprintf(stderr, "%zu scenarios x %u replications in %.1f s\n", scenarios.size(),
               options.reps, secs);
  return 0;
}
