#include "tuner/verify/outcome.h"

#include <array>
#include <cmath>

#include "base/enum_names.h"
#include "base/strings.h"

namespace tuner::verify {

using nlohmann::json;

nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

namespace {

constexpr std::array<EnumName<Reason>, 17> kReasons = {{
    {Reason::gain, "gain"},
    {Reason::neutral_kept, "neutral_kept"},
    {Reason::no_gain, "no_gain"},
    {Reason::harm, "harm"},
    {Reason::inconclusive, "inconclusive"},
    {Reason::guard, "guard"},
    {Reason::bench_failed, "bench_failed"},
    {Reason::budget, "budget"},
    {Reason::not_measurable, "not_measurable"},
    {Reason::not_measurable_kept, "not_measurable_kept"},
    {Reason::partly_kept, "partly_kept"},
    {Reason::class_kept, "class_kept"},
    {Reason::class_rolled_back, "class_rolled_back"},
    {Reason::class_disagree, "class_disagree"},
    {Reason::class_undecided, "class_undecided"},
    {Reason::soak_undecided, "soak_undecided"},
    {Reason::interference, "interference"},
}};
static_assert(in_enum_order(kReasons));

constexpr std::array<EnumName<StepOutcome>, 6> kStepOutcomes = {{
    {StepOutcome::harm, "harm"},
    {StepOutcome::guard, "guard"},
    {StepOutcome::no_harm, "no_harm"},
    {StepOutcome::bench_failed, "bench_failed"},
    {StepOutcome::budget, "budget"},
    {StepOutcome::interference, "interference"},
}};
static_assert(in_enum_order(kStepOutcomes));

json bench_stats_json(const BenchStats& b) {
  const Stats& s = b.stats;
  return {{"bench", b.bench},
          {"unit", b.unit},
          {"verdict", std::string(verdict_name(b.verdict))},
          {"baseline", number_or_null(s.baseline_median)},
          {"candidate", number_or_null(s.candidate_median)},
          {"effect", number_or_null(s.effect)},
          {"ci", {number_or_null(s.ci_low), number_or_null(s.ci_high)}},
          {"ci_level", number_or_null(s.ci_level)},
          {"p", number_or_null(s.p)},
          {"trials", {{"baseline", b.trials_baseline}, {"candidate", b.trials_candidate}}},
          {"look", s.look},
          {"looks", s.looks},
          {"alpha_spent", number_or_null(s.alpha_spent)},
          {"scale", std::string(scale_name(s.scale))}};
}

// The fields this version adds to a benchmark's numbers, only where they are known.
void add_unit_stats(json& j, const Stats& s) {
  if (s.units) j["units"] = s.units;
  if (s.outliers) j["outlier_units"] = s.outliers;
  if (std::isfinite(s.mean_effect)) {
    j["mean_effect"] = s.mean_effect;
    j["p_mean"] = number_or_null(s.p_mean);
  }
  if (std::isfinite(s.power_at_max)) {
    j["power_at_max"] = s.power_at_max;
    j["trials_needed"] = s.trials_needed;
  }
}

json load_test_json(const LoadTest& t, const char* unit) {
  json j = {{"unit", unit}, {"judged", t.judged}, {"floor", t.floor}};
  if (t.judged) {
    j["baseline"] = number_or_null(t.baseline);
    j["candidate"] = number_or_null(t.candidate);
    j["p"] = number_or_null(t.p);
    j["trials"] = {{"baseline", t.trials_baseline}, {"candidate", t.trials_candidate}};
    j["proven"] = t.proven;
  }
  if (!t.note.empty()) j["note"] = t.note;
  return j;
}

json interference_json(const Interference& in) {
  json consumers = json::array();
  for (const LoadConsumer& c : in.consumers)
    consumers.push_back({{"pid", c.pid},
                         {"comm", valid_utf8(c.comm)},  // a name is any bytes; JSON is UTF-8
                         {"uid", c.uid ? json(*c.uid) : json()},
                         {"kernel_thread", c.kernel_thread},
                         {"baseline", number_or_null(c.baseline)},
                         {"candidate", number_or_null(c.candidate)}});
  json j = {{"flagged", in.flagged},
            {"level", in.level},
            {"cpu", load_test_json(in.cpu, "CPUs")},
            {"demand", load_test_json(in.demand, "CPUs")},
            {"traffic", load_test_json(in.traffic, "bytes/s")},
            {"consumers", std::move(consumers)}};
  if (!in.text.empty()) j["text"] = in.text;
  return j;
}

json comparison_json(const Comparison& c) {
  json j = bench_stats_json(c);
  add_unit_stats(j, c.stats);
  j["design"] = std::string(design_name(c.design));
  if (!c.order.empty()) {
    j["seed"] = c.seed;
    j["order"] = c.order;
    j["washes"] = c.washes;
    if (!c.values.empty()) {
      json values = json::array();
      for (double v : c.values) values.push_back(number_or_null(v));
      j["values"] = std::move(values);
    }
  }
  if (c.direction) j["direction"] = bench::direction_name(*c.direction);
  if (c.min_effect) j["min_effect"] = number_or_null(*c.min_effect);
  if (c.power_effect) j["power_effect"] = number_or_null(*c.power_effect);
  j["guards"] = json::array();
  for (const GuardResult& g : c.guards) {
    json gj = {{"metric", bench::guard_metric_name(g.metric)},
               {"baseline", g.baseline},
               {"candidate", g.candidate},
               {"tripped", g.tripped}};
    if (!g.interface.empty()) gj["interface"] = g.interface;
    if (!g.source.empty()) gj["source"] = g.source;
    if (g.dispersion) gj["dispersion"] = *g.dispersion;
    if (!g.note.empty()) gj["note"] = g.note;
    if (g.counts)
      gj["counts"] = {{"baseline", {{"events", g.counts->x_b}, {"exposure", g.counts->t_b}}},
                      {"candidate", {{"events", g.counts->x_c}, {"exposure", g.counts->t_c}}}};
    if (g.expected)
      gj["expected"] = {{"baseline", g.expected->baseline}, {"candidate", g.expected->candidate}};
    if (g.tripped) {
      gj["limit"] = g.limit;
      if (g.bound) gj["bound"] = *g.bound;
      if (g.p) gj["p"] = *g.p;
      gj["text"] = g.text;
    }
    j["guards"].push_back(std::move(gj));
  }
  if (!c.watches.empty()) {
    j["watches"] = json::array();
    for (const WatchResult& w : c.watches) {
      json wj = bench_stats_json(w);
      wj["tripped"] = w.tripped;
      if (w.margin) {
        wj["margin"] = *w.margin;
        wj["non_inferior"] = w.non_inferior;
      }
      j["watches"].push_back(std::move(wj));
    }
  }
  if (c.interference) j["interference"] = interference_json(*c.interference);
  if (!c.error.empty()) j["error"] = c.error;
  return j;
}

json bisect_json(const Bisect& b) {
  json steps = json::array();
  for (const BisectStep& s : b.steps) {
    json j = s.soak.is_null() ? comparison_json(s) : json{{"soak", s.soak}};
    j["knobs"] = s.knobs;
    j["outcome"] = step_outcome_name(s.outcome);
    steps.push_back(std::move(j));
  }
  json out = {{"steps", steps}, {"complete", b.complete}, {"note", b.note}};
  if (b.culprit) out["culprit"] = *b.culprit;
  if (b.rest) {
    json r = b.rest->soak.is_null() ? comparison_json(*b.rest) : json{{"soak", b.rest->soak}};
    r["knobs"] = b.rest->knobs;
    r["outcome"] = reason_name(b.rest->outcome);
    out["rest"] = std::move(r);
  }
  return out;
}

}  // namespace

const char* reason_name(Reason r) { return enum_name(kReasons, r); }

std::optional<Reason> parse_reason(std::string_view name) { return enum_from_name(kReasons, name); }

GroupDecision decision_of(Reason r) {
  switch (r) {
    case Reason::gain:
    case Reason::neutral_kept:
    case Reason::not_measurable_kept:
    case Reason::partly_kept:
    case Reason::class_kept:
    case Reason::soak_undecided: return GroupDecision::kept;
    default: return GroupDecision::rolled_back;
  }
}

const char* step_outcome_name(StepOutcome s) { return enum_name(kStepOutcomes, s); }

std::optional<StepOutcome> parse_step_outcome(std::string_view name) {
  return enum_from_name(kStepOutcomes, name);
}

json to_json(const GroupOutcome& o) {
  json j = o.measured ? comparison_json(*o.measured) : json::object();
  if (!o.unmeasured.empty()) j["reason"] = o.unmeasured;
  j["outcome"] = reason_name(o.reason);
  if (o.bisect) j["bisect"] = bisect_json(*o.bisect);
  if (o.overhead_ms)
    j["overhead_ms"] = {{"median", o.overhead_ms->median}, {"max", o.overhead_ms->max}};
  if (o.time_cap)
    j["time_cap"] = {{"seconds", o.time_cap->seconds}, {"reached", o.time_cap->reached}};
  if (!o.soak.is_null()) j["soak"] = o.soak;
  if (!o.search.is_null()) j["search"] = o.search;
  if (!o.measured && !o.error.empty()) j["error"] = o.error;
  if (o.run_seed) j["run_seed"] = *o.run_seed;
  if (o.alpha_share) j["alpha_share"] = *o.alpha_share;
  if (!o.class_decision.is_null()) j["class_decision"] = o.class_decision;
  return j;
}

}  // namespace tuner::verify
