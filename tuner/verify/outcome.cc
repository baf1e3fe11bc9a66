#include "tuner/verify/outcome.h"

#include <array>
#include <cmath>
#include <limits>
#include <tuple>

#include "base/enum_names.h"

namespace tuner::verify {

using nlohmann::json;

nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

namespace {

constexpr std::array<EnumName<Reason>, 16> kReasons = {{
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
}};
static_assert(in_enum_order(kReasons));

constexpr std::array<EnumName<StepOutcome>, 5> kStepOutcomes = {{
    {StepOutcome::harm, "harm"},
    {StepOutcome::guard, "guard"},
    {StepOutcome::no_harm, "no_harm"},
    {StepOutcome::bench_failed, "bench_failed"},
    {StepOutcome::budget, "budget"},
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

/// Reads typed values out of a JSON document; the first wrong one is kept as the error
/// and every read after it does nothing.
class Reader {
 public:
  std::optional<Error> error;

  /// The member `key` of `o` when it is there and not null.
  const json* find(const json& o, const char* key) const {
    if (error || !o.is_object()) return nullptr;
    auto it = o.find(key);
    return it == o.end() || it->is_null() ? nullptr : &*it;
  }
  void fail(const std::string& path, const std::string& what) {
    if (!error) error = Error::invalid(what, path);
  }
  bool object(const json& v, const std::string& path) {
    if (!v.is_object()) fail(path, "not an object");
    return !error;
  }
  void text(const json& o, const char* key, const std::string& path, std::string& out) {
    if (const json* v = find(o, key)) {
      if (v->is_string()) out = v->get<std::string>();
      else fail(path + "." + key, "not a string");
    }
  }
  /// null is NaN: the writers write NaN and infinities as null.
  void number(const json& o, const char* key, const std::string& path, double& out) {
    if (error || !o.is_object() || !o.contains(key)) return;
    const json& v = o.at(key);
    if (v.is_null()) out = std::numeric_limits<double>::quiet_NaN();
    else if (v.is_number()) out = v.get<double>();
    else fail(path + "." + key, "not a number");
  }
  void count(const json& o, const char* key, const std::string& path, unsigned& out) {
    if (const json* v = find(o, key)) {
      if (v->is_number_unsigned() && v->get<std::uint64_t>() <= UINT32_MAX)
        out = v->get<unsigned>();
      else fail(path + "." + key, "not a count");
    }
  }
  void seed(const json& o, const char* key, const std::string& path, std::uint64_t& out) {
    if (const json* v = find(o, key)) {
      if (v->is_number_integer() && v->get<std::int64_t>() >= 0) out = v->get<std::uint64_t>();
      else fail(path + "." + key, "not a seed");
    }
  }
  void flag(const json& o, const char* key, const std::string& path, bool& out) {
    if (const json* v = find(o, key)) {
      if (v->is_boolean()) out = v->get<bool>();
      else fail(path + "." + key, "not true or false");
    }
  }
  void strings(const json& v, const std::string& path, std::vector<std::string>& out) {
    if (!v.is_array()) return fail(path, "not an array");
    for (const json& s : v) {
      if (!s.is_string()) return fail(path, "holds a non-string");
      out.push_back(s.get<std::string>());
    }
  }
  /// An array of numbers, null as NaN.
  void numbers(const json& o, const char* key, const std::string& path, std::vector<double>& out) {
    const json* v = find(o, key);
    if (!v) return;
    if (!v->is_array()) return fail(path + "." + key, "not an array");
    for (const json& x : *v) {
      if (!x.is_null() && !x.is_number()) return fail(path + "." + key, "holds a non-number");
      out.push_back(x.is_null() ? std::numeric_limits<double>::quiet_NaN() : x.get<double>());
    }
  }
  /// A closed set's name, e.g. a verdict, read by its parse function.
  template <typename E>
  void name(const json& o, const char* key, const std::string& path, E& out,
            std::optional<E> (*parse)(std::string_view)) {
    std::string s;
    text(o, key, path, s);
    if (error || !find(o, key)) return;
    if (auto e = parse(s)) out = *e;
    else fail(path + "." + key, "unknown value \"" + s + "\"");
  }
  /// Calls read(element, its path) for each element of the array `key`.
  template <typename F>
  void each(const json& o, const char* key, const std::string& path, F read) {
    const json* v = find(o, key);
    if (!v) return;
    if (!v->is_array()) return fail(path + "." + key, "not an array");
    for (std::size_t i = 0; i < v->size() && !error; ++i)
      read((*v)[i], path + "." + key + "[" + std::to_string(i) + "]");
  }

  void bench_stats(const json& o, const std::string& path, BenchStats& b) {
    Stats& s = b.stats;
    text(o, "bench", path, b.bench);
    text(o, "unit", path, b.unit);
    name(o, "verdict", path, b.verdict, parse_verdict);
    number(o, "baseline", path, s.baseline_median);
    number(o, "candidate", path, s.candidate_median);
    number(o, "effect", path, s.effect);
    if (const json* ci = find(o, "ci")) {
      if (!ci->is_array() || ci->size() != 2) return fail(path + ".ci", "not [low, high]");
      json pair = {{"low", (*ci)[0]}, {"high", (*ci)[1]}};
      number(pair, "low", path + ".ci", s.ci_low);
      number(pair, "high", path + ".ci", s.ci_high);
    }
    number(o, "ci_level", path, s.ci_level);
    number(o, "p", path, s.p);
    if (const json* t = find(o, "trials"); t && object(*t, path + ".trials")) {
      count(*t, "baseline", path + ".trials", b.trials_baseline);
      count(*t, "candidate", path + ".trials", b.trials_candidate);
    }
    count(o, "look", path, s.look);
    count(o, "looks", path, s.looks);
    number(o, "alpha_spent", path, s.alpha_spent);
    name(o, "scale", path, s.scale, parse_scale);
  }

  void comparison(const json& o, const std::string& path, Comparison& c) {
    if (!object(o, path)) return;
    bench_stats(o, path, c);
    name(o, "design", path, c.design, parse_design);
    seed(o, "seed", path, c.seed);
    text(o, "order", path, c.order);
    count(o, "washes", path, c.washes);
    numbers(o, "values", path, c.values);
    if (!error && !c.values.empty() && c.values.size() != c.order.size())
      fail(path + ".values", std::to_string(c.values.size()) + " values for an order of " +
                                 std::to_string(c.order.size()) + " trials");
    if (find(o, "direction"))
      name(o, "direction", path, c.direction.emplace(), bench::parse_direction);
    if (find(o, "min_effect")) number(o, "min_effect", path, c.min_effect.emplace());
    if (find(o, "power_effect")) number(o, "power_effect", path, c.power_effect.emplace());
    count(o, "units", path, c.stats.units);
    count(o, "outlier_units", path, c.stats.outliers);
    number(o, "mean_effect", path, c.stats.mean_effect);
    number(o, "p_mean", path, c.stats.p_mean);
    number(o, "power_at_max", path, c.stats.power_at_max);
    count(o, "trials_needed", path, c.stats.trials_needed);
    each(o, "guards", path, [&](const json& g, const std::string& at) {
      GuardResult r;
      if (!object(g, at)) return;
      name(g, "metric", at, r.metric, bench::parse_guard_metric);
      text(g, "interface", at, r.interface);
      number(g, "baseline", at, r.baseline);
      number(g, "candidate", at, r.candidate);
      flag(g, "tripped", at, r.tripped);
      number(g, "limit", at, r.limit);
      text(g, "text", at, r.text);
      text(g, "source", at, r.source);
      if (find(g, "dispersion")) number(g, "dispersion", at, r.dispersion.emplace());
      text(g, "note", at, r.note);
      if (find(g, "p")) number(g, "p", at, r.p.emplace());
      if (const json* c = find(g, "counts"); c && object(*c, at + ".counts")) {
        Counts& n = r.counts.emplace();
        for (auto [arm, x, t] :
             {std::tuple{"baseline", &n.x_b, &n.t_b}, std::tuple{"candidate", &n.x_c, &n.t_c}}) {
          std::string where = at + ".counts." + arm;
          const json* side = find(*c, arm);
          if (!side || !object(*side, where)) continue;
          seed(*side, "events", where, *x);
          number(*side, "exposure", where, *t);
        }
      }
      if (const json* e = find(g, "expected"); e && object(*e, at + ".expected")) {
        ExpectedFlaps& x = r.expected.emplace();
        seed(*e, "baseline", at + ".expected", x.baseline);
        seed(*e, "candidate", at + ".expected", x.candidate);
      }
      c.guards.push_back(std::move(r));
    });
    each(o, "watches", path, [&](const json& w, const std::string& at) {
      WatchResult r;
      if (!object(w, at)) return;
      bench_stats(w, at, r);
      flag(w, "tripped", at, r.tripped);
      if (find(w, "margin")) number(w, "margin", at, r.margin.emplace());
      flag(w, "non_inferior", at, r.non_inferior);
      c.watches.push_back(std::move(r));
    });
    text(o, "error", path, c.error);
  }

  void bisect(const json& o, const std::string& path, Bisect& b) {
    if (!object(o, path)) return;
    each(o, "steps", path, [&](const json& s, const std::string& at) {
      BisectStep step;
      if (auto it = s.find("soak"); it != s.end()) step.soak = *it;
      else comparison(s, at, step);
      if (const json* k = find(s, "knobs")) strings(*k, at + ".knobs", step.knobs);
      name(s, "outcome", at, step.outcome, parse_step_outcome);
      b.steps.push_back(std::move(step));
    });
    flag(o, "complete", path, b.complete);
    if (const json* c = find(o, "culprit")) strings(*c, path + ".culprit", b.culprit.emplace());
    if (const json* r = find(o, "rest")) {
      BisectRest& rest = b.rest.emplace();
      if (auto it = r->find("soak"); it != r->end()) rest.soak = *it;
      else comparison(*r, path + ".rest", rest);
      if (const json* k = find(*r, "knobs")) strings(*k, path + ".rest.knobs", rest.knobs);
      name(*r, "outcome", path + ".rest", rest.outcome, parse_reason);
    }
    text(o, "note", path, b.note);
  }
};

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

Result<GroupOutcome> outcome_from_json(const json& stats) {
  const std::string path = "stats";
  Reader in;
  GroupOutcome o;
  if (!in.object(stats, path)) return *in.error;
  const json* outcome = in.find(stats, "outcome");
  if (!outcome) return Error::invalid("no outcome", path);
  in.name(stats, "outcome", path, o.reason, parse_reason);
  o.decision = decision_of(o.reason);
  // Numbers are there when a benchmark measured the group (tuner has always written
  // "bench" with them); a group no benchmark can measure has a "reason" instead.
  if (stats.contains("bench")) in.comparison(stats, path, o.measured.emplace());
  in.text(stats, "reason", path, o.unmeasured);
  if (!o.measured) in.text(stats, "error", path, o.error);
  if (const json* b = in.find(stats, "bisect")) in.bisect(*b, path + ".bisect", o.bisect.emplace());
  if (const json* v = in.find(stats, "overhead_ms"); v && in.object(*v, path + ".overhead_ms")) {
    Overhead& oh = o.overhead_ms.emplace();
    in.number(*v, "median", path + ".overhead_ms", oh.median);
    in.number(*v, "max", path + ".overhead_ms", oh.max);
  }
  if (const json* v = in.find(stats, "time_cap"); v && in.object(*v, path + ".time_cap")) {
    TimeCap& cap = o.time_cap.emplace();
    in.number(*v, "seconds", path + ".time_cap", cap.seconds);
    in.flag(*v, "reached", path + ".time_cap", cap.reached);
  }
  if (auto it = stats.find("soak"); it != stats.end()) o.soak = *it;
  if (auto it = stats.find("search"); it != stats.end()) o.search = *it;
  if (auto it = stats.find("class_decision"); it != stats.end()) o.class_decision = *it;
  if (in.find(stats, "run_seed")) in.seed(stats, "run_seed", path, o.run_seed.emplace());
  if (in.find(stats, "alpha_share")) in.number(stats, "alpha_share", path, o.alpha_share.emplace());
  if (in.error) return *in.error;
  return o;
}

}  // namespace tuner::verify
