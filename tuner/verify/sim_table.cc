#include "tuner/verify/sim_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace tuner::verify {

std::string pct(double rate) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f", 100 * rate);
  return buf;
}

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

void row(bool md, const std::vector<std::string>& cells, std::size_t left, int lw, int rw) {
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

}  // namespace tuner::verify
