// The verify loop's watching benchmarks (README.md "Watching benchmarks: non-
// inferiority"): run beside the main one in every trial, each must be shown to lose less
// than the margin at the main metric's look for a keep, and proven harm on one rolls the
// group back like a guard.
#include <algorithm>
#include <span>

#include <fmt/format.h>

#include "tuner/verify/loop.h"
#include "tuner/verify/loop_measured.h"

namespace tuner::verify {

Config VerifyLoop::watch_config(Config cfg, Direction direction) const {
  // Non-inferiority: H0 "the watch loses at least the margin" against "it loses less".
  cfg.direction = direction;
  cfg.min_effect =
      -(options_.watch_margin >= 0 ? options_.watch_margin : options_.decision.min_effect);
  return cfg;
}

bool VerifyLoop::watches_pending(const Config& cfg, const Measured& out) const {
  unsigned n = out.decision.stats.trials;
  bool pending = false;
  for (const Arms::Watch& w : out.arms.watches) {
    if (w.baseline.size() < n || w.candidate.size() < n) return false;
    std::span<const double> a = std::span(w.baseline).first(n), b = std::span(w.candidate).first(n);
    Config harm_cfg = cfg;
    harm_cfg.direction = w.direction;
    auto h = decide(harm_cfg, a, b);
    if (h.ok() && h->verdict == Verdict::harm) return false;  // proven worse: stop now
    auto d = decide(watch_config(cfg, w.direction), a, b);
    if (!d.ok() || d->stats.p > d->stats.alpha_look) pending = true;
  }
  return pending;
}

void VerifyLoop::check_watches(Config cfg, Measured& out) const {
  // The same test as the main metric, at the same trials, asked whether the watch's
  // loss is shown smaller than the margin: a watch need not improve, but a keep needs
  // it shown non-inferior, and proven harm on it (or a keep it could not back) rolls
  // the group back like a guard.
  unsigned n = out.decision.stats.trials;
  for (const Arms::Watch& w : out.arms.watches) {
    std::size_t have = std::min(w.baseline.size(), w.candidate.size());
    unsigned use = n ? std::min<unsigned>(n, static_cast<unsigned>(have))
                     : static_cast<unsigned>(have);
    if (use < cfg.min_trials) continue;
    Config wc = watch_config(cfg, w.direction);
    std::span<const double> a(w.baseline.data(), use), b(w.candidate.data(), use);
    auto d = decide(wc, a, b);
    if (!d.ok()) continue;
    bool non_inferior = d->stats.p <= d->stats.alpha_look;
    Config harm_cfg = cfg;
    harm_cfg.direction = w.direction;
    auto h = decide(harm_cfg, a, b);
    bool harm = h.ok() && h->verdict == Verdict::harm;
    bool blocks_keep = out.decision.verdict == Verdict::keep && !non_inferior;
    auto watch = bench_stats<WatchResult>(*d, w.bench, w.unit);
    watch.margin = -wc.min_effect;
    watch.non_inferior = non_inferior;
    watch.tripped = harm || blocks_keep;
    out.watches.push_back(std::move(watch));
    if (harm || blocks_keep)
      out.watch_harm.push_back(
          fmt::format("benchmark {}: effect {:+.1f}% [{:+.1f}%, {:+.1f}%], {}", w.bench,
                      100 * d->stats.effect, 100 * d->stats.ci_low, 100 * d->stats.ci_high,
                      harm ? "proven worse"
                           : fmt::format("a loss of {:.1f}% not ruled out", 100 * -wc.min_effect)));
  }
}

}  // namespace tuner::verify
